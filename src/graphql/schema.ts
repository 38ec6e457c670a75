// The schema: imports every type file, then builds it as an Apollo Federation 2 subgraph (src/graphql/types/
// entities.ts), which is also a complete schema on its own.

import { fileURLToPath } from 'node:url';
import { printSubgraphSchema } from '@apollo/subgraph';
import { printSchema } from 'graphql';
import { builder } from './builder.js';
import './types/query.js';
import './types/categories.js';
import './types/node.js';
import './types/subscription.js';
import './types/card-image.js';
import { guardEntities } from './types/entities.js';

export const schema = builder.toSubGraphSchema({
  sortSchema: false,
  linkUrl: 'https://specs.apollo.dev/federation/v2.6',
  federationDirectives: ['@key'],
});

guardEntities(schema);

/** The subgraph schema as a registry or a router composes it (`_service { sdl }` gives the same). */
export function subgraphSdl(): string {
  return printSubgraphSchema(schema);
}

/** Where the printed schema is committed (written by `npm run codegen`). */
export const SCHEMA_FILE = fileURLToPath(new URL('./schema.graphql', import.meta.url));

export function schemaText(): string {
  return `${printSchema(schema)}\n`;
}
