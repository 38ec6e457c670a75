// Apollo Federation 2: Package and Photographer are entities keyed by id, so a router can ask this subgraph for
// them by reference (`_entities`). A reference is resolved through the same per-request loaders and read session
// as a page: the references of one request are read in one statement per type, their nested lists batched as a
// page's are. A reference to a package that is not listed, or to a photographer without a listed package (or an
// id that is not a UUID), resolves to null, as the package and photographer queries answer.
import { type GraphQLSchema, isUnionType } from 'graphql';
import { builder } from '../builder.js';
import { badUserInput, uuidOrNull } from '../errors.js';
import { selectedPackageFields } from '../projection.js';
import { Package } from './package.js';
import { Photographer } from './photographer.js';

builder.asEntity(Package, {
  key: builder.selection<{ id: string }>('id'),
  resolveReference: (ref, ctx, info) => {
    const id = uuidOrNull(ref.id);
    return id === null ? null : ctx.loaders.listedPackage(selectedPackageFields(info, [], 'Package')).load(id);
  },
});

builder.asEntity(Photographer, {
  key: builder.selection<{ id: string }>('id'),
  resolveReference: (ref, ctx) => {
    const id = uuidOrNull(ref.id);
    return id === null ? null : ctx.loaders.listedPhotographer.load(id);
  },
});

/** Why a representation cannot name one of our entities, or null when every one can. */
function malformedRepresentation(representations: unknown, entities: ReadonlySet<string>): string | null {
  if (!Array.isArray(representations)) return 'representations must be a list';
  for (const [index, representation] of representations.entries()) {
    if (typeof representation !== 'object' || representation === null || Array.isArray(representation)) {
      return `representations[${index}] must be an object with __typename and id`;
    }
    const typename = (representation as { __typename?: unknown }).__typename;
    if (typeof typename !== 'string' || !entities.has(typename)) {
      return `representations[${index}].__typename must be one of ${[...entities].join(', ')}`;
    }
  }
  return null;
}

/**
 * `_entities` as a client may call it: each representation priced as an item of a page is (what is selected on
 * it, once per representation), and a representation that names no entity of ours refused with 400 before
 * anything is read (the federation library would throw an unexpected error).
 */
export function guardEntities(schema: GraphQLSchema): void {
  const field = schema.getQueryType()?.getFields()._entities;
  const union = schema.getType('_Entity');
  if (!field?.resolve || !isUnionType(union)) throw new Error('the subgraph schema has no _entities field');
  const entities = new Set(union.getTypes().map((type) => type.name));
  (field.extensions as Record<string, unknown>).complexity = (args: { representations?: unknown[] }) => ({
    field: 1,
    multiplier: Math.max(1, Array.isArray(args.representations) ? args.representations.length : 1),
  });
  const resolve = field.resolve;
  field.resolve = (source, args, context, info) => {
    const problem = malformedRepresentation(args.representations, entities);
    if (problem) throw badUserInput(problem);
    return resolve(source, args, context, info);
  };
}
