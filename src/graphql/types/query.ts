import { chooseSeed, DEFAULT_LIMIT, loadPage, MAX_LIMIT } from '../../listing/page.js';
import type { PackageRow } from '../../listing/rows.js';
import { builder } from '../builder.js';
import { badUserInput, requireUuid } from '../errors.js';
import { upTo } from '../limits.js';
import { Package } from './package.js';
import { Photographer } from './photographer.js';

interface PageValue {
  count: number;
  limit: number;
  offset: number;
  seed: number;
}

const PackagePage = builder.objectRef<PageValue>('PackagePage').implement({
  description: 'One page of the listed packages in the seeded order.',
  fields: (t) => ({
    count: t.exposeInt('count', { description: 'Total number of listed packages.' }),
    limit: t.exposeInt('limit', { description: 'Page size in force.' }),
    offset: t.exposeInt('offset', { description: 'Zero-based index of the first record of this page.' }),
    seed: t.exposeInt('seed', {
      description:
        'The seed that fixed the order (the one chosen when none was given). Pass it again to page on in the same order.',
    }),
    results: t.field({
      type: [Package],
      complexity: upTo(1), // the page size is priced on `packages`
      description: 'The packages of this page, in the seeded order.',
      resolve: (page, _args, ctx): Promise<PackageRow[]> =>
        loadPage(ctx.store, page.count, page.seed, page.offset, page.limit),
    }),
  }),
});

builder.queryType({
  description: 'The read-only listing of bookable photography packages.',
  fields: (t) => ({
    packages: t.field({
      type: PackagePage,
      description:
        'A page of the listed packages (status 1). The order is a pseudo-random permutation fixed by the seed: the same seed gives the same order, and walking the pages gives every package exactly once while the data does not change.',
      // Everything below is served once per package of the page.
      complexity: (args) => ({ field: 1, multiplier: Math.max(1, args.limit ?? DEFAULT_LIMIT) }),
      args: {
        limit: t.arg.int({ defaultValue: DEFAULT_LIMIT, description: `Page size, 1 to ${MAX_LIMIT}.` }),
        offset: t.arg.int({ defaultValue: 0, description: 'Zero-based index of the first record, 0 or more.' }),
        seed: t.arg.int({
          required: false,
          description: 'Fixes the order. When absent, one is chosen and returned in `seed`.',
        }),
      },
      resolve: async (_root, args, ctx) => {
        const limit = args.limit ?? DEFAULT_LIMIT;
        const offset = args.offset ?? 0;
        if (limit < 1 || limit > MAX_LIMIT) throw badUserInput(`limit must be from 1 to ${MAX_LIMIT}, got ${limit}`);
        if (offset < 0) throw badUserInput(`offset must be 0 or more, got ${offset}`);
        const count = await ctx.store.countListed();
        return { count, limit, offset, seed: args.seed ?? chooseSeed() };
      },
    }),
    package: t.field({
      type: Package,
      nullable: true,
      description: 'A listed package by id; null when there is none.',
      args: { id: t.arg.id({ required: true, description: 'Package id (UUID).' }) },
      resolve: (_root, args, ctx) => ctx.store.listedPackage(requireUuid(String(args.id), 'id')),
    }),
    photographer: t.field({
      type: Photographer,
      nullable: true,
      description: 'A photographer with at least one listed package, by id; null when there is none.',
      args: { id: t.arg.id({ required: true, description: 'Photographer id (UUID).' }) },
      resolve: (_root, args, ctx) => ctx.store.listedPhotographer(requireUuid(String(args.id), 'id')),
    }),
  }),
});
