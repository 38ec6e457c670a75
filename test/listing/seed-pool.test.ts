// The pool of seeds a request without one draws from: the same pool on every instance for a listing version, a
// new pool for another version, and a draw made once per request.
import { describe, expect, it } from 'vitest';
import { MAX_SEED } from '../../src/listing/page.js';
import { poolDraw, poolSeed, seedFor } from '../../src/listing/seed-pool.js';

describe('the pool of seeds', () => {
  it('is the same for a version wherever it is drawn, another for another version, and holds distinct seeds', () => {
    const pool = (version: string) => Array.from({ length: 256 }, (_, i) => poolSeed(version, i));
    expect(pool('42')).toEqual(pool('42'));
    const other = new Set(pool('43'));
    expect(pool('42').filter((seed) => other.has(seed)).length).toBeLessThan(3);
    expect(new Set(pool('42')).size).toBeGreaterThan(250);
    for (const seed of pool('42')) expect(seed >= 0 && seed <= MAX_SEED && Number.isInteger(seed)).toBe(true);
  });

  it('draws once per request, within the pool; no pool means a seed of its own, never cached', () => {
    const request = {};
    const draw = poolDraw(request, 4);
    expect(poolDraw(request, 4)).toBe(draw);
    expect(draw?.index).toBeGreaterThanOrEqual(0);
    expect(draw?.index).toBeLessThan(4);
    expect(poolDraw({}, 0)).toBeUndefined();
    expect(seedFor(undefined, '42').cacheable).toBe(false);
    const keyed = { index: 3, keyed: true };
    expect(seedFor(keyed, '42')).toEqual({ seed: poolSeed('42', 3), cacheable: true });
    expect(seedFor({ index: 3, keyed: false }, '42').cacheable).toBe(false);
  });
});
