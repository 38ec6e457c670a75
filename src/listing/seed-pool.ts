// Seeds for requests that give none. Every such request used to get a seed of its own, so no first page was ever
// the same twice and none could be cached. With a pool (SEED_POOL seeds, 256 by default) a request draws one of
// the pool's seeds at random: visitors still get a random order and links carrying its seed, but a first page is
// one of SEED_POOL answers, which the response cache (and a CDN) keeps and shares. The trade: two visitors may be
// shown the same order. The pool is drawn afresh for each listing version (its seeds are hashed from the
// version), so the shared orders change with the listing; every instance draws the same pool, so a cache shared
// through Redis serves them all. SEED_POOL=0 keeps a seed of its own for every request.
import { createHash, randomInt } from 'node:crypto';
import { chooseSeed, MAX_SEED } from './page.js';

/** The seed at `index` of the pool of the listing `version`: the same on every instance. */
export function poolSeed(version: string, index: number): number {
  const digest = createHash('sha256').update(`${version}:${index}`).digest();
  return digest.readUInt32BE(0) % MAX_SEED;
}

/** A request's draw from the pool: which seed, and whether the answer's cache key carries it. */
export interface PoolDraw {
  index: number;
  /** Set by the response cache when the key it files the answer under names the index. */
  keyed: boolean;
}

const draws = new WeakMap<object, PoolDraw>();

/** The request's draw from a pool of `size` (made once per request); undefined when there is no pool. */
export function poolDraw(request: object, size: number): PoolDraw | undefined {
  if (size <= 0) return undefined;
  let draw = draws.get(request);
  if (!draw) {
    draw = { index: randomInt(0, size), keyed: false };
    draws.set(request, draw);
  }
  return draw;
}

/**
 * The seed for a request that gave none, in the listing `version`, and whether the answer may be cached: from
 * the pool when there is one (cacheable when the cache key names the draw), else a seed of its own (not).
 */
export function seedFor(draw: PoolDraw | undefined, version: string): { seed: number; cacheable: boolean } {
  if (!draw) return { seed: chooseSeed(), cacheable: false };
  return { seed: poolSeed(version, draw.index), cacheable: draw.keyed };
}
