// Which package columns an operation needs: the Package fields it selects (through aliases, fragments and
// @skip/@include, as graphql-js collects them), each mapped to the model fields it reads. A page of cards then
// reads a few narrow columns instead of every column with the HTML descriptions.
//
// A field reads: what its `reads` extension says (fields with their own resolvers: `location` reads three
// columns, a nested list only the id), else the model field it exposes (t.expose*), else the model field of
// its own name; a field matching none of these reads everything, so a new field is never left without data.
import type { FieldNode, GraphQLField, GraphQLObjectType, GraphQLResolveInfo } from 'graphql';
import { getNamedType, isObjectType } from 'graphql';
// graphql-js's own field collection (used by its executor): marked internal, stable through v16.
import { collectSubfields } from 'graphql/execution/collectFields.js';
import { scalarFields } from '../db/columns.js';
import { isPreparedSelection } from './prepared-photographers.js';

const PACKAGE_FIELDS = new Set(scalarFields('Package').map((field) => field.name));

/** Field options for a Package field with its own resolver: the model fields it reads. */
export const reads = (...fields: string[]) => ({ extensions: { reads: fields } });

function fieldReads(field: GraphQLField<unknown, unknown>): readonly string[] | null {
  const extensions = field.extensions as { reads?: string[]; pothosExposedField?: string };
  if (extensions.reads) return extensions.reads;
  if (extensions.pothosExposedField) return [extensions.pothosExposedField];
  return PACKAGE_FIELDS.has(field.name) ? [field.name] : null;
}

/**
 * The Package model fields the selection below the resolving field needs (`through`: the fields between it
 * and the packages, e.g. ['node'] under `edges`); null when it needs them all. The id is always read.
 * `as`: the object type the selection is collected for, where the field returns an abstract type (federation's
 * `_entities`, whose packages are selected with `... on Package`).
 */
export function selectedPackageFields(
  info: GraphQLResolveInfo,
  through: readonly string[] = [],
  as?: string,
): string[] | null {
  let nodes: readonly FieldNode[] = info.fieldNodes;
  let type = as ? info.schema.getType(as) : getNamedType(info.returnType);
  for (const name of through) {
    if (!isObjectType(type)) return null;
    const below: FieldNode[] = [];
    for (const group of collectSubfields(info.schema, info.fragments, info.variableValues, type, nodes).values()) {
      if (group[0]?.name.value === name) below.push(...group);
    }
    const field = type.getFields()[name];
    if (!field) return null;
    nodes = below;
    type = getNamedType(field.type);
  }
  if (!isObjectType(type)) return null;
  const packageType: GraphQLObjectType = type;
  // The id, and the photographer's: what the answer's surrogate keys name (src/cache/surrogate-keys.ts).
  const needed = new Set<string>(['id', 'photographerId']);
  for (const group of collectSubfields(info.schema, info.fragments, info.variableValues, packageType, nodes).values()) {
    const name = group[0]?.name.value;
    if (name === undefined || name === '__typename') continue;
    const field = packageType.getFields()[name];
    const fields = field ? fieldReads(field) : null;
    if (!fields) return null;
    for (const f of fields) needed.add(f);
    // A photographer asked for with every field comes as its prepared text (prepared-photographers.ts).
    if (name === 'photographer' && isPreparedSelection(group)) needed.add('preparedPhotographer');
  }
  return [...needed];
}

/** Whether the selection below the resolving field includes `name` (through aliases, fragments, @skip/@include). */
export function selects(info: GraphQLResolveInfo, name: string): boolean {
  const type = getNamedType(info.returnType);
  if (!isObjectType(type)) return false;
  for (const group of collectSubfields(
    info.schema,
    info.fragments,
    info.variableValues,
    type,
    info.fieldNodes,
  ).values()) {
    if (group[0]?.name.value === name) return true;
  }
  return false;
}
