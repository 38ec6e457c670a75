// The schema: imports every type file, then builds it as an Apollo Federation 2 subgraph (src/graphql/types/
// entities.ts), which is also a complete schema on its own.

import { fileURLToPath } from 'node:url';
import { printSubgraphSchema } from '@apollo/subgraph';
import { type GraphQLFieldConfig, printSchema } from 'graphql';
import { builder } from './builder.js';
import './types/query.js';
import './types/entities.js';

export const schema = builder.toSubGraphSchema({
  sortSchema: false,
  linkUrl: 'https://specs.apollo.dev/federation/v2.6',
  federationDirectives: ['@key'],
});

// Each representation is priced as an item of a page is: what is selected on it, once per representation.
const entities = schema.getQueryType()?.getFields()._entities;
if (!entities) throw new Error('the subgraph schema has no _entities field');
(entities.extensions as GraphQLFieldConfig<unknown, unknown>['extensions'] & Record<string, unknown>).complexity =
  (args: { representations?: unknown[] }) => ({ field: 1, multiplier: Math.max(1, args.representations?.length ?? 1) });

/** The subgraph schema as a registry or a router composes it (`_service { sdl }` gives the same). */
export function subgraphSdl(): string {
  return printSubgraphSchema(schema);
}

/** Where the printed schema is committed (written by `npm run codegen`). */
export const SCHEMA_FILE = fileURLToPath(new URL('./schema.graphql', import.meta.url));

export function schemaText(): string {
  return `${printSchema(schema)}\n`;
}
