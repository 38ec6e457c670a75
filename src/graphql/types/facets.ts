// `facets` on a page or connection of packages: beside the filter, how many packages each choice would give,
// shaped after Shopify's Filter and FilterValue. Each facet is a field of its own, computed only when selected
// and priced in the query cost; its counts are disjunctive (src/listing/facets.ts): a facet ignores the
// filter's own part for it.

import type { Listing } from '../../db/sql.js';
import {
  booleanFacet,
  categoryFacet,
  type FacetColumns,
  type Facet as FacetValueOf,
  type FacetValue as FacetValueValue,
  keptFacet,
  type Positions,
  PRICE_EDGES_CENTS,
  photographerFacet,
  priceFacet,
  TOP_PHOTOGRAPHERS,
  withoutParts,
} from '../../listing/facets.js';
import { isEmptyFilter, type PackageFilter } from '../../listing/filter.js';
import { builder } from '../builder.js';
import type { Context } from '../context.js';

/** What a facet costs in the query cost: about a page of cards (one pass over up to every listed package). */
export const FACET_COST = 100;

const FacetValue = builder.objectRef<FacetValueValue>('FacetValue').implement({
  description: 'One choice of a facet, with the number of packages it gives under the rest of the filter.',
  fields: (t) => ({
    id: t.exposeString('id', { description: 'The value, e.g. a category code or a photographer id.' }),
    label: t.exposeString('label', { description: 'What to show, e.g. "Weddings".' }),
    count: t.exposeInt('count', {
      description: "Packages this value gives: the filter's other parts hold, this facet's own part is replaced.",
    }),
    input: t.exposeString('input', {
      description:
        'The PackageFilter part that selects this value, as JSON, e.g. {"categories":[1]}: merge it into the filter.',
    }),
  }),
});

const FacetType = builder.enumType('FacetType', {
  description: 'How a facet is chosen.',
  values: {
    LIST: { description: 'One value of a list (a category, a photographer).' },
    PRICE_RANGE: { description: 'A price range (fixed edges), with the lowest and highest price counted.' },
    BOOLEAN: { description: 'Yes or no.' },
  } as const,
});

const Facet = builder.objectRef<FacetValueOf>('Facet').implement({
  description: "A facet of the filtered packages, after Shopify's Filter: its values, each with its count.",
  fields: (t) => ({
    id: t.exposeString('id', { description: 'The facet: category, price, instantBooking, featured or photographer.' }),
    label: t.exposeString('label', { description: 'What to show, e.g. "Category".' }),
    type: t.field({ type: FacetType, resolve: (facet) => facet.type }),
    values: t.field({ type: [FacetValue], resolve: (facet) => facet.values }),
    min: t.field({
      type: 'Decimal',
      nullable: true,
      description: 'PRICE_RANGE: the lowest price among the packages counted; null when none is.',
      resolve: (facet) => facet.min ?? null,
    }),
    max: t.field({
      type: 'Decimal',
      nullable: true,
      description: 'PRICE_RANGE: the highest price among the packages counted; null when none is.',
      resolve: (facet) => facet.max ?? null,
    }),
  }),
});

/** A facet of `filter`: counted over what the filter without `parts` matches, in the request's listing. */
async function facetOf(
  ctx: Context,
  filter: PackageFilter,
  parts: readonly (keyof PackageFilter)[],
  count: (columns: FacetColumns, positions: Positions, listing: Listing) => FacetValueOf | Promise<FacetValueOf>,
): Promise<FacetValueOf> {
  const listing = await ctx.store.listing();
  const rest = withoutParts(filter, parts);
  return keptFacet(listing.version, parts.join(','), rest, async () => {
    const [columns, positions] = await Promise.all([
      ctx.store.facetColumns(listing),
      isEmptyFilter(rest) ? null : ctx.store.matchingPositions(rest, listing),
    ]);
    return count(columns, positions, listing);
  });
}

const edges = PRICE_EDGES_CENTS.slice(1).map((cents) => (cents / 100).toFixed(2));

export const PackageFacets = builder.objectRef<{ filter: PackageFilter }>('PackageFacets').implement({
  description:
    'Facet counts beside the filter, each disjunctive: it counts as if its own part of the filter were not set. Each facet is counted only when selected and costs 100 in the query cost. Example: `packages(limit: 24, filter: { categories: [1] }) { facets { category { values { label count input } } } }` gives every category, Weddings (1) counted as chosen and the others as if they were: choosing "Weddings" still shows how many "Portraits" there are.',
  fields: (t) => ({
    category: t.field({
      type: Facet,
      complexity: FACET_COST,
      description:
        'Every category of the listing with its count, by code. Example value: { id: "1", label: "Weddings", count: 184, input: "{\\"categories\\":[1]}" }.',
      resolve: ({ filter }, _args, ctx) =>
        facetOf(ctx, filter, ['categories'], async (columns, positions, listing) => {
          const names = new Map((await ctx.store.categories(listing)).map((c) => [c.code, c.name]));
          return categoryFacet(columns, positions, names);
        }),
    }),
    price: t.field({
      type: Facet,
      complexity: FACET_COST,
      description: `Price ranges with edges at ${edges.join(', ')} (each up to a cent below the next), and the lowest and highest price counted. Example value: { id: "100.00-249.99", label: "100.00 to 249.99", count: 310, input: "{\\"priceMin\\":\\"100.00\\",\\"priceMax\\":\\"249.99\\"}" }.`,
      resolve: ({ filter }, _args, ctx) =>
        facetOf(ctx, filter, ['priceMin', 'priceMax'], (columns, positions) => priceFacet(columns, positions)),
    }),
    instantBooking: t.field({
      type: Facet,
      complexity: FACET_COST,
      description:
        'Packages that can and cannot be booked at once. Example values: { id: "true", label: "Yes", count: 812, input: "{\\"instantBooking\\":true}" } and the same for false.',
      resolve: ({ filter }, _args, ctx) =>
        facetOf(ctx, filter, ['instantBooking'], (columns, positions) =>
          booleanFacet('instantBooking', 'Instant booking', columns.instantBooking, positions),
        ),
    }),
    featured: t.field({
      type: Facet,
      complexity: FACET_COST,
      description:
        'Featured and other packages. Example values: { id: "true", label: "Yes", count: 95, input: "{\\"featured\\":true}" } and the same for false.',
      resolve: ({ filter }, _args, ctx) =>
        facetOf(ctx, filter, ['featured'], (columns, positions) =>
          booleanFacet('featured', 'Featured', columns.featured, positions),
        ),
    }),
    photographer: t.field({
      type: Facet,
      complexity: FACET_COST,
      description: `The ${TOP_PHOTOGRAPHERS} photographers with the most packages, most first (ties by name, then id). Example value: { id: "3f2504e0-4f89-41d3-9a0c-0305e82c3301", label: "Lucas Carre", count: 4, input: "{\\"photographerId\\":\\"3f2504e0-4f89-41d3-9a0c-0305e82c3301\\"}" }.`,
      resolve: ({ filter }, _args, ctx) =>
        facetOf(ctx, filter, ['photographerId'], (columns, positions) => photographerFacet(columns, positions)),
    }),
  }),
});
