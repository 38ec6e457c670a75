// One page of the seeded listing: which packages, in which order.
import { randomInt } from 'node:crypto';
import { INT_MAX } from '../v2/scalars.js';
import { pagePositions, seededPermutation } from './permutation.js';
import type { Store } from './store.js';

export const DEFAULT_LIMIT = 50;
export const MAX_LIMIT = 100;
/** Seeds are GraphQL Ints (signed 32-bit); a chosen seed stays non-negative so links read naturally. */
export const MAX_SEED = INT_MAX;

export function chooseSeed(): number {
  return randomInt(0, MAX_SEED);
}

/** The packages of a page: the permuted listing positions, each looked up by primary key. */
export async function loadPage(store: Store, count: number, seed: number, offset: number, limit: number) {
  if (offset >= count) return [];
  return store.packagesAt(pagePositions(seededPermutation(count, seed), offset, limit));
}
