// The only place that listens. Starts the database (waiting for it, migrated, seeded where asked), serves the app,
// and stops gracefully: on SIGTERM/SIGINT it stops accepting connections, finishes the requests in flight (up to
// SHUTDOWN_TIMEOUT), and only then closes the database. Subscription streams, which would never finish on their
// own, are ended first. A rejected promise nothing handled is logged and counted, never fatal; an uncaught exception
// stops the server the same graceful way, exiting 1 (src/lifecycle.ts, watchFaults, says why).
import { createServer } from 'node:http';
import { watchKeyFiles } from './api-keys.js';
import { createApp } from './app.js';
import { buildInfo } from './build-info.js';
import { type Config, loadConfig } from './config.js';
import { drainable } from './http/drain.js';
import { guardEdge } from './http/edge.js';
import { createEventStreams } from './http/event-streams.js';
import { listenForMetrics } from './http/metrics-port.js';
import { listeningBase, type PublicBase, publicBaseFor } from './http/public-base.js';
import { boundConnections } from './http/sockets.js';
import { traceRequests } from './http/tracing.js';
import { openImportChannel } from './import/live-server.js';
import { asError, onStop, type StopReason, watchFaults } from './lifecycle.js';
import { WARM_UP_FAILED, warmUp } from './listing/warm-up.js';
import { createLogger, type Logger } from './logger.js';
import { likelyTypos, refuseClosedByDefault } from './start-checks.js';
import { describeStartupFailure, prepareDatabase, StartupError } from './startup.js';
import { startTracing } from './tracing.js';

/** Starts serving; resolves with how to stop (as on SIGTERM) once it listens. */
async function serve(config: Config, log: Logger): Promise<(reason: StopReason) => void> {
  const lifecycle = { stopping: false };
  // Before anything is opened or written: what production closes, a start opens only where a setting says so.
  refuseClosedByDefault(config);
  const stopTracing = await startTracing(config.tracing);
  if (stopTracing) log.info(`tracing: OpenTelemetry traces to ${config.tracing.endpoint}`);
  const db = await prepareDatabase(config, log);
  // What the instance keeps per listing version is read before it listens: no first request pays for it.
  await warmUp(db.read).catch((error) => log.warn({ err: error }, WARM_UP_FAILED));
  // The v2 links need the public address; the port is known only once listening (PORT=0 picks one).
  let publicBase: PublicBase = () => '';
  const streams = createEventStreams({ max: config.sseMaxConnections, perCaller: config.sseMaxPerCaller, logger: log });
  const app = createApp({
    db,
    logger: log,
    publicBase: (request) => publicBase(request),
    settings: config,
    lifecycle,
    streams,
  });
  const connections = boundConnections({ perAddress: config.maxConnectionsPerAddress, trustProxy: config.trustProxy });
  const edge = guardEdge(app, {
    ...config,
    refuseConnection: connections.refusal,
    beforeTheApp: app.atTheEdge,
    record: app.recordRequest,
    // The request itself is answered (by the app, or a masked 500); the error is the operator's to see.
    onFault: (error, requestId) => log.error({ err: asError(error), requestId }, 'handling a request threw'),
  });
  const server = createServer(stopTracing ? traceRequests(edge) : edge);
  // A client gets this long to send its headers (a new connection, to begin its first request), and its whole
  // request; slower ones are cut off.
  server.headersTimeout = 10_000;
  server.requestTimeout = 30_000;
  connections.watch(server);
  const drainer = drainable(server);

  // /metrics on a port of its own (METRICS_PORT), open until the process ends: a scrape sees the drain too.
  const metricsPort = config.metricsPort;
  const metrics =
    typeof metricsPort === 'number'
      ? await listenForMetrics(app.metricsRegistry, config.host, metricsPort).catch(
          async (error: NodeJS.ErrnoException) => {
            await db.close();
            throw new StartupError(
              `cannot listen on ${config.host}:${metricsPort} for /metrics (METRICS_PORT; ${error.code ?? error.message})`,
            );
          },
        )
      : null;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.port, config.host, resolve);
  }).catch(async (error: NodeJS.ErrnoException) => {
    await metrics?.close();
    await db.close();
    throw new StartupError(`cannot listen on ${config.host}:${config.port} (${error.code ?? error.message})`);
  });

  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  const base = listeningBase(config.host, port);
  publicBase = publicBaseFor(config, base);
  // The embedded database is this process's alone: `npm run import` hands its records over this socket.
  const imports =
    config.database.kind === 'pglite' && config.database.dataDir !== 'memory://'
      ? await openImportChannel({ dataDir: config.database.dataDir, db, logger: log, bounds: config.imports })
      : null;
  const where = config.database.kind === 'pglite' ? `embedded PGlite in ${config.database.dataDir}` : 'PostgreSQL';
  const build = buildInfo();
  log.info(build, `version ${build.version} (commit ${build.commit}, Node ${build.node}); database: ${where}`);
  const hidden = config.introspection ? '' : ' (GraphiQL and introspection off: GRAPHQL_INTROSPECTION)';
  log.info(`GraphQL and GraphiQL: ${base}/graphql${hidden}`);
  log.info(`health:               ${base}/healthz (liveness: ${base}/livez)`);
  const metricsAt = config.metricsPort === 'off' ? 'off (METRICS_PORT)' : `${base}/metrics`;
  log.info(`metrics:              ${metrics ? `${metrics.url} (METRICS_PORT; not on ${base})` : metricsAt}`);
  log.info(`v2 listing:           ${base}/v2/local-package-list/ (OpenAPI: ${base}/v2/openapi.json)`);
  if (imports?.path) log.info(`imports:              npm run import -- <file|directory|URL> (taken by this server)`);
  if (!config.publicUrl && !config.trustProxy && base !== `http://${config.host}:${port}`) {
    log.info(`note: the v2 links point to ${base}; set PUBLIC_URL to the address clients use`);
  }

  // An uncaught exception, even one met while stopping, makes the exit code 1: the supervisor sees a failure.
  let failed = false;
  const stop = async (reason: StopReason) => {
    if (reason === 'uncaught exception' && !failed) {
      failed = true;
      // The state is unknown: should closing hang on it, the process ends anyway, once the requests had their time.
      setTimeout(() => {
        log.error('still stopping after an uncaught exception: exiting now');
        process.exit(1);
      }, config.shutdownTimeoutMs + UNCAUGHT_STOP_GRACE_MS).unref();
    }
    if (lifecycle.stopping) {
      if (reason !== 'SIGINT') return;
      log.warn('SIGINT again: stopping now, without waiting for the requests in flight');
      process.exit(1);
    }
    lifecycle.stopping = true;
    log.info(
      { streams: streams.open(), reason, inFlight: drainer.inFlight() },
      `${reason}: stopping; finishing the requests in flight`,
    );
    // Each stream gets `event: complete` and ends: its client subscribes again, to an instance that stays.
    streams.closeAll();
    // An import under way is rolled back (its tool is told); the listing stays as it was.
    await imports?.close();
    const outcome = await drainer.drain(config.shutdownTimeoutMs);
    if (outcome === 'forced') {
      log.warn(`requests still running after ${config.shutdownTimeoutMs / 1000} s (SHUTDOWN_TIMEOUT) were cut off`);
    }
    let clean = outcome === 'drained';
    try {
      await app.dispose();
      await db.close();
      await stopTracing?.().catch(() => log.warn('the last traces could not be sent'));
      await metrics?.close();
    } catch (error) {
      clean = false;
      log.error(`the database did not close cleanly: ${describeStartupFailure(error)}`);
    }
    log.info('stopped');
    process.exit(clean && !failed ? 0 : 1);
  };
  onStop((reason) => void stop(reason), config.stopWithParent);
  // Keys given in files are read again on SIGHUP and when a file changes, without a restart (src/api-keys.ts).
  const keyFiles = watchKeyFiles(config.apiKeyFiles, log);
  process.on('SIGHUP', () => (config.apiKeyFiles.length ? keyFiles.reload() : log.info('SIGHUP: no keys file')));
  return (reason) => void stop(reason);
}

/** How long closing the app and the database may take after the requests' SHUTDOWN_TIMEOUT, once a fault stops. */
const UNCAUGHT_STOP_GRACE_MS = 10_000;

// In every mode, a variable that looks like a misspelled setting is named with the setting it likely means.
const typos = likelyTypos(process.env);
let config: Config;
try {
  config = loadConfig();
} catch (error) {
  const early = createLogger({ level: 'info', format: 'auto' });
  for (const line of typos) early.warn(line);
  early.fatal(describeStartupFailure(error));
  process.exit(1);
}
const log = createLogger({ level: config.logLevel, format: config.logFormat });
for (const line of typos) log.warn(line);
// Watched from the start: until the server listens, an uncaught exception ends the start as a failed start does.
let stopServing = (_reason: StopReason): void => process.exit(1);
watchFaults(log, (reason) => stopServing(reason));
try {
  stopServing = await serve(config, log);
} catch (error) {
  log.fatal(describeStartupFailure(error));
  process.exit(1);
}
