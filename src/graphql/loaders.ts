// Per-request DataLoaders. Every nested record of a page is fetched in one statement per relation, whatever
// the page size: the photographer with its whole embedded profile, and each of the package's collections.
// Shared records (image, tag, portfolio entry, add-on template, social site) come in the same statement
// through a relation join.
import DataLoader from 'dataloader';
import type { Prisma, PrismaClient } from '../generated/prisma/client.js';

/** The photographer and everything the v2 listing embeds of it: one statement per batch. */
export const photographerProfile = {
  review: true,
  socials: { orderBy: { position: 'asc' }, include: { socialSite: true } },
  coverImages: { orderBy: { position: 'asc' }, include: { image: true } },
  calendarWorkDays: { orderBy: { position: 'asc' } },
} satisfies Prisma.PhotographerInclude;

export type PhotographerProfile = Prisma.PhotographerGetPayload<{ include: typeof photographerProfile }>;
export type LinkedAddOnWithTemplate = Prisma.LinkedAddOnGetPayload<{ include: { template: true } }>;
export type SocialWithSite = Prisma.SocialGetPayload<{ include: { socialSite: true } }>;

/** Orders rows by the keys asked for; a key without a row gets `missing`. */
function byKey<K, V>(keys: readonly K[], rows: V[], keyOf: (row: V) => K, missing: () => V | Error): (V | Error)[] {
  const found = new Map(rows.map((row) => [keyOf(row), row]));
  return keys.map((key) => found.get(key) ?? missing());
}

/** Groups child rows (already in position order) under their parent's key. */
function grouped<V, C>(
  keys: readonly string[],
  rows: V[],
  parentOf: (row: V) => string,
  childOf: (row: V) => C,
): C[][] {
  const groups = new Map<string, C[]>(keys.map((key) => [key, []]));
  for (const row of rows) groups.get(parentOf(row))?.push(childOf(row));
  return keys.map((key) => groups.get(key) ?? []);
}

/** A package's rows in one of its ordered collections, with the shared record joined in the same statement. */
const inPackageOrder = {
  orderBy: [{ packageId: 'asc' as const }, { position: 'asc' as const }],
  relationLoadStrategy: 'join' as const,
};

function packageChildren<Row extends { packageId: string }, Child>(
  fetch: (packageIds: string[]) => Promise<Row[]>,
  childOf: (row: Row) => Child,
): DataLoader<string, Child[]> {
  return new DataLoader(async (packageIds) =>
    grouped(packageIds, await fetch([...packageIds]), (row) => row.packageId, childOf),
  );
}

export function createLoaders(prisma: PrismaClient) {
  return {
    prisma,

    photographer: new DataLoader<string, PhotographerProfile | null>(async (ids) => {
      const rows = await prisma.photographer.findMany({
        where: { id: { in: [...ids] } },
        include: photographerProfile,
        relationLoadStrategy: 'join',
      });
      return byKey<string, PhotographerProfile | null>(
        ids,
        rows,
        (row) => row?.id ?? '',
        () => null,
      );
    }),

    packageImages: packageChildren(
      (ids) =>
        prisma.packageImage.findMany({
          where: { packageId: { in: ids } },
          include: { image: true },
          ...inPackageOrder,
        }),
      (row) => row.image,
    ),
    priorityTags: packageChildren(
      (ids) =>
        prisma.packagePriorityTag.findMany({
          where: { packageId: { in: ids } },
          include: { tag: true },
          ...inPackageOrder,
        }),
      (row) => row.tag,
    ),
    simplePortfolio: packageChildren(
      (ids) =>
        prisma.packageSimplePortfolio.findMany({
          where: { packageId: { in: ids } },
          include: { portfolio: true },
          ...inPackageOrder,
        }),
      (row) => row.portfolio,
    ),
    linkedAddOns: packageChildren(
      (ids) =>
        prisma.linkedAddOn.findMany({
          where: { packageId: { in: ids } },
          include: { template: true },
          ...inPackageOrder,
        }),
      (row): LinkedAddOnWithTemplate => row,
    ),
  };
}

export type Loaders = ReturnType<typeof createLoaders>;
