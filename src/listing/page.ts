// One page of the seeded listing: which packages, in which order. Reads scalar package columns only; nested
// records are the DataLoaders' job.
import { randomInt } from 'node:crypto';
import type { PrismaClient } from '../generated/prisma/client.js';
import { pagePositions, seededPermutation } from './permutation.js';

export const DEFAULT_LIMIT = 50;
export const MAX_LIMIT = 100;
/** Seeds are GraphQL Ints (signed 32-bit); a chosen seed stays non-negative so links read naturally. */
export const MAX_SEED = 2 ** 31 - 1;

export function chooseSeed(): number {
  return randomInt(0, MAX_SEED);
}

/** How many packages are listed: the positions 0..count-1 that the seeded order permutes. */
export function countListed(prisma: PrismaClient): Promise<number> {
  return prisma.listingEntry.count();
}

export async function loadPage(prisma: PrismaClient, count: number, seed: number, offset: number, limit: number) {
  if (offset >= count) return [];
  const positions = pagePositions(seededPermutation(count, seed), offset, limit);
  const entries = await prisma.listingEntry.findMany({
    where: { position: { in: positions } },
    include: { package: true },
    relationLoadStrategy: 'join',
  });
  const byPosition = new Map(entries.map((entry) => [entry.position, entry.package]));
  return positions.map((position) => byPosition.get(position)).filter((row) => row !== undefined);
}
