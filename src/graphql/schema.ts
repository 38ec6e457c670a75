// The schema: imports every type file, then builds.
import { fileURLToPath } from 'node:url';
import { printSchema } from 'graphql';
import { builder } from './builder.js';
import './types/query.js';

export const schema = builder.toSchema({ sortSchema: false });

/** Where the printed schema is committed (written by `npm run codegen`). */
export const SCHEMA_FILE = fileURLToPath(new URL('./schema.graphql', import.meta.url));

export function schemaText(): string {
  return `${printSchema(schema)}\n`;
}
