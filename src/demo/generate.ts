// Deterministic demo data: v2 Package records of a photography marketplace, streamed one at a time.
//
// Photographers are made one after another, each owning 1 to 8 consecutive packages, from one seeded random
// stream. Nothing depends on `count`, so the first N records are the same whatever count is asked for.
// Records that share an identifier (the embedded photographer, add-on templates, social sites, priority tags,
// portfolio entries) are the very same frozen object wherever they appear, so their content cannot differ.
//
// The first photographers and packages are "showcases" that force the rare cases (all-null, all-filled,
// hour 24, whole-second timestamps, ...), so even a small set holds every edge; later records get them by chance.

import type { V2Package } from '../v2/records.js';
import { makePackage } from './package.js';
import { makeOwner, makePools } from './photographer.js';
import { Rng } from './random.js';

export interface GenerateOptions {
  count: number;
  /** An integer from 0 to 2^32 - 1 (the randomizer's seed width); default DEFAULT_SEED (20240601). */
  seed?: number;
}

export const DEFAULT_SEED = 20240601;

export function* generatePackages(options: GenerateOptions): Generator<V2Package> {
  const { count, seed = DEFAULT_SEED } = options;
  if (!Number.isSafeInteger(count) || count < 0) throw new RangeError(`count must be a non-negative integer: ${count}`);
  if (!Number.isInteger(seed) || seed < 0 || seed > 0xffffffff) {
    throw new RangeError(`seed must be an integer from 0 to 4294967295: ${seed}`);
  }
  const rng = new Rng(seed);
  const pools = makePools(rng); // made first, so their draws never depend on count
  let produced = 0;
  for (let p = 0; produced < count; p++) {
    const owner = makeOwner(rng, pools, p);
    for (let n = 0; n < owner.packageCount && produced < count; n++) {
      yield makePackage(rng, owner, produced, n);
      produced++;
    }
  }
}
