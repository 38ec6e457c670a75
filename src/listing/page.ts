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

/**
 * How many packages are listed: the positions 0..count-1 that the seeded order permutes. The positions are
 * dense, so this is the highest one plus one: one step down the primary-key index (ORDER BY position DESC
 * LIMIT 1), where count(*) would visit every entry.
 */
export async function countListed(prisma: PrismaClient): Promise<number> {
  const last = await prisma.listingEntry.findFirst({ orderBy: { position: 'desc' }, select: { position: true } });
  return last === null ? 0 : last.position + 1;
}

export async function loadPage(prisma: PrismaClient, count: number, seed: number, offset: number, limit: number) {
  if (offset >= count) return [];
  const positions = pagePositions(seededPermutation(count, seed), offset, limit);
  // The package columns stay plain columns (a relation join would pass them through JSONB, which reorders
  // the keys of the json columns); only the position comes through the join.
  const rows = await prisma.package.findMany({
    where: { listingEntry: { position: { in: positions } } },
    include: { listingEntry: { select: { position: true } } },
    relationLoadStrategy: 'join',
  });
  const byPosition = new Map(rows.map((row) => [row.listingEntry?.position, row]));
  return positions.map((position) => byPosition.get(position)).filter((row) => row !== undefined);
}
