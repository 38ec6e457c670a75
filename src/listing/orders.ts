// The orders of the listing a storefront can page through, and what one page of each costs.
//
// SEEDED (the default): a keyed permutation of the matching listing positions. Unfiltered, the positions are
// 0..n-1 and a page is n lookups by primary key. Filtered, the matching positions are read once per (filter,
// listing version) and kept (matches.ts), then permuted the same way: every matching package exactly once
// across the pages, the same seed the same order, and O(page size) per page after the first read.
// PRICE_ASC, PRICE_DESC, NEWEST, DISTANCE: one statement ordered by the key and then by id (a total order),
// LIMIT/OFFSET on the filter's condition; price has an index on (price, id).
import { distanceKm, filterCondition, isEmptyFilter, type PackageFilter } from './filter.js';
import { pagePositions, seededPermutation } from './permutation.js';
import type { PackageRow } from './rows.js';
import type { PackageFields, Store } from './store.js';

export const PACKAGE_SORTS = ['SEEDED', 'PRICE_ASC', 'PRICE_DESC', 'NEWEST', 'DISTANCE'] as const;
export type PackageSort = (typeof PACKAGE_SORTS)[number];

/** ORDER BY of each sorted order, on the package row `p` and its photographer `ph`; `distance` from the filter. */
const ORDER_BY: Record<Exclude<PackageSort, 'SEEDED'>, (distance: string) => string> = {
  PRICE_ASC: () => 'p."price", p."id"',
  PRICE_DESC: () => 'p."price" DESC, p."id"',
  // The listing records no time a package was added: the photographer's joining time is the newest there is.
  NEWEST: () => 'ph."created_at" DESC, ph."created_at_micros" DESC, p."id"',
  DISTANCE: (distance) => `${distance}, p."id"`,
};

/** A package of a page, with its distance from `near` when the filter has one. */
export type ListedPackage = PackageRow & { distanceKm?: number | null };

export interface OrderRequest {
  filter: PackageFilter;
  sort: PackageSort;
  seed: number;
}

/** How many packages the filter matches: the length of the order. */
export async function matchCount(store: Store, { filter }: OrderRequest): Promise<number> {
  if (isEmptyFilter(filter)) return store.countListed();
  return (await store.matchingPositions(filter)).length;
}

/**
 * The packages at indexes offset..offset+limit-1 of the order (fewer at its end), with the package fields
 * asked for (all when null).
 */
export async function packagesInOrder(
  store: Store,
  request: OrderRequest,
  offset: number,
  limit: number,
  asked: PackageFields,
): Promise<ListedPackage[]> {
  const { filter, sort, seed } = request;
  // The distance is worked out from the package's coordinates.
  const fields = asked && filter.near ? [...asked, 'latitude', 'longitude'] : asked;
  let rows: PackageRow[];
  if (sort === 'SEEDED') {
    if (isEmptyFilter(filter)) {
      const count = await store.countListed();
      rows =
        offset >= count
          ? []
          : await store.packagesAt(pagePositions(seededPermutation(count, seed), offset, limit), fields);
    } else {
      const matching = await store.matchingPositions(filter);
      const indexes = pagePositions(seededPermutation(matching.length, seed), offset, limit);
      rows = await store.packagesAt(
        indexes.map((index) => matching[index] as number),
        fields,
      );
    }
  } else {
    const condition = filterCondition(filter, 3);
    const orderBy = ORDER_BY[sort](condition.distance ?? '');
    rows = await store.packagesSorted(condition, orderBy, sort === 'NEWEST', offset, limit, fields);
  }
  const near = filter.near;
  if (!near) return rows;
  const [lat, lng] = [Number(near.latitude), Number(near.longitude)];
  return rows.map((row) => ({
    ...row,
    distanceKm: distanceKm(lat, lng, Number(row.latitude), Number(row.longitude)),
  }));
}
