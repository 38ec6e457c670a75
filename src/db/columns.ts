// Tables and columns as the Prisma schema declares them: every model maps to the snake_case of its name, every
// field to the snake_case of its own (a test holds the migrated database to this). SQL written elsewhere takes
// its column lists from here rather than listing fields by hand.
import type PrismaTypes from '../generated/pothos-prisma-types.js';
import { getDatamodel } from '../generated/pothos-prisma-types.js';

export type ModelName = keyof PrismaTypes;

const models = getDatamodel().datamodel.models as unknown as Record<
  ModelName,
  { fields: { name: string; kind: string; type: string }[] }
>;

const snakeCase = new Map<string, string>();

/** photographerId -> photographer_id, PackageImage -> package_image. */
export function columnName(name: string): string {
  let column = snakeCase.get(name);
  if (column === undefined) {
    column = name.replace(/(?!^)[A-Z]/g, (letter) => `_${letter}`).toLowerCase();
    snakeCase.set(name, column);
  }
  return column;
}

export const tableName = (model: ModelName): string => columnName(model);

export interface ScalarField {
  name: string;
  column: string;
  type: string;
}

/** The model's scalar fields (its columns), in schema order. */
export function scalarFields(model: ModelName): ScalarField[] {
  return models[model].fields
    .filter((field) => field.kind === 'scalar')
    .map((field) => ({ name: field.name, column: columnName(field.name), type: field.type }));
}

/**
 * `t."photographer_id" AS "photographerId", ...`: the model's row under its field names; with `only`, just
 * those fields (in schema order).
 */
export function selectList(model: ModelName, alias: string, prefix = '', only?: readonly string[] | null): string {
  return scalarFields(model)
    .filter((field) => !only || only.includes(field.name))
    .map((field) => `${alias}."${field.column}" AS "${prefix}${field.name}"`)
    .join(', ');
}

/**
 * `json_build_object('id', t."id", ...)`: the model's row as a JSON object under its field names. Decimals go as
 * text, so they keep their scale (JSON numbers would lose it: 4.0 -> 4).
 */
export function jsonObject(model: ModelName, alias: string, extra = ''): string {
  const pairs = scalarFields(model).map(
    (field) => `'${field.name}', ${alias}."${field.column}"${field.type === 'Decimal' ? '::text' : ''}`,
  );
  return `json_build_object(${[...pairs, ...(extra ? [extra] : [])].join(', ')})`;
}
