// Relay's Global Object Identification: the `Node` interface, `node(id:)` and `nodes(ids:)`, so a Relay client can
// refetch a package or a photographer by id (`@refetchable`). The ids stay as they are: UUIDs, unique across the
// two types, and the ones the v2 records and federation use, so no id is encoded with its type; `node` tries
// both (one batched statement per type per request). An id that names nothing listed, or is not a UUID,
// resolves to null.
import type { GraphQLResolveInfo } from 'graphql';
import { builder } from '../builder.js';
import type { Context } from '../context.js';
import { uuidOrNull } from '../errors.js';
import { selectedPackageFields } from '../projection.js';

type NodeType = 'Package' | 'Photographer';

/** The type of each object `node` and `nodes` return (rows carry no type of their own). */
const typeOf = new WeakMap<object, NodeType>();

export const Node = builder.interfaceRef<{ id: string }>('Node').implement({
  description: 'An object with an id that names it among every type (Relay: refetch it with `node(id:)`).',
  fields: (t) => ({ id: t.exposeID('id', { description: 'A UUID, unique across Package and Photographer.' }) }),
  resolveType: (value) => typeOf.get(value) ?? null,
});

builder.queryFields((t) => {
  /** The listed package or photographer with this id, or null. */
  const load = async (id: string, ctx: Context, info: GraphQLResolveInfo) => {
    const uuid = uuidOrNull(id);
    if (uuid === null) return null;
    const [listedPackage, photographer] = await Promise.all([
      ctx.loaders.listedPackage(selectedPackageFields(info, [], 'Package')).load(uuid),
      ctx.loaders.listedPhotographer.load(uuid),
    ]);
    const found = listedPackage ?? photographer;
    if (found) typeOf.set(found, listedPackage ? 'Package' : 'Photographer');
    return found;
  };
  return {
    node: t.field({
      type: Node,
      nullable: true,
      description: 'The package or photographer with this id; null when none is listed (or the id is not a UUID).',
      args: { id: t.arg.id({ required: true, description: 'A package or photographer id (UUID).' }) },
      resolve: (_root, args, ctx, info) => load(String(args.id), ctx, info),
    }),
    nodes: t.field({
      type: [Node],
      nullable: { list: false, items: true },
      description: 'The packages and photographers with these ids, in their order; null for each that is not listed.',
      args: { ids: t.arg.idList({ required: true, description: 'Package or photographer ids (UUIDs).' }) },
      // Each id is priced as an item of a page is (what is selected on it, once per id), as `_entities` is.
      complexity: (args) => ({ field: 1, multiplier: Math.max(1, args.ids.length) }),
      resolve: (_root, args, ctx, info) => Promise.all(args.ids.map((id) => load(String(id), ctx, info))),
    }),
  };
});
