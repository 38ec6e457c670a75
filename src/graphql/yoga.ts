// The one yoga instance: GraphQL plus the HTTP routes beside it. It never listens (see server.ts), so tests
// call `yoga.fetch(...)` directly.
import { useGraphQlJit } from '@envelop/graphql-jit';
import { createYoga } from 'graphql-yoga';
import type { Logger } from 'pino';
import type { Database } from '../db/client.js';
import { compressHtmlPages } from '../http/compress-html.js';
import { corsExcept } from '../http/cors.js';
import { healthRoute } from '../http/health.js';
import { createMetrics, metricsPlugin } from '../http/metrics.js';
import { requestLogPlugin } from '../http/request-log.js';
import { createLogger } from '../logger.js';
import { LISTING_PATH, listingEndpoint } from '../rest/endpoint.js';
import type { Context } from './context.js';
import { graphiql, renderGraphiQL } from './graphiql.js';
import { createLoaders } from './loaders.js';
import { schema } from './schema.js';

export interface AppOptions {
  db: Database;
  logger?: Logger;
  /** Base address of the v2 links; by default the origin of the request's URL (fine for in-process fetch). */
  publicBase?: (request: Request) => string;
}

export function createApp({
  db,
  logger = createLogger('silent'),
  publicBase = (r) => new URL(r.url).origin,
}: AppOptions) {
  const metrics = createMetrics(db.statements);
  return createYoga<Record<string, unknown>, Context>({
    schema,
    graphqlEndpoint: '/graphql',
    graphiql,
    renderGraphiQL,
    context: () => ({ loaders: createLoaders(db.prisma) }),
    cors: false,
    plugins: [
      corsExcept([LISTING_PATH]),
      compressHtmlPages(),
      requestLogPlugin(logger, metrics),
      metricsPlugin(metrics),
      healthRoute(db.ping),
      listingEndpoint({ publicBase }),
      // Compiles each operation once into a specialised function: wide nested pages (thousands of fields)
      // spend most of their time in graphql-js's generic field-by-field execution otherwise.
      useGraphQlJit(),
    ],
    // Unexpected errors reach clients as "Unexpected error." (yoga's masking) and the log in full.
    maskedErrors: true,
    logging: {
      debug: (...args) => logger.debug(args.map(String).join(' ')),
      info: (...args) => logger.info(args.map(String).join(' ')),
      warn: (...args) => logger.warn(args.map(String).join(' ')),
      error: (...args) => logger.error({ err: args.find((a) => a instanceof Error) }, args.map(String).join(' ')),
    },
  });
}

export type App = ReturnType<typeof createApp>;
