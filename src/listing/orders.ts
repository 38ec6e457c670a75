// The orders of the listing a storefront can page through, and what one page of each costs.
//
// SEEDED (the default): a keyed permutation of the matching listing positions. Unfiltered, the positions are
// 0..n-1 and a page is n lookups by primary key. Filtered, the matching positions are read once per (filter,
// listing version) and kept (matches.ts), then permuted the same way: every matching package exactly once
// across the pages, the same seed the same order, and O(page size) per page after the first read.
// RELEVANCE: a search's matching positions in rank order, read once per (filter, listing version) and kept the
// same way (matches.ts); a page is a slice of them.
// PRICE_ASC, PRICE_DESC: prices of two currencies are never compared, so a price order is by currency (code
// order) first, then amount, then id; with filter.currency that is the currency's packages by amount. Every
// listing position is sorted so once per listing version, from the facet columns (src/listing/facets.ts: each
// package's currency and price), and a page is the matching positions taken in that order: one statement a page,
// as for SEEDED. (In SQL the currency comes from the photographer's row, and no index on package can order by it:
// each page sorted the whole listing.)
// NEWEST, DISTANCE: one statement ordered by the key and then by id (a total order), LIMIT/OFFSET on the
// filter's condition.

import type { Listing } from '../db/sql.js';
import type { FacetColumns } from './facets.js';
import { distanceKm, filterCondition, isEmptyFilter, type PackageFilter } from './filter.js';
import type { MatchOrder } from './matches.js';
import { pagePositions, seededPermutation } from './permutation.js';
import type { PackageRow } from './rows.js';
import type { PackageFields, Store } from './store.js';

export const PACKAGE_SORTS = ['SEEDED', 'RELEVANCE', 'PRICE_ASC', 'PRICE_DESC', 'NEWEST', 'DISTANCE'] as const;
export type PackageSort = (typeof PACKAGE_SORTS)[number];

/** ORDER BY of each order read in SQL, on the package row `p` and its photographer `ph`; `distance` from the filter. */
const ORDER_BY: Record<'NEWEST' | 'DISTANCE', (distance: string) => string> = {
  // The listing records no time a package was added: the photographer's joining time is the newest there is.
  NEWEST: () => 'ph."created_at" DESC, ph."created_at_micros" DESC, p."id"',
  DISTANCE: (distance) => `${distance}, p."id"`,
};

type PriceSort = 'PRICE_ASC' | 'PRICE_DESC';
const isPriceSort = (sort: PackageSort): sort is PriceSort => sort === 'PRICE_ASC' || sort === 'PRICE_DESC';

/** Each listing version's price orders, by its facet columns (kept per version, so dropped with them). */
const priceOrders = new WeakMap<FacetColumns, Partial<Record<PriceSort, Int32Array>>>();

/**
 * Every listing position in the price order: by currency (the columns number currencies in code order), then
 * amount (cheapest first for PRICE_ASC), then id (positions are numbered in id order).
 */
function positionsByPrice(columns: FacetColumns, sort: PriceSort): Int32Array {
  const orders = priceOrders.get(columns) ?? {};
  let order = orders[sort];
  if (!order) {
    const { currency, priceCents } = columns;
    const sign = sort === 'PRICE_ASC' ? 1 : -1;
    order = Int32Array.from({ length: priceCents.length }, (_, i) => i).sort(
      (a, b) =>
        (currency[a] as number) - (currency[b] as number) ||
        sign * ((priceCents[a] as number) - (priceCents[b] as number)) ||
        a - b,
    );
    orders[sort] = order;
    priceOrders.set(columns, orders);
  }
  return order;
}

/** Positions offset..offset+limit-1 of `order` among `matches` (every position when null), in `order`. */
function pageOfOrder(order: Int32Array, matches: Int32Array | undefined, offset: number, limit: number): number[] {
  if (!matches) return Array.from(order.subarray(offset, offset + limit));
  const matched = new Uint8Array(order.length);
  for (const position of matches) matched[position] = 1;
  const page: number[] = [];
  for (let i = 0, seen = 0; i < order.length && page.length < limit; i++) {
    const position = order[i] as number;
    if (matched[position] === 1 && seen++ >= offset) page.push(position);
  }
  return page;
}

/** A package of a page, with its distance from `near` when the filter has one. */
export type ListedPackage = PackageRow & { distanceKm?: number | null };

export interface OrderRequest {
  filter: PackageFilter;
  sort: PackageSort;
  seed: number;
}

/** A page of an order, with how many the whole order holds. */
export interface Page {
  count: number;
  rows: ListedPackage[];
}

/** How many packages the order holds (the filter matches), as this session's reads see the listing. */
export async function matchCount(store: Store, { filter }: OrderRequest): Promise<number> {
  const listing = await store.listing();
  if (isEmptyFilter(filter)) return listing.count;
  return (await store.matchingPositions(filter, listing)).length;
}

/**
 * The positions the filter matches in `view`, in `order`: kept in memory, else read, which needs the listing as
 * this session sees it (then that is the view the positions belong to).
 */
async function matching(store: Store, filter: PackageFilter, view: Listing, order: MatchOrder) {
  const kept = store.keptPositions(filter, view.version, order);
  if (kept) return { positions: kept, view };
  const seen = await store.listing();
  return { positions: await store.matchingPositions(filter, seen, order), view: seen };
}

/** A view of the listing to start from: this session's, else this process's last (checked by the page's read). */
const startingView = async (store: Store): Promise<Listing> => store.view() ?? (await store.listing());

const ATTEMPTS = 3;

/**
 * The packages at indexes offset..offset+limit-1 of the order (fewer at its end), with the package fields asked
 * for (all when null), and the order's size. A seeded page is one statement once the listing is known: its
 * positions are worked out from the view of the listing this process last had, and the statement reading them
 * brings the listing as it saw it; where that differs (an import since), the page is worked out again from it.
 */
export async function pageInOrder(
  store: Store,
  request: OrderRequest,
  offset: number,
  limit: number,
  asked: PackageFields,
): Promise<Page> {
  const { filter, sort, seed } = request;
  const filtered = !isEmptyFilter(filter);
  // The distance is worked out from the package's coordinates.
  const fields = asked && filter.near ? [...asked, 'latitude', 'longitude'] : asked;
  // A price order is worked out from the facet columns of the listing as this session reads it.
  let view = isPriceSort(sort) ? await store.listing() : await startingView(store);
  for (let attempt = 1; ; attempt++) {
    let positions: Int32Array | undefined;
    const order = sort === 'RELEVANCE' ? 'rank' : 'position';
    if (filtered) ({ positions, view } = await matching(store, filter, view, order));
    let page: Page;
    let seen: Listing;
    if (sort === 'SEEDED' || sort === 'RELEVANCE') {
      const size = positions ? positions.length : view.count;
      const indexes =
        offset >= size
          ? []
          : sort === 'RELEVANCE'
            ? Array.from({ length: Math.min(limit, size - offset) }, (_, i) => offset + i)
            : pagePositions(seededPermutation(size, seed), offset, limit);
      const read = await store.packagesAtPositions(
        positions ? indexes.map((index) => positions[index] as number) : indexes,
        fields,
      );
      page = { count: size, rows: read.rows.filter((row) => row !== null) };
      seen = read.listing;
    } else if (isPriceSort(sort)) {
      const columns = await store.facetColumns(view);
      const indexes = pageOfOrder(positionsByPrice(columns, sort), positions, offset, limit);
      const read = await store.packagesAtPositions(indexes, fields);
      page = {
        count: positions ? positions.length : columns.priceCents.length,
        rows: read.rows.filter((r) => r !== null),
      };
      seen = read.listing;
    } else {
      // The filter as its matches were read (a search corrected for typos reads the corrected words).
      const condition = filterCondition(filtered ? store.filterReadAs(filter, view.version, order) : filter, 3);
      const orderBy = ORDER_BY[sort](condition.distance ?? '');
      const read = await store.packagesSorted(condition, orderBy, sort === 'NEWEST', offset, limit, fields);
      page = { count: positions ? positions.length : read.listing.count, rows: read.rows };
      seen = read.listing;
    }
    // Unfiltered, a seeded page depends on the listing's size alone; a filtered one or a price order's on its version.
    const held =
      filtered || isPriceSort(sort) ? seen.version === view.version : sort !== 'SEEDED' || seen.count === view.count;
    if (held || attempt === ATTEMPTS) return { count: page.count, rows: withDistances(page.rows, filter) };
    view = seen;
  }
}

/** The rows with their distance from `near`, when the filter has one. */
function withDistances(rows: PackageRow[], filter: PackageFilter): ListedPackage[] {
  const near = filter.near;
  if (!near) return rows;
  const [lat, lng] = [Number(near.latitude), Number(near.longitude)];
  return rows.map((row) => ({
    ...row,
    distanceKm: distanceKm(lat, lng, Number(row.latitude), Number(row.longitude)),
  }));
}
