// What storefronts page through the listing with: the filter, the sorts, a package's distance from the point
// searched around, and a photographer's own packages as a connection.
import {
  type PackageFilter as Filter,
  FilterError,
  MAX_CATEGORIES,
  MAX_RADIUS_KM,
  MAX_SEARCH_CHARACTERS,
  normalizeFilter,
} from '../../listing/filter.js';
import {
  type ListedPackage,
  type OrderRequest,
  PACKAGE_SORTS,
  type PackageSort as Sort,
} from '../../listing/orders.js';
import { builder } from '../builder.js';
import { badUserInput, requireUuid } from '../errors.js';
import { reads } from '../projection.js';
import { connectionArgs, connectionWindow, PackageConnection, readCursor, windowSize } from './connection.js';
import { Package } from './package.js';
import { Photographer } from './photographer.js';

const NearInput = builder.inputType('NearInput', {
  description: 'A point and a radius: packages whose location lies within the radius.',
  fields: (t) => ({
    latitude: t.field({ type: 'Decimal', required: true, description: 'Degrees, -90 to 90, at most 6 decimals.' }),
    longitude: t.field({ type: 'Decimal', required: true, description: 'Degrees, -180 to 180, at most 6 decimals.' }),
    radiusKm: t.float({ required: true, description: `Kilometres, more than 0 and at most ${MAX_RADIUS_KM}.` }),
  }),
});

export const PackageFilterInput = builder.inputType('PackageFilter', {
  description: 'Narrows the listing; every part given must hold (AND). Leave a part out to not filter on it.',
  fields: (t) => ({
    categories: t.intList({ description: `Any of these category codes (at most ${MAX_CATEGORIES}).` }),
    currency: t.string({
      description:
        'Only packages priced in this currency: an ISO 4217 code of 3 letters, any case ("usd" is "USD"); a package\'s currency is its Package.priceMoney.currencyCode. Needed by priceMin and priceMax.',
    }),
    priceMin: t.field({
      type: 'Decimal',
      description:
        'Price at least this, in filter.currency (needed: a price without a currency is refused), e.g. "100.00".',
    }),
    priceMax: t.field({
      type: 'Decimal',
      description:
        'Price at most this, in filter.currency (needed: a price without a currency is refused), e.g. "500.00".',
    }),
    near: t.field({ type: NearInput, description: 'Within a radius of a point; sets Package.distanceKm.' }),
    photographerId: t.id({ description: "Only this photographer's packages (UUID)." }),
    instantBooking: t.boolean({ description: 'Only packages that can (true) or cannot (false) be booked at once.' }),
    featured: t.boolean({ description: 'Only featured (true) or only not featured (false) packages.' }),
    search: t.string({
      description: `Words that must all appear in the title, tag keywords or category name, the last one as a whole word or the start of one, as people type: "golden hou" finds "Golden Hour" (any case; at most ${MAX_SEARCH_CHARACTERS} characters). A word is found in any of its English forms: "weddings" finds "wedding", "editing" finds "edited". Anything between letters and digits separates words: "real-estate" is "real estate". When that finds nothing, a word the listing lacks is read as the closest words it has: "weding" finds "wedding", "newbron" finds "newborn" (one typo forgiven in a word of 4 to 7 letters, two from 8 letters on; a typo is a letter added, dropped or changed, or two neighbours swapped).`,
    }),
  }),
});

export const PackageSortEnum = builder.enumType('PackageSort', {
  description: 'The order of a listing. Ties are broken by package id, so every order is total.',
  values: {
    SEEDED: { description: 'The pseudo-random order fixed by the seed (the default).' },
    RELEVANCE: {
      description:
        'Best match of filter.search first: words in the title count most, then in the tag keywords, then in the category name. Needs filter.search.',
    },
    PRICE_ASC: {
      description:
        'Cheapest first, within filter.currency; without it, by currency code (A to Z) first, then cheapest first: prices of two currencies are never compared.',
    },
    PRICE_DESC: {
      description:
        'Most expensive first, within filter.currency; without it, by currency code (A to Z) first, then most expensive first.',
    },
    NEWEST: {
      description:
        "Packages of the most recently joined photographers first (the listing records no package's own creation time).",
    },
    DISTANCE: { description: 'Nearest first; needs filter.near.' },
  } satisfies Record<Sort, unknown>,
});

/** The filter as GraphQL hands it over: any part may be null. */
type GivenFilter = { [K in keyof Filter]?: Filter[K] | null };

interface FilterArgs {
  filter?: GivenFilter | null;
  sort?: Sort | null;
}

/** The given parts, nulls dropped. */
const withoutNulls = (given: GivenFilter): Filter =>
  Object.fromEntries(Object.entries(given).filter(([, value]) => value != null)) as Filter;

/** The filter and sort arguments checked: BAD_USER_INPUT naming the argument, the rule and the value. */
export function readOrder(args: FilterArgs, seed: number): OrderRequest {
  let filter: Filter;
  try {
    const given = args.filter ? withoutNulls(args.filter) : undefined;
    if (given?.photographerId !== undefined) {
      given.photographerId = requireUuid(String(given.photographerId), 'filter.photographerId');
    }
    filter = normalizeFilter(given);
  } catch (error) {
    if (error instanceof FilterError) throw badUserInput(error.message);
    throw error;
  }
  const sort = args.sort ?? 'SEEDED';
  if (!PACKAGE_SORTS.includes(sort)) throw badUserInput(`sort must be one of ${PACKAGE_SORTS.join(', ')}`);
  if (sort === 'RELEVANCE' && filter.search === undefined)
    throw badUserInput('sort RELEVANCE needs filter.search, the words to rank by');
  if (sort === 'DISTANCE' && !filter.near)
    throw badUserInput('sort DISTANCE needs filter.near, the point to measure from');
  return { filter, sort, seed };
}

builder.objectField(Package, 'distanceKm', (t) =>
  t.float({
    ...reads('latitude', 'longitude'),
    nullable: true,
    description: 'Kilometres from the point of filter.near, when the listing was filtered by one; null otherwise.',
    resolve: (p) => (p as ListedPackage).distanceKm ?? null,
  }),
);

builder.objectField(Photographer, 'packages', (t) =>
  t.field({
    type: PackageConnection,
    description: "The photographer's listed packages, in listing order (by id).",
    complexity: (args) => ({ field: 1, multiplier: Math.max(1, windowSize(args)) }),
    args: connectionArgs,
    resolve: async (photographer, args, ctx) => {
      const fingerprint = `ph${photographer.id.replace(/-/g, '').slice(0, 20)}`;
      const after = readCursor('after', args.after, fingerprint);
      const before = readCursor('before', args.before, fingerprint);
      const positions = await ctx.loaders.photographerPositions.load(photographer.id);
      const { start, end } = connectionWindow(args, positions.length, after, before);
      return {
        count: positions.length,
        start,
        end,
        fingerprint,
        seed: 0,
        filter: { photographerId: photographer.id },
        load: async (offset, limit, fields) => {
          const rows = await ctx.loaders.packageAtPosition(fields).loadMany(positions.slice(offset, offset + limit));
          const failed = rows.find((row) => row instanceof Error);
          if (failed) throw failed;
          return rows.filter((row): row is ListedPackage => row !== null);
        },
      };
    },
  }),
);
