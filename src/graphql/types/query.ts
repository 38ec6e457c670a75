import { markUncacheable } from '../../cache/response-cache.js';
import { orderFingerprint } from '../../listing/filter.js';
import { type ListedPackage, matchCount, type OrderRequest, pageInOrder } from '../../listing/orders.js';
import { DEFAULT_LIMIT, MAX_LIMIT } from '../../listing/page.js';
import { seedFor } from '../../listing/seed-pool.js';
import { builder } from '../builder.js';
import type { Context } from '../context.js';
import { badUserInput, requireUuid } from '../errors.js';
import { upTo } from '../limits.js';
import { selectedPackageFields, selects } from '../projection.js';
import { connectionArgs, connectionWindow, PackageConnection, readCursor, windowSize } from './connection.js';
import { PackageFacets } from './facets.js';
import { Package } from './package.js';
import { Photographer } from './photographer.js';
import { PackageFilterInput, PackageSortEnum, readOrder } from './storefront.js';

interface PageValue {
  count: number;
  limit: number;
  offset: number;
  order: OrderRequest;
  /** The page's packages, read with its count when `results` is selected. */
  rows: ListedPackage[];
}

const PackagePage = builder.objectRef<PageValue>('PackagePage').implement({
  description: 'One page of the listed packages (those the filter matches) in the order asked for.',
  fields: (t) => ({
    count: t.exposeInt('count', { description: 'Total number of listed packages the filter matches.' }),
    limit: t.exposeInt('limit', { description: 'Page size in force.' }),
    offset: t.exposeInt('offset', { description: 'Zero-based index of the first record of this page.' }),
    seed: t.int({
      description:
        'The seed that fixed the order (the one chosen when none was given). Pass it again to page on in the same order.',
      resolve: (page) => page.order.seed,
    }),
    facets: t.field({
      type: PackageFacets,
      description: 'How many packages each choice of each facet would give beside this filter.',
      resolve: (page) => ({ filter: page.order.filter }),
    }),
    results: t.field({
      type: [Package],
      complexity: upTo(1), // the page size is priced on `packages`
      description: 'The packages of this page, in order.',
      resolve: (page) => page.rows,
    }),
  }),
});

/**
 * The seed of a request that gave none: drawn from the pool of the listing version this request reads (one of
 * SEED_POOL, so the answer can be cached under a key naming the draw), else chosen at random (not cached).
 */
async function seedWhenNone(ctx: Context): Promise<number> {
  const { seed, cacheable } = seedFor(ctx.seedDraw, ctx.seedDraw ? (await ctx.store.listing()).version : '');
  if (!cacheable) markUncacheable(ctx.cacheNote);
  return seed;
}

const orderArgs = builder.args((t) => ({
  seed: t.int({
    required: false,
    description: 'Fixes the SEEDED order. When absent, one is chosen and returned (or taken from the cursor).',
  }),
  filter: t.field({ type: PackageFilterInput, required: false, description: 'Only the packages that match.' }),
  sort: t.field({ type: PackageSortEnum, defaultValue: 'SEEDED', description: 'The order.' }),
}));

builder.queryType({
  description: 'The read-only listing of bookable photography packages.',
  fields: (t) => ({
    packages: t.field({
      type: PackagePage,
      description:
        'A page of the listed packages (status 1). The default order is a pseudo-random permutation fixed by the seed: the same seed gives the same order, and walking the pages gives every package exactly once while the data does not change (with a filter too).',
      // Everything below is served once per package of the page.
      complexity: (args) => ({ field: 1, multiplier: Math.max(1, args.limit ?? DEFAULT_LIMIT) }),
      args: {
        limit: t.arg.int({ defaultValue: DEFAULT_LIMIT, description: `Page size, 1 to ${MAX_LIMIT}.` }),
        offset: t.arg.int({ defaultValue: 0, description: 'Zero-based index of the first record, 0 or more.' }),
        ...orderArgs,
      },
      resolve: async (_root, args, ctx, info) => {
        const limit = args.limit ?? DEFAULT_LIMIT;
        const offset = args.offset ?? 0;
        if (limit < 1 || limit > MAX_LIMIT) throw badUserInput(`limit must be from 1 to ${MAX_LIMIT}, got ${limit}`);
        if (offset < 0) throw badUserInput(`offset must be 0 or more, got ${offset}`);
        const order = readOrder(args, args.seed ?? (await seedWhenNone(ctx)));
        // The page and its count in one read, with the fields every selection of `results` asks for.
        if (!selects(info, 'results'))
          return { count: await matchCount(ctx.store, order), limit, offset, order, rows: [] };
        const page = await pageInOrder(ctx.store, order, offset, limit, selectedPackageFields(info, ['results']));
        return { ...page, limit, offset, order };
      },
    }),
    packagesConnection: t.field({
      type: PackageConnection,
      description:
        'The listed packages (those the filter matches) as a Relay connection, for cursor pagination. A cursor continues the order it came from (filter, sort and seed); one from another filter or sort is refused.',
      complexity: (args) => ({ field: 1, multiplier: Math.max(1, windowSize(args)) }),
      args: { ...connectionArgs, ...orderArgs },
      resolve: async (_root, args, ctx) => {
        const draft = readOrder(args, 0);
        const fingerprint = orderFingerprint(draft.filter, draft.sort);
        const after = readCursor('after', args.after, fingerprint);
        const before = readCursor('before', args.before, fingerprint);
        const cursorSeed = after?.seed ?? before?.seed;
        if (args.seed != null && cursorSeed !== undefined && args.seed !== cursorSeed) {
          throw badUserInput(`seed ${args.seed} differs from the seed ${cursorSeed} the cursor was made with`);
        }
        const order = { ...draft, seed: args.seed ?? cursorSeed ?? (await seedWhenNone(ctx)) };
        const count = await matchCount(ctx.store, order);
        const { start, end } = connectionWindow(args, count, after, before);
        return {
          count,
          start,
          end,
          fingerprint,
          seed: order.seed,
          filter: order.filter,
          load: async (offset, limit, fields) => (await pageInOrder(ctx.store, order, offset, limit, fields)).rows,
        };
      },
    }),
    package: t.field({
      type: Package,
      nullable: true,
      description: 'A listed package by id or by URL slug (exactly one of the two); null when there is none.',
      args: {
        id: t.arg.id({ description: 'Package id (UUID).' }),
        urlSlug: t.arg.string({ description: 'The URL slug, e.g. "golden-hour-portraits".' }),
      },
      resolve: (_root, args, ctx, info) => {
        if ((args.id == null) === (args.urlSlug == null)) {
          throw badUserInput('package takes exactly one of id and urlSlug');
        }
        const fields = selectedPackageFields(info);
        if (args.id != null) return ctx.loaders.listedPackage(fields).load(requireUuid(String(args.id), 'id'));
        const slug = args.urlSlug as string;
        if (slug.length > 200) throw badUserInput(`urlSlug may be at most 200 characters long, got ${slug.length}`);
        if (slug.includes('\0'))
          throw badUserInput(`urlSlug may not hold the NUL character, got ${JSON.stringify(slug)}`);
        return ctx.store.listedPackageBySlug(slug, fields);
      },
    }),
    photographer: t.field({
      type: Photographer,
      nullable: true,
      description: 'A photographer with at least one listed package, by id; null when there is none.',
      args: { id: t.arg.id({ required: true, description: 'Photographer id (UUID).' }) },
      resolve: (_root, args, ctx) => ctx.loaders.listedPhotographer.load(requireUuid(String(args.id), 'id')),
    }),
  }),
});
