// The only place that listens. Starts the database (migrated, seeded when empty), serves the app, and on
// SIGINT/SIGTERM stops taking connections and closes the database cleanly.
import { createServer } from 'node:http';
import { createApp } from './graphql/yoga.js';
import { listeningBase, publicBaseFor } from './http/public-base.js';
import { createLogger } from './logger.js';
import { prepareDatabase, runOrExit, StartupError } from './startup.js';

await runOrExit(async (config) => {
  const log = (line: string) => console.log(line);
  const db = await prepareDatabase(config, log);
  // The v2 links need the public address; the port is known only once listening (PORT=0 picks one).
  let publicBase = (_request: Request) => '';
  const app = createApp({ db, logger: createLogger(config.logLevel), publicBase: (request) => publicBase(request) });
  const server = createServer(app);

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.port, config.host, resolve);
  }).catch(async (error: NodeJS.ErrnoException) => {
    await db.close();
    throw new StartupError(`cannot listen on ${config.host}:${config.port} (${error.code ?? error.message})`);
  });

  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  const base = listeningBase(config.host, port);
  publicBase = publicBaseFor(config, base);
  log(
    `database: ${config.database.kind === 'pglite' ? `embedded PGlite in ${config.database.dataDir}` : 'PostgreSQL'}`,
  );
  log(`GraphQL and GraphiQL: ${base}/graphql`);
  log(`health:               ${base}/healthz`);
  log(`metrics:              ${base}/metrics`);
  log(`v2 listing:           ${base}/v2/local-package-list/`);
  if (!config.publicUrl && !config.trustProxy && base !== `http://${config.host}:${port}`) {
    log(`note: the v2 links point to ${base}; set PUBLIC_URL to the address clients use`);
  }

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
