// `facets` on a page or connection of packages: beside the filter, how many packages each choice would give,
// shaped after Shopify's Filter and FilterValue. Each facet is a field of its own, computed only when selected
// and priced in the query cost; its counts are disjunctive (src/listing/facets.ts): a facet ignores the
// filter's own part for it.

import type { Listing } from '../../db/sql.js';
import {
  booleanFacet,
  categoryFacet,
  type FacetColumns,
  type Facet as FacetOf,
  type FacetValue as FacetValueOf,
  facetScope,
  keptFacet,
  type Positions,
  photographerFacet,
  TOP_PHOTOGRAPHERS,
  withoutParts,
} from '../../listing/facets.js';
import { isEmptyFilter, type PackageFilter } from '../../listing/filter.js';
import { currencyFacet, priceFacet } from '../../listing/price-facets.js';
import { builder } from '../builder.js';
import type { Context } from '../context.js';
import { Money } from './money.js';

/** What a facet costs in the query cost: about a page of cards (one pass over up to every listed package). */
export const FACET_COST = 100;

/** A facet as counted, with the scope of the filter its counts hold to (listing facets.ts: facetScope). */
interface ScopedFacet {
  facet: FacetOf;
  scope: string;
}

/** A value of a scoped facet. */
interface ScopedValue {
  value: FacetValueOf;
  facet: string;
  scope: string;
}

const FacetValue = builder.objectRef<ScopedValue>('FacetValue').implement({
  description: 'One choice of a facet, with the number of packages it gives under the rest of the filter.',
  fields: (t) => ({
    id: t.string({
      description:
        'Opaque and unique across the schema: the facet, the value and the rest of the filter its count holds to, e.g. "category:1@3hK9xQm2aB_c" (a normalized cache keys by it). Not the value: read `value`.',
      resolve: ({ value, facet, scope }) => `${facet}:${value.value}@${scope}`,
    }),
    value: t.string({
      description:
        'The raw value, unique within its facet: a category code ("1"), "true" or "false", a photographer id, a currency code ("USD"), a price range ("USD:100.00-249.99"). What `id` gave before ids were scoped.',
      resolve: ({ value }) => value.value,
    }),
    label: t.string({ description: 'What to show, e.g. "Weddings".', resolve: ({ value }) => value.label }),
    count: t.int({
      description: "Packages this value gives: the filter's other parts hold, this facet's own part is replaced.",
      resolve: ({ value }) => value.count,
    }),
    input: t.string({
      description:
        'The PackageFilter part that selects this value, as JSON, e.g. {"categories":[1]}: merge it into the filter (a null clears that part).',
      resolve: ({ value }) => value.input,
    }),
  }),
});

const FacetType = builder.enumType('FacetType', {
  description: 'How a facet is chosen.',
  values: {
    LIST: { description: 'One value of a list (a category, a photographer, a currency).' },
    PRICE_RANGE: {
      description:
        'Price ranges, each in one currency at edges suited to it, with the lowest and highest price counted.',
    },
    BOOLEAN: { description: 'Yes or no.' },
  } as const,
});

/** The lowest or highest price of a price facet in one currency, as Money. */
const priceBound = (facet: FacetOf, amount: string | null | undefined) =>
  amount != null && facet.currency
    ? { amount, currencyCode: facet.currency.code, symbol: facet.currency.symbol }
    : null;

const ONE_CURRENCY =
  'Set only when the filter has a currency (null otherwise: prices of two currencies are never compared)';

const Facet = builder.objectRef<ScopedFacet>('Facet').implement({
  description: "A facet of the filtered packages, after Shopify's Filter: its values, each with its count.",
  fields: (t) => ({
    id: t.string({
      description:
        'Opaque and unique across the schema: the facet and the rest of the filter its counts hold to, e.g. "category@3hK9xQm2aB_c". Its name is `name`.',
      resolve: ({ facet, scope }) => `${facet.id}@${scope}`,
    }),
    name: t.string({
      description: 'The facet: category, price, currency, instantBooking, featured or photographer.',
      resolve: ({ facet }) => facet.id,
    }),
    label: t.string({ description: 'What to show, e.g. "Category".', resolve: ({ facet }) => facet.label }),
    type: t.field({ type: FacetType, resolve: ({ facet }) => facet.type }),
    values: t.field({
      type: [FacetValue],
      resolve: ({ facet, scope }) => facet.values.map((value) => ({ value, facet: facet.id, scope })),
    }),
    min: t.field({
      type: 'Decimal',
      nullable: true,
      description: `PRICE_RANGE: the lowest price among the packages counted; null when none is. ${ONE_CURRENCY}.`,
      deprecationReason: 'Use minPrice: the amount with its currency.',
      resolve: ({ facet }) => (facet.currency ? (facet.min ?? null) : null),
    }),
    max: t.field({
      type: 'Decimal',
      nullable: true,
      description: `PRICE_RANGE: the highest price among the packages counted; null when none is. ${ONE_CURRENCY}.`,
      deprecationReason: 'Use maxPrice: the amount with its currency.',
      resolve: ({ facet }) => (facet.currency ? (facet.max ?? null) : null),
    }),
    minPrice: t.field({
      type: Money,
      nullable: true,
      description: `PRICE_RANGE: the lowest price among the packages counted; null when none is. ${ONE_CURRENCY}.`,
      resolve: ({ facet }) => priceBound(facet, facet.min),
    }),
    maxPrice: t.field({
      type: Money,
      nullable: true,
      description: `PRICE_RANGE: the highest price among the packages counted; null when none is. ${ONE_CURRENCY}.`,
      resolve: ({ facet }) => priceBound(facet, facet.max),
    }),
  }),
});

/** A facet of `filter`: counted over what the filter without `parts` matches, in the request's listing. */
async function facetOf(
  ctx: Context,
  filter: PackageFilter,
  parts: readonly (keyof PackageFilter)[],
  count: (
    columns: FacetColumns,
    positions: Positions,
    listing: Listing,
    rest: PackageFilter,
  ) => FacetOf | Promise<FacetOf>,
): Promise<ScopedFacet> {
  const listing = await ctx.store.listing();
  const rest = withoutParts(filter, parts);
  const facet = await keptFacet(listing.version, parts.join(','), rest, async () => {
    const [columns, positions] = await Promise.all([
      ctx.store.facetColumns(listing),
      isEmptyFilter(rest) ? null : ctx.store.matchingPositions(rest, listing),
    ]);
    return count(columns, positions, listing, rest);
  });
  return { facet, scope: facetScope(rest) };
}

export const PackageFacets = builder.objectRef<{ filter: PackageFilter }>('PackageFacets').implement({
  description:
    'Facet counts beside the filter, each disjunctive: it counts as if its own part of the filter were not set. Each facet is counted only when selected and costs 100 in the query cost. Example: `packages(limit: 24, filter: { categories: [1] }) { facets { category { values { value label count input } } } }` gives every category, Weddings (1) counted as chosen and the others as if they were: choosing "Weddings" still shows how many "Portraits" there are. Ids are scoped by the rest of the filter (a value\'s count depends on it): read `value` for the value itself.',
  fields: (t) => ({
    category: t.field({
      type: Facet,
      complexity: FACET_COST,
      description:
        'Every category of the listing with its count, by code. Example value: { value: "1", label: "Weddings", count: 184, input: "{\\"categories\\":[1]}" }.',
      resolve: ({ filter }, _args, ctx) =>
        facetOf(ctx, filter, ['categories'], async (columns, positions, listing) => {
          const names = new Map((await ctx.store.categories(listing)).map((c) => [c.code, c.name]));
          return categoryFacet(columns, positions, names);
        }),
    }),
    currency: t.field({
      type: Facet,
      complexity: FACET_COST,
      description:
        'Every currency of the listing with its count, by code, counted without the filter\'s currency and price bounds. Example value: { value: "EUR", label: "EUR", count: 36, input: "{\\"currency\\":\\"EUR\\",\\"priceMin\\":null,\\"priceMax\\":null}" } (choosing a currency clears the price bounds).',
      resolve: ({ filter }, _args, ctx) =>
        facetOf(ctx, filter, ['currency', 'priceMin', 'priceMax'], (columns, positions) =>
          currencyFacet(columns, positions),
        ),
    }),
    price: t.field({
      type: Facet,
      complexity: FACET_COST,
      description:
        'Price ranges, each in one currency: with filter.currency that currency\'s, without it every currency\'s, currency by currency (code order). A currency\'s edges suit its magnitude: 0, 1, 2.5, 5, 10 and 25 units, the unit the power of ten nearest a fifth of its median listed price (US dollars: 0, 100.00, 250.00, 500.00, 1000.00, 2500.00); each range ends a cent below the next. minPrice and maxPrice are set with filter.currency. Example value: { value: "USD:100.00-249.99", label: "USD 100.00 to 249.99", count: 31, input: "{\\"currency\\":\\"USD\\",\\"priceMin\\":\\"100.00\\",\\"priceMax\\":\\"249.99\\"}" }.',
      resolve: ({ filter }, _args, ctx) =>
        facetOf(ctx, filter, ['priceMin', 'priceMax'], (columns, positions, _listing, rest) =>
          priceFacet(columns, positions, rest.currency),
        ),
    }),
    instantBooking: t.field({
      type: Facet,
      complexity: FACET_COST,
      description:
        'Packages that can and cannot be booked at once. Example values: { value: "true", label: "Yes", count: 812, input: "{\\"instantBooking\\":true}" } and the same for false.',
      resolve: ({ filter }, _args, ctx) =>
        facetOf(ctx, filter, ['instantBooking'], (columns, positions) =>
          booleanFacet('instantBooking', 'Instant booking', columns.instantBooking, positions),
        ),
    }),
    featured: t.field({
      type: Facet,
      complexity: FACET_COST,
      description:
        'Featured and other packages. Example values: { value: "true", label: "Yes", count: 95, input: "{\\"featured\\":true}" } and the same for false.',
      resolve: ({ filter }, _args, ctx) =>
        facetOf(ctx, filter, ['featured'], (columns, positions) =>
          booleanFacet('featured', 'Featured', columns.featured, positions),
        ),
    }),
    photographer: t.field({
      type: Facet,
      complexity: FACET_COST,
      description: `The ${TOP_PHOTOGRAPHERS} photographers with the most packages, most first (ties by name, then id). Example value: { value: "3f2504e0-4f89-41d3-9a0c-0305e82c3301", label: "Lucas Carre", count: 4, input: "{\\"photographerId\\":\\"3f2504e0-4f89-41d3-9a0c-0305e82c3301\\"}" }.`,
      resolve: ({ filter }, _args, ctx) =>
        facetOf(ctx, filter, ['photographerId'], (columns, positions) => photographerFacet(columns, positions)),
    }),
  }),
});
