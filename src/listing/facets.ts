// Facet counts beside a filtered listing: for each facet, how many packages each of its values would give, the
// way Algolia and Elasticsearch count them, disjunctively: a facet's counts ignore the filter's own part for that
// facet (choosing "Weddings" still shows how many "Portraits" there are), and hold every other part.
//
// Nothing is grouped per request. What each listed package is (category, price, instant booking, featured,
// photographer) is made at import into the listing summary (src/db/write/listing-summary.ts) and read from it once
// per listing version into arrays indexed by listing position, and the packages a
// filter matches are the matching positions the filters keep already (src/listing/matches.ts); a facet's counts
// are one pass over the positions its filter-without-that-facet matches. A facet's counts depend on nothing but
// the listing version and that filter, so each is counted once and kept (keptFacet): a storefront's sidebar,
// asked again and again for the same filters, costs a lookup.
import { createHash } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import type { SqlStatement } from '../db/sql.js';
import { filterKey, type PackageFilter } from './filter.js';
import { summaryPart } from './per-version.js';

/** What each listed package is, by listing position (positions are 0..n-1), for one listing version. */
export interface FacetColumns {
  category: Int32Array;
  /** The price in cents (exact: the column has two decimals). */
  priceCents: Float64Array;
  instantBooking: Uint8Array;
  featured: Uint8Array;
  /** Index into `photographerIds`. */
  photographer: Int32Array;
  photographerIds: string[];
  photographerNames: string[];
  /** Index into `currencyCodes` (ISO 4217, in code order) and `currencySymbols`. */
  currency: Int32Array;
  currencyCodes: string[];
  currencySymbols: string[];
}

/** The facet columns as the listing summary holds them (src/db/write/listing-summary.ts): one row. */
export const FACET_COLUMNS: SqlStatement = {
  name: 'facet_columns',
  text: `SELECT listing_version::text AS version, category, price_cents AS "priceCents",
      instant_booking AS "instantBooking", featured, photographer,
      photographer_ids AS "photographerIds", photographer_names AS "photographerNames",
      currency, currency_codes AS "currencyCodes", currency_symbols AS "currencySymbols"
    FROM listing_summary WHERE id = 1`.replace(/\s+/g, ' '),
};

/** Packed big-endian values, as PostgreSQL's int4send, float8send and a byte per flag write them. */
type Packed = Uint8Array | null;

export interface FacetColumnsRow {
  /** The listing version the summary was made for. */
  version: string;
  category: Packed;
  priceCents: Packed;
  instantBooking: Packed;
  featured: Packed;
  photographer: Packed;
  photographerIds: string[] | null;
  photographerNames: string[] | null;
  currency: Packed;
  currencyCodes: string[] | null;
  currencySymbols: string[] | null;
}

const view = (bytes: Uint8Array) => new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);

/** Big-endian 32-bit integers as PostgreSQL's int4send packs them, one after the other. */
export function int32s(bytes: Packed): Int32Array {
  const values = new Int32Array((bytes?.byteLength ?? 0) / 4);
  if (bytes) for (let i = 0, v = view(bytes); i < values.length; i++) values[i] = v.getInt32(i * 4);
  return values;
}

function float64s(bytes: Packed): Float64Array {
  const values = new Float64Array((bytes?.byteLength ?? 0) / 8);
  if (bytes) for (let i = 0, v = view(bytes); i < values.length; i++) values[i] = v.getFloat64(i * 8);
  return values;
}

export function facetColumns(row: FacetColumnsRow | undefined): FacetColumns {
  return {
    category: int32s(row?.category ?? null),
    priceCents: float64s(row?.priceCents ?? null),
    // Copied: a driver's buffer may be a slice of a larger one, which it would otherwise keep alive.
    instantBooking: Uint8Array.from(row?.instantBooking ?? []),
    featured: Uint8Array.from(row?.featured ?? []),
    photographer: int32s(row?.photographer ?? null),
    photographerIds: row?.photographerIds ?? [],
    photographerNames: row?.photographerNames ?? [],
    currency: int32s(row?.currency ?? null),
    currencyCodes: row?.currencyCodes ?? [],
    currencySymbols: row?.currencySymbols ?? [],
  };
}

/** The facet columns, kept per listing version. */
export const facetColumnsPart = summaryPart(FACET_COLUMNS, facetColumns);

export interface FacetValue {
  /** The raw value, unique within its facet: a category code, "true", a photographer id, "USD", a price range. */
  value: string;
  label: string;
  /** Packages this value gives under the rest of the filter. */
  count: number;
  /** The filter part that selects the value, as JSON: merge it into PackageFilter. */
  input: string;
}

export interface Facet {
  /** The facet's name: category, price, currency, instantBooking, featured or photographer. */
  id: string;
  label: string;
  type: 'LIST' | 'PRICE_RANGE' | 'BOOLEAN';
  values: FacetValue[];
  /**
   * PRICE_RANGE in one currency (the filter has one): the lowest and highest price among the packages counted,
   * and that currency; null when there are none or the facet spans currencies.
   */
  min?: string | null;
  max?: string | null;
  currency?: { code: string; symbol: string } | null;
}

/**
 * A short digest of the filter a facet's counts hold to (the filter without the facet's own parts): two filters
 * share it exactly when they share the facet's counts, so ids scoped by it are true for what they name.
 */
export const facetScope = (rest: PackageFilter) =>
  createHash('sha256').update(filterKey(rest)).digest('base64url').slice(0, 12);

/** Facets counted, by listing version, facet and the filter they hold to; small, so kept by number. */
const counted = new LRUCache<string, Promise<Facet>>({ max: 2000 });

/**
 * The facet `id` of `rest` (the filter without its own part) in listing `version`: kept, or counted by `count`
 * and kept (concurrent requests share one count; a failed one is not kept, and whoever joined it counts again).
 */
export function keptFacet(version: string, id: string, rest: PackageFilter, count: () => Promise<Facet>) {
  const key = `${version}|${id}|${filterKey(rest)}`;
  const hit = counted.get(key);
  // Another request's count that failed (its deadline, its database) is this one's to make again.
  if (hit) return hit.catch(count);
  const pending = count();
  counted.set(key, pending);
  pending.catch(() => {
    if (counted.get(key) === pending) counted.delete(key);
  });
  return pending;
}

/** The packages a facet counts: the positions its filter matches, or null for every listed package. */
export type Positions = Int32Array | null;

export function forEach(positions: Positions, size: number, visit: (position: number) => void): void {
  if (positions === null) for (let p = 0; p < size; p++) visit(p);
  else for (let i = 0; i < positions.length; i++) visit(positions[i] as number);
}

/** The filter without the parts a facet is about: what its counts hold to. */
export function withoutParts(filter: PackageFilter, parts: readonly (keyof PackageFilter)[]): PackageFilter {
  const rest = { ...filter };
  for (const part of parts) delete rest[part];
  return rest;
}

/** A value's filter part as JSON; a null clears a part when merged (GraphQL reads null as not set). */
export const input = (part: { [K in keyof PackageFilter]?: PackageFilter[K] | null }) => JSON.stringify(part);

/** Every category of the listing (`names`, by code), with how many of the positions are in it. */
export function categoryFacet(columns: FacetColumns, positions: Positions, names: ReadonlyMap<number, string>): Facet {
  const counts = new Map<number, number>([...names.keys()].map((code) => [code, 0]));
  forEach(positions, columns.category.length, (p) => {
    const code = columns.category[p] as number;
    counts.set(code, (counts.get(code) ?? 0) + 1);
  });
  const values = [...counts.entries()]
    .sort(([a], [b]) => a - b)
    .map(([code, count]) => ({
      value: String(code),
      label: names.get(code) ?? String(code),
      count,
      input: input({ categories: [code] }),
    }));
  return { id: 'category', label: 'Category', type: 'LIST', values };
}

/** A yes/no facet: how many of the positions have the flag set, and how many do not. */
export function booleanFacet(
  name: 'instantBooking' | 'featured',
  label: string,
  column: Uint8Array,
  positions: Positions,
): Facet {
  let yes = 0;
  let all = 0;
  forEach(positions, column.length, (p) => {
    yes += column[p] as number;
    all++;
  });
  const value = (flag: boolean, count: number) => ({
    value: String(flag),
    label: flag ? 'Yes' : 'No',
    count,
    input: input({ [name]: flag }),
  });
  return { id: name, label, type: 'BOOLEAN', values: [value(true, yes), value(false, all - yes)] };
}

export const TOP_PHOTOGRAPHERS = 20;

/** Code-unit order: the same on every instance, whatever its locale data. */
const byText = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** The photographers with the most of the positions (at most 20; ties by name, then id). */
export function photographerFacet(columns: FacetColumns, positions: Positions): Facet {
  const counts = new Int32Array(columns.photographerIds.length);
  forEach(positions, columns.photographer.length, (p) => {
    const ordinal = columns.photographer[p] as number;
    counts[ordinal] = (counts[ordinal] as number) + 1;
  });
  const name = (ordinal: number) => columns.photographerNames[ordinal] ?? '';
  const id = (ordinal: number) => columns.photographerIds[ordinal] ?? '';
  const before = (a: number, b: number) =>
    ((counts[b] as number) - (counts[a] as number) || byText(name(a), name(b)) || byText(id(a), id(b))) < 0;
  // The best 20 in order, kept as the photographers are visited: one pass, no sort of tens of thousands.
  const top: number[] = [];
  for (let ordinal = 0; ordinal < counts.length; ordinal++) {
    if (counts[ordinal] === 0) continue;
    const last = top[top.length - 1];
    if (top.length === TOP_PHOTOGRAPHERS && last !== undefined && !before(ordinal, last)) continue;
    let at = top.length;
    while (at > 0 && before(ordinal, top[at - 1] as number)) at--;
    top.splice(at, 0, ordinal);
    if (top.length > TOP_PHOTOGRAPHERS) top.pop();
  }
  const values = top.map((ordinal) => ({
    value: id(ordinal),
    label: name(ordinal),
    count: counts[ordinal] as number,
    input: input({ photographerId: id(ordinal) }),
  }));
  return { id: 'photographer', label: 'Photographer', type: 'LIST', values };
}
