// Relay connections over an order of packages: the window first/after/last/before select, its edges and
// page info. Cursors are indexes in the order with the order's fingerprint and seed (src/listing/cursor.ts).
import { type CursorPosition, decodeCursor, encodeCursor } from '../../listing/cursor.js';
import type { PackageFilter } from '../../listing/filter.js';
import type { ListedPackage } from '../../listing/orders.js';
import { DEFAULT_LIMIT, MAX_LIMIT } from '../../listing/page.js';
import type { PackageFields } from '../../listing/store.js';
import { builder } from '../builder.js';
import { badUserInput } from '../errors.js';
import { upTo } from '../limits.js';
import { selectedPackageFields } from '../projection.js';
import { PackageFacets } from './facets.js';
import { Package } from './package.js';

export interface ConnectionArgs {
  first?: number | null;
  after?: string | null;
  last?: number | null;
  before?: string | null;
}

/** A connection as resolved: which indexes of which order, and how to load them. */
export interface ConnectionValue {
  count: number;
  start: number;
  end: number;
  fingerprint: string;
  seed: number;
  /** The filter the order is of (its facets count beside it). */
  filter: PackageFilter;
  /** The packages at indexes offset..offset+limit-1, with the package fields asked for (all when null). */
  load: (offset: number, limit: number, fields: PackageFields) => Promise<ListedPackage[]>;
}

/** The page size a connection's arguments ask for (what its cost is multiplied by). */
export const windowSize = (args: ConnectionArgs): number => args.first ?? args.last ?? DEFAULT_LIMIT;

/** The cursor argument read and checked against the order it must belong to. */
export function readCursor(
  argument: 'after' | 'before',
  cursor: string | null | undefined,
  fingerprint: string,
): CursorPosition | undefined {
  if (cursor == null) return undefined;
  const position = decodeCursor(cursor);
  if (!position) throw badUserInput(`${argument} must be a cursor from this listing, got ${JSON.stringify(cursor)}`);
  if (position.fingerprint !== fingerprint) {
    throw badUserInput(`${argument} is a cursor of another filter or sort; page on with the ones it was made for`);
  }
  return position;
}

/** The indexes start..end-1 of an order of `count` the arguments select, as the Relay specification says. */
export function connectionWindow(
  args: ConnectionArgs,
  count: number,
  after: CursorPosition | undefined,
  before: CursorPosition | undefined,
): { start: number; end: number } {
  if (args.first != null && args.last != null) throw badUserInput('first and last cannot be given together');
  for (const name of ['first', 'last'] as const) {
    const value = args[name];
    if (value != null && (value < 1 || value > MAX_LIMIT)) {
      throw badUserInput(`${name} must be from 1 to ${MAX_LIMIT}, got ${value}`);
    }
  }
  let start = after ? after.index + 1 : 0;
  let end = before ? Math.min(before.index, count) : count;
  if (args.last != null) start = Math.max(start, end - args.last);
  else end = Math.min(end, start + windowSize(args));
  start = Math.min(start, end);
  return { start, end };
}

const PackageEdge = builder.objectRef<{ cursor: string; node: ListedPackage }>('PackageEdge').implement({
  description: 'A package and the cursor of its place in the order.',
  fields: (t) => ({
    cursor: t.exposeString('cursor', { description: 'Opaque; pass it as after or before to page on from here.' }),
    node: t.field({ type: Package, resolve: (edge) => edge.node }),
  }),
});

const PageInfo = builder.objectRef<ConnectionValue>('PageInfo').implement({
  description: 'Where the page lies in the order.',
  fields: (t) => ({
    hasNextPage: t.boolean({ resolve: (c) => c.end < c.count }),
    hasPreviousPage: t.boolean({ resolve: (c) => c.start > 0 }),
    startCursor: t.string({
      nullable: true,
      resolve: (c) => (c.end > c.start ? encodeCursor({ ...c, index: c.start }) : null),
    }),
    endCursor: t.string({
      nullable: true,
      resolve: (c) => (c.end > c.start ? encodeCursor({ ...c, index: c.end - 1 }) : null),
    }),
  }),
});

export const PackageConnection = builder.objectRef<ConnectionValue>('PackageConnection').implement({
  description: 'A window of an order of packages, for cursor pagination (infinite scroll).',
  fields: (t) => ({
    totalCount: t.exposeInt('count', { description: 'Number of packages in the whole order.' }),
    pageInfo: t.field({ type: PageInfo, resolve: (c) => c }),
    facets: t.field({
      type: PackageFacets,
      description: 'How many packages each choice of each facet would give beside this filter.',
      resolve: (c) => ({ filter: c.filter }),
    }),
    edges: t.field({
      type: [PackageEdge],
      complexity: upTo(1), // the window size is priced on the connection field
      resolve: async (c, _args, _ctx, info) => {
        const nodes =
          c.end > c.start ? await c.load(c.start, c.end - c.start, selectedPackageFields(info, ['node'])) : [];
        return nodes.map((node, i) => ({ cursor: encodeCursor({ ...c, index: c.start + i }), node }));
      },
    }),
  }),
});

/** The arguments every package connection takes. */
export const connectionArgs = builder.args((t) => ({
  first: t.int({
    description: `Packages after \`after\` (or from the start), 1 to ${MAX_LIMIT}; ${DEFAULT_LIMIT} when neither first nor last is given.`,
  }),
  after: t.string({ description: 'A cursor: the window starts after it.' }),
  last: t.int({ description: `Packages before \`before\` (or up to the end), 1 to ${MAX_LIMIT}.` }),
  before: t.string({ description: 'A cursor: the window ends before it.' }),
}));
