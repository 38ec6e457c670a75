// The storefront's filter on the listing: its rules, its canonical form (what caches and cursors are keyed by)
// and the SQL condition it stands for. Every part is optional; the parts combine with AND.
import { createHash } from 'node:crypto';
import { effectiveCurrency } from '../db/write/read-model.js';
import { MAX_DEGREE_CHARACTERS, roundedDegrees } from './coordinates.js';

export interface NearPoint {
  /** Decimal degrees as text with 6 decimals, as the columns hold them (src/listing/coordinates.ts). */
  latitude: string;
  longitude: string;
  radiusKm: number;
}

/** A point as a client gives it: degrees as a number or as a decimal text of any precision. */
export type GivenNearPoint = Omit<NearPoint, 'latitude' | 'longitude'> & {
  latitude: string | number;
  longitude: string | number;
};

export interface PackageFilter {
  categories?: readonly number[];
  /** ISO 4217, upper case: packages priced in it (src/db/write/read-model.ts: effectiveCurrency). */
  currency?: string;
  /** Price bounds, in `currency` (a filter with either has it). */
  priceMin?: string;
  priceMax?: string;
  near?: NearPoint;
  photographerId?: string;
  instantBooking?: boolean;
  featured?: boolean;
  search?: string;
  /**
   * The search's terms as read after a typo correction (src/listing/typos.ts: a word, or the words it may have
   * meant separated by spaces): set by the match sets, never by a client, and not part of the filter's key (the
   * correction follows from the search and the version).
   */
  correctedSearch?: readonly string[];
}

export const MAX_RADIUS_KM = 500;
export const MAX_CATEGORIES = 50;
export const MAX_SEARCH_CHARACTERS = 200;
/** A price has at most 12 digits before the point (the column's precision is 14, scale 2). */
const PRICE = /^\d{1,12}(\.\d{1,2})?$/;
const CURRENCY = /^[A-Za-z]{3}$/;

/** A rule broken by a filter: the argument, the rule and the value (thrown as BAD_USER_INPUT by the caller). */
export class FilterError extends Error {}

const broken = (argument: string, rule: string, value: unknown) =>
  new FilterError(`filter.${argument} ${rule}, got ${JSON.stringify(value)}`);

/** Degrees within ±bound, rounded to the columns' 6 decimals (so 48.85661234 and "48.856612" are one point). */
function degrees(argument: string, value: string | number, bound: number): string {
  const rounded = roundedDegrees(value);
  if (rounded === undefined || Math.abs(Number(rounded)) > bound) {
    const rule = `must be a decimal from -${bound} to ${bound} (a number, or a decimal text of at most ${MAX_DEGREE_CHARACTERS} characters)`;
    throw broken(argument, rule, typeof value === 'string' && value.length > 40 ? `${value.slice(0, 40)}...` : value);
  }
  return rounded;
}

/** A search's words: split at every character that is not a letter or a digit, so "real-estate" is "real estate". */
export const searchWords = (search: string): string[] => search.split(/[^\p{L}\p{N}]+/u).filter((word) => word !== '');

/**
 * The filter checked and put in canonical form: unset and empty parts dropped (`categories: []` is no category
 * filter, not "none of them"), categories sorted and unique, coordinates with 6 decimals, search words
 * single-spaced, so two spellings of one filter share a cache entry and a cursor fingerprint.
 */
export function normalizeFilter(
  filter: (Omit<PackageFilter, 'near'> & { near?: GivenNearPoint }) | null | undefined,
): PackageFilter {
  const out: PackageFilter = {};
  if (!filter) return out;
  if (filter.categories != null) {
    if (filter.categories.length > MAX_CATEGORIES) {
      throw broken('categories', `may hold at most ${MAX_CATEGORIES} codes`, filter.categories.length);
    }
    if (filter.categories.length > 0) out.categories = [...new Set(filter.categories)].sort((a, b) => a - b);
  }
  if (filter.currency != null) {
    if (!CURRENCY.test(filter.currency)) {
      const shown = filter.currency.length > 16 ? `${filter.currency.slice(0, 16)}...` : filter.currency;
      throw broken('currency', 'must be a 3-letter ISO 4217 currency code, e.g. "USD"', shown);
    }
    out.currency = filter.currency.toUpperCase();
  }
  for (const bound of ['priceMin', 'priceMax'] as const) {
    const value = filter[bound];
    if (value == null) continue;
    if (!PRICE.test(value)) {
      throw broken(bound, 'must be a non-negative price with at most 12 digits and 2 decimals, e.g. "500.00"', value);
    }
    // A price is an amount in one currency: without it, "500.00" would hold yen and dollars alike.
    if (out.currency === undefined) {
      throw new FilterError(
        `filter.${bound} needs filter.currency, the currency the price is in, e.g. { currency: "USD", ${bound}: "${value}" }`,
      );
    }
    out[bound] = value;
  }
  if (out.priceMin !== undefined && out.priceMax !== undefined && Number(out.priceMin) > Number(out.priceMax)) {
    throw broken('priceMin', `must not exceed priceMax (${out.priceMax})`, out.priceMin);
  }
  if (filter.near != null) {
    const { latitude, longitude, radiusKm } = filter.near;
    if (!(radiusKm > 0 && radiusKm <= MAX_RADIUS_KM)) {
      throw broken('near.radiusKm', `must be more than 0 and at most ${MAX_RADIUS_KM}`, radiusKm);
    }
    out.near = {
      latitude: degrees('near.latitude', latitude, 90),
      longitude: degrees('near.longitude', longitude, 180),
      radiusKm,
    };
  }
  if (filter.photographerId != null) out.photographerId = filter.photographerId;
  if (filter.instantBooking != null) out.instantBooking = filter.instantBooking;
  if (filter.featured != null) out.featured = filter.featured;
  if (filter.search != null) {
    if (filter.search.length > MAX_SEARCH_CHARACTERS) {
      throw broken('search', `may be at most ${MAX_SEARCH_CHARACTERS} characters long`, filter.search.length);
    }
    if (filter.search.includes('\0')) throw broken('search', 'may not hold the NUL character', filter.search);
    const words = filter.search.trim().replace(/\s+/g, ' ');
    if (words !== '') out.search = words;
  }
  return out;
}

export const isEmptyFilter = (filter: PackageFilter): boolean => Object.keys(filter).length === 0;

/** The canonical filter as text (keys in a fixed order): the cache key of its matching set. */
export function filterKey(filter: PackageFilter): string {
  const { categories, priceMin, priceMax, near, photographerId, instantBooking, featured, search, currency } = filter;
  return JSON.stringify([
    categories,
    priceMin,
    priceMax,
    near,
    photographerId,
    instantBooking,
    featured,
    search,
    currency,
  ]);
}

/** A short digest of what fixes an order (filter and sort): carried by cursors, compared when they come back. */
export function orderFingerprint(filter: PackageFilter, sort: string): string {
  return createHash('sha256')
    .update(`${sort}\n${filterKey(filter)}`)
    .digest('base64url')
    .slice(0, 12);
}

const EARTH_RADIUS_KM = 6371.0088;
const KM_PER_DEGREE_LATITUDE = (Math.PI * EARTH_RADIUS_KM) / 180;

/** Great-circle (haversine) distance in km between two points given in degrees. */
export function distanceKm(lat1: number, lng1: number, lat2: number, lng2: number): number {
  const rad = Math.PI / 180;
  const a =
    Math.sin(((lat2 - lat1) * rad) / 2) ** 2 +
    Math.cos(lat1 * rad) * Math.cos(lat2 * rad) * Math.sin(((lng2 - lng1) * rad) / 2) ** 2;
  return 2 * EARTH_RADIUS_KM * Math.asin(Math.min(1, Math.sqrt(a)));
}

/** The same distance in SQL, from a package row `p` to the point in parameters $lat and $lng. */
export const distanceSql = (lat: string, lng: string) =>
  `(${2 * EARTH_RADIUS_KM} * asin(least(1, sqrt(power(sin(radians(p."latitude" - ${lat}) / 2), 2) + cos(radians(${lat})) * cos(radians(p."latitude")) * power(sin(radians(p."longitude" - ${lng}) / 2), 2)))))`;

export interface SqlCondition {
  /**
   * A condition on the package row `p` and, when `search`, its search document `sd` (joined with searchJoin);
   * `TRUE` for the empty filter.
   */
  text: string;
  params: unknown[];
  /** The SQL of the distance to `near`, when the filter has it (for DISTANCE ordering). */
  distance?: string;
  /** The SQL of the search's rank, higher first, when the filter has a search (for RELEVANCE ordering). */
  rank?: string;
  /** The condition reads the search document `sd`: the query must join it. */
  search: boolean;
  /** The condition reads package columns (`p`) beyond its search. */
  readsPackage: boolean;
}

/** Joins a package's search document as `sd` (prisma/schema.prisma: PackageSearch), by the package id's SQL. */
export const searchJoin = (packageId: string) => `JOIN package_search sd ON sd.package_id = ${packageId}`;

/**
 * How well a search document matches a search: the words' weights add up, a title's above the tag keywords'
 * above the category name's (ts_rank's weights A, B, C: 1.0, 0.4, 0.2; the document holds them).
 */
const searchRank = (query: string) => `ts_rank(sd.document, ${query})`;

/** The filter as a SQL condition; its parameters are numbered from `firstParam`. */
export function filterCondition(filter: PackageFilter, firstParam = 1): SqlCondition {
  const params: unknown[] = [];
  const param = (value: unknown, cast: string) => {
    params.push(value);
    return `$${firstParam + params.length - 1}::${cast}`;
  };
  const parts: string[] = [];
  let distance: string | undefined;
  let rank: string | undefined;
  if (filter.categories) parts.push(`p."category" = ANY(${param(filter.categories, 'int[]')})`);
  if (filter.currency !== undefined) {
    parts.push(
      `p."photographer_id" IN (SELECT cur.id FROM photographer cur WHERE ${effectiveCurrency('cur')} = ${param(filter.currency, 'text')})`,
    );
  }
  if (filter.priceMin !== undefined) parts.push(`p."price" >= ${param(filter.priceMin, 'numeric')}`);
  if (filter.priceMax !== undefined) parts.push(`p."price" <= ${param(filter.priceMax, 'numeric')}`);
  if (filter.photographerId !== undefined) {
    parts.push(`p."photographer_id" = ${param(filter.photographerId, 'uuid')}`);
  }
  if (filter.instantBooking !== undefined) {
    parts.push(`p."instant_booking" = ${param(filter.instantBooking, 'boolean')}`);
  }
  if (filter.featured !== undefined) parts.push(`p."featured" = ${param(filter.featured, 'boolean')}`);
  if (filter.search !== undefined) {
    // Every word as itself or folded ("weddings" finds "wedding"), the last one as the start of a word too
    // ("golden hou" finds "golden hour", as people type): package_search_query (the migration
    // search_word_forms), made once per statement (a scalar subquery), not once per row.
    const terms = filter.correctedSearch ?? searchWords(filter.search);
    const query = `(SELECT package_search_query(${param(terms, 'text[]')}))`;
    parts.push(`sd.document @@ ${query}`);
    rank = searchRank(query);
  }
  if (filter.near) {
    const lat = param(filter.near.latitude, 'float8');
    const lng = param(filter.near.longitude, 'float8');
    const radius = param(filter.near.radiusKm, 'float8');
    // A latitude band first (package_latitude_idx: numeric bounds, so the index applies), then the distance.
    const band = filter.near.radiusKm / KM_PER_DEGREE_LATITUDE;
    const centre = Number(filter.near.latitude);
    const south = param((centre - band).toFixed(6), 'numeric');
    const north = param((centre + band).toFixed(6), 'numeric');
    distance = distanceSql(lat, lng);
    parts.push(`p."latitude" BETWEEN ${south} AND ${north}`, `${distance} <= ${radius}`);
  }
  const search = filter.search !== undefined;
  return {
    text: parts.length > 0 ? parts.join(' AND ') : 'TRUE',
    params,
    distance,
    rank,
    search,
    readsPackage: parts.length > (search ? 1 : 0),
  };
}
