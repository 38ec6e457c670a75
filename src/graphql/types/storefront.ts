// What storefronts page through the listing with: the filter, the sorts, a package's distance from the point
// searched around, and a photographer's own packages as a connection.

import { createHash } from 'node:crypto';
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
import type { Loaders } from '../loaders.js';
import { reads } from '../projection.js';
import { connectionArgs, connectionWindow, PackageConnection, readCursor, windowSize } from './connection.js';
import { Package } from './package.js';
import { Photographer } from './photographer.js';

const NearInput = builder.inputType('NearInput', {
  description:
    "A point and a radius: packages whose location lies within the radius. Give each coordinate once, as a Decimal text (latitude, longitude) or as a number (lat, lng, as a browser's position or a map gives it); any precision, rounded to 6 decimals (about 0.1 m, the listing's own precision).",
  fields: (t) => ({
    latitude: t.field({
      type: 'Decimal',
      description: 'Degrees, -90 to 90, as a decimal text, e.g. "48.8566"; or give lat.',
    }),
    longitude: t.field({
      type: 'Decimal',
      description: 'Degrees, -180 to 180, as a decimal text, e.g. "2.3522"; or give lng.',
    }),
    lat: t.float({ description: 'Latitude in degrees, -90 to 90, as a number, e.g. 48.85661234; or give latitude.' }),
    lng: t.float({ description: 'Longitude in degrees, -180 to 180, as a number; or give longitude.' }),
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
        'Best match of filter.search first: words in the title count most, then in the tag keywords, then in the category name. Without filter.search (a search cleared), the default order, SEEDED: the same packages in the same order as with no sort.',
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

/** filter.near as GraphQL hands it over: each coordinate as a Decimal text or as a number. */
interface GivenNear {
  latitude?: string | null;
  longitude?: string | null;
  lat?: number | null;
  lng?: number | null;
  radiusKm: number;
}

/** The filter as GraphQL hands it over: any part may be null. */
type GivenFilter = { [K in Exclude<keyof Filter, 'near'>]?: Filter[K] | null } & { near?: GivenNear | null };

interface FilterArgs {
  filter?: GivenFilter | null;
  sort?: Sort | null;
}

/** The given parts, nulls dropped. */
const withoutNulls = (given: GivenFilter) =>
  Object.fromEntries(Object.entries(given).filter(([, value]) => value != null)) as Omit<Filter, 'near'> & {
    near?: GivenNear;
  };

/** One coordinate of filter.near, given exactly once: as a Decimal text or as a number. */
function coordinate(text: string | null | undefined, number: number | null | undefined, names: [string, string]) {
  const [decimal, float] = names;
  if (text != null && number != null) {
    throw badUserInput(`filter.near takes one of ${decimal} and ${float}, got both`);
  }
  const given = text ?? number;
  if (given == null) throw badUserInput(`filter.near needs ${decimal} (a Decimal text) or ${float} (a number)`);
  return given;
}

/** The filter and sort arguments checked: BAD_USER_INPUT naming the argument, the rule and the value. */
export function readOrder(args: FilterArgs, seed: number): OrderRequest {
  let filter: Filter;
  try {
    const given = args.filter ? withoutNulls(args.filter) : undefined;
    if (given?.photographerId !== undefined) {
      given.photographerId = requireUuid(String(given.photographerId), 'filter.photographerId');
    }
    const near = given?.near;
    filter = normalizeFilter(
      given && {
        ...given,
        near: near && {
          latitude: coordinate(near.latitude, near.lat, ['latitude', 'lat']),
          longitude: coordinate(near.longitude, near.lng, ['longitude', 'lng']),
          radiusKm: near.radiusKm,
        },
      },
    );
  } catch (error) {
    if (error instanceof FilterError) throw badUserInput(error.message);
    throw error;
  }
  const asked = args.sort ?? 'SEEDED';
  if (!PACKAGE_SORTS.includes(asked)) throw badUserInput(`sort must be one of ${PACKAGE_SORTS.join(', ')}`);
  // Relevance without words to rank by is the default order: a storefront that clears its search box keeps its
  // sort, and the answer (its cache entry, its cursors) is the unsorted one's.
  const sort = asked === 'RELEVANCE' && filter.search === undefined ? 'SEEDED' : asked;
  if (sort === 'DISTANCE' && !filter.near)
    throw badUserInput('sort DISTANCE needs filter.near, the point to measure from');
  return { filter, sort, seed };
}

/** The distance from filter.near in whole metres: what a distance between two stored locations (0.1 m) means. */
const metres = (p: unknown): number | null => {
  const km = (p as ListedPackage).distanceKm;
  return km == null ? null : Math.round(km * 1000);
};

builder.objectField(Package, 'distanceKm', (t) =>
  t.float({
    ...reads('latitude', 'longitude'),
    nullable: true,
    description:
      'Kilometres from the point of filter.near to the nearest metre (3 decimals), when the listing was filtered by one; null otherwise.',
    resolve: (p) => {
      const m = metres(p);
      return m === null ? null : m / 1000;
    },
  }),
);

builder.objectField(Package, 'distanceMetres', (t) =>
  t.int({
    ...reads('latitude', 'longitude'),
    nullable: true,
    description: 'Whole metres from the point of filter.near, when the listing was filtered by one; null otherwise.',
    resolve: metres,
  }),
);

/** The positions but the one of package `id` (read by their ids: a photographer has a handful of packages). */
async function withoutPackage(loaders: Loaders, positions: number[], id: string): Promise<number[]> {
  const rows = await loaders.packageAtPosition(['id']).loadMany(positions);
  const failed = rows.find((row) => row instanceof Error);
  if (failed) throw failed;
  return positions.filter((_, i) => (rows[i] as ListedPackage | null)?.id !== id);
}

builder.objectField(Photographer, 'packages', (t) =>
  t.field({
    type: PackageConnection,
    description:
      'The photographer\'s listed packages, in listing order (by id); with excludeId, all but that one (a package page\'s "other packages by this photographer").',
    complexity: (args) => ({ field: 1, multiplier: Math.max(1, windowSize(args)) }),
    args: {
      ...connectionArgs,
      excludeId: t.arg.id({
        description:
          'Leave this package out (UUID), e.g. the one a package page shows. An id that is not one of these packages leaves none out.',
      }),
    },
    resolve: async (photographer, args, ctx) => {
      const excluded = args.excludeId == null ? undefined : requireUuid(String(args.excludeId), 'excludeId');
      // Another list, other cursors: a cursor of the whole list must not page through the shorter one.
      const fingerprint =
        excluded === undefined
          ? `ph${photographer.id.replace(/-/g, '').slice(0, 20)}`
          : `px${createHash('sha256').update(`${photographer.id} ${excluded}`).digest('base64url').slice(0, 20)}`;
      const after = readCursor('after', args.after, fingerprint);
      const before = readCursor('before', args.before, fingerprint);
      const all = await ctx.loaders.photographerPositions.load(photographer.id);
      const positions = excluded === undefined ? all : await withoutPackage(ctx.loaders, all, excluded);
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
