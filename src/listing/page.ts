// The seeded listing's page sizes and seeds.
import { randomInt } from 'node:crypto';
import { INT_MAX } from '../v2/scalars.js';

export const DEFAULT_LIMIT = 50;
export const MAX_LIMIT = 100;
/** Seeds are GraphQL Ints (signed 32-bit); a chosen seed stays non-negative so links read naturally. */
export const MAX_SEED = INT_MAX;

export function chooseSeed(): number {
  return randomInt(0, MAX_SEED);
}
