// The positions a filter of the common storefront parts matches (categories, a currency and a price range in it,
// instant booking, featured), found in the facet columns this process keeps per listing version
// (src/listing/facets.ts) instead of read from the database: one pass over typed arrays (a few ms at 100,000
// packages, where the read took 200 ms and grew with the listing). Filters with any other part (a search, a place, a photographer) are read as before.
import type { FacetColumns } from './facets.js';
import type { PackageFilter } from './filter.js';

const COLUMN_PARTS: ReadonlySet<string> = new Set([
  'categories',
  'currency',
  'priceMin',
  'priceMax',
  'instantBooking',
  'featured',
]);

/** Whether the facet columns can tell the filter's matches: it has only their parts. */
export const matchableInColumns = (filter: PackageFilter): boolean =>
  Object.keys(filter).every((part) => COLUMN_PARTS.has(part));

/** A price as text ("12.5", "500.00") in cents, exactly: at most 12 digits and 2 decimals (normalizeFilter). */
function cents(price: string): number {
  const [whole = '0', fraction = ''] = price.split('.');
  return Number(whole) * 100 + Number(fraction.padEnd(2, '0'));
}

/** The listing positions the filter matches, ascending; the filter has only column parts (matchableInColumns). */
export function matchInColumns(filter: PackageFilter, columns: FacetColumns): Int32Array {
  const categories = filter.categories ? new Set(filter.categories) : undefined;
  const min = filter.priceMin === undefined ? Number.NEGATIVE_INFINITY : cents(filter.priceMin);
  const max = filter.priceMax === undefined ? Number.POSITIVE_INFINITY : cents(filter.priceMax);
  const instant = filter.instantBooking === undefined ? -1 : Number(filter.instantBooking);
  const featured = filter.featured === undefined ? -1 : Number(filter.featured);
  // A currency the listing lacks matches nothing (its index is then -1, which no package has).
  const currency = filter.currency === undefined ? -2 : columns.currencyCodes.indexOf(filter.currency);
  const { category, priceCents, instantBooking, featured: featuredColumn, currency: currencyColumn } = columns;
  const matches = new Int32Array(category.length);
  let found = 0;
  for (let position = 0; position < category.length; position++) {
    if (categories && !categories.has(category[position] as number)) continue;
    if (currency !== -2 && currencyColumn[position] !== currency) continue;
    const price = priceCents[position] as number;
    if (price < min || price > max) continue;
    if (instant >= 0 && instantBooking[position] !== instant) continue;
    if (featured >= 0 && featuredColumn[position] !== featured) continue;
    matches[found++] = position;
  }
  return matches.slice(0, found);
}
