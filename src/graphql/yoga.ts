// The one yoga instance: GraphQL plus the HTTP routes beside it. It never listens (see server.ts), so tests
// call `yoga.fetch(...)` directly.
import { createYoga } from 'graphql-yoga';
import type { Database } from '../db/client.js';
import { healthRoute } from '../http/health.js';
import type { Context } from './context.js';
import { createLoaders } from './loaders.js';
import { schema } from './schema.js';

export interface AppOptions {
  db: Database;
}

export function createApp({ db }: AppOptions) {
  return createYoga<Record<string, unknown>, Context>({
    schema,
    graphqlEndpoint: '/graphql',
    context: () => ({ loaders: createLoaders(db.prisma) }),
    plugins: [healthRoute(db.ping)],
    logging: false,
  });
}

export type App = ReturnType<typeof createApp>;
