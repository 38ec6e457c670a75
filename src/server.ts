// The only place that listens. Starts the database (migrated, seeded when empty), serves the app, and on
// SIGINT/SIGTERM stops taking connections and closes the database cleanly.
import { createServer } from 'node:http';
import { createApp } from './graphql/yoga.js';
import { listeningBase, publicBaseFor } from './http/public-base.js';
import { createLogger } from './logger.js';
import { prepareDatabase, runOrExit } from './startup.js';

await runOrExit(async (config) => {
  const log = (line: string) => console.log(line);
  const db = await prepareDatabase(config, log);
  let base = '';
  const app = createApp({
    db,
    logger: createLogger(config.logLevel),
    publicBase: (request) => resolvePublicBase(request),
  });
  const server = createServer(app);
  let resolvePublicBase: (request: Request) => string = () => base;

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.port, config.host, resolve);
  }).catch(async (error: NodeJS.ErrnoException) => {
    await db.close();
    throw new Error(`cannot listen on ${config.host}:${config.port} (${error.code ?? error.message})`);
  });

  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  base = listeningBase(config.host, port);
  resolvePublicBase = publicBaseFor(config, base);
  log(
    `database: ${db.kind === 'pglite' ? `embedded PGlite in ${config.database.kind === 'pglite' ? config.database.dataDir : ''}` : 'PostgreSQL'}`,
  );
  log(`GraphQL and GraphiQL: ${base}/graphql`);
  log(`health:               ${base}/healthz`);
  log(`metrics:              ${base}/metrics`);
  log(`v2 listing:           ${base}/v2/local-package-list/`);

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    log(`${signal}: shutting down`);
    server.close();
    server.closeIdleConnections();
    const force = setTimeout(() => server.closeAllConnections(), 5000);
    force.unref();
    await new Promise<void>((resolve) => server.once('close', () => resolve()));
    await db.close();
    process.exit(0);
  };
  process.once('SIGINT', () => void stop('SIGINT'));
  process.once('SIGTERM', () => void stop('SIGTERM'));
});
