// The composition root: one yoga instance with GraphQL, the v2 door and the HTTP routes beside them, and every
// cross-cutting guard. It never listens (see server.ts), so tests call `app.fetch(...)` directly.
import { createYoga, type Plugin, type YogaInitialContext } from 'graphql-yoga';
import type { Logger } from 'pino';
import { createAnswerStore } from './cache/answers.js';
import { edgeHits, keptAtTheEdge } from './cache/edge-hits.js';
import { answerFingerprint, apqOn } from './cache/fingerprint.js';
import { REPURGE_MARGIN_MS, startPurger } from './cache/purge.js';
import { createResponseCache } from './cache/response-cache.js';
import { type Config, loadConfig } from './config.js';
import type { Database } from './db/client.js';
import { automaticPersistedQueries, persistedDocuments } from './graphql/apq.js';
import { createApqStore } from './graphql/apq-store.js';
import { type Context, createContextFactory } from './graphql/context.js';
import { answerUnavailable } from './graphql/database-errors.js';
import { executionDeadline } from './graphql/deadline.js';
import { edgeOperations } from './graphql/edge-operations.js';
import { graphqlMatchSets } from './graphql/errors.js';
import { graphiqlPage } from './graphql/graphiql.js';
import { introspectionOff } from './graphql/introspection.js';
import { jitForRepeatedDocuments } from './graphql/jit.js';
import { operationLimits } from './graphql/limits.js';
import { listingFeed } from './graphql/listing-feed.js';
import { knownOperationNames } from './graphql/operations.js';
import { parseCache } from './graphql/parse-cache.js';
import { persistedOperations, readManifest } from './graphql/persisted.js';
import { preparedPhotographers } from './graphql/prepared-photographers.js';
import { reportWithheldFields } from './graphql/private-fields.js';
import { readSessions } from './graphql/read-session.js';
import { wellFormedParams } from './graphql/request-params.js';
import { schema } from './graphql/schema.js';
import { tracePhases } from './graphql/tracing.js';
import { rejectUnknownKeys } from './http/authenticate.js';
import { cacheHeaders } from './http/cache-headers.js';
import { callerIdentity, identifyCaller } from './http/callers.js';
import { compressResponses } from './http/compression.js';
import { cors, corsPolicy } from './http/cors.js';
import { postsMustBeJson } from './http/csrf.js';
import type { BeforeTheApp } from './http/edge.js';
import { EDGE_ROUTES, planEdge } from './http/edge-plan.js';
import { createEventStreams, type EventStreams } from './http/event-streams.js';
import { healthRoutes } from './http/health.js';
import { maskHookErrors } from './http/masked-errors.js';
import { countEventStreams, createMetrics, metricsPlugin, routeLabel } from './http/metrics.js';
import { onThePublicPort } from './http/metrics-port.js';
import type { PublicBase } from './http/public-base.js';
import { rateLimit, requestBudget } from './http/rate-limit.js';
import { connectRedis } from './http/redis.js';
import { requestLogPlugin, requestRecorder } from './http/request-log.js';
import { GRAPHQL_PATH } from './http/routes.js';
import { asError } from './lifecycle.js';
import { createMatchSets } from './listing/matches.js';
import { lastSeenListing } from './listing/store.js';
import { sharedVersionReads } from './listing/version.js';
import { watchListingVersion } from './listing/version-watch.js';
import { WARM_UP_FAILED, warmUp } from './listing/warm-up.js';
import { silentLogger } from './logger.js';
import { listingEndpoint } from './rest/endpoint.js';
import { tracingOn } from './tracing.js';

/** The part of the configuration the app itself reads. */
export type AppSettings = Pick<
  Config,
  | 'limits'
  | 'introspection'
  | 'requestTimeoutMs'
  | 'listingWatchMs'
  | 'cdnMaxAgeSeconds'
  | 'staleIfErrorSeconds'
  | 'purgeUrls'
  | 'sseMaxConnections'
  | 'sseMaxPerCaller'
  | 'filterCacheBytes'
  | 'persistedOperations'
  | 'apq'
  | 'responseCacheBytes'
  | 'seedPool'
  | 'cacheControl'
  | 'corsOrigins'
  | 'apiKeys'
  | 'v2ApiKeys'
  | 'rateLimit'
  | 'redisUrl'
  | 'redisTimeoutMs'
  | 'trustProxy'
  | 'maxBodyBytes'
  | 'metricsPort'
>;

export interface AppOptions {
  db: Database;
  logger?: Logger;
  /** Base address of the v2 links; by default the origin of the request's URL (fine for in-process fetch). */
  publicBase?: PublicBase;
  /** Overrides of the defaults (the configuration's defaults, as with an empty environment). */
  settings?: Partial<AppSettings>;
  /** Set by the server when it begins to stop (health then answers 503). */
  lifecycle?: { stopping: boolean };
  /** The subscription streams (by default made from the settings): the server ends them when it stops. */
  streams?: EventStreams;
  /** Plugins added after the app's own (src/http/edge-plan.ts: one with request-level hooks turns the edge off). */
  plugins?: Plugin[];
}

export function createApp({
  db,
  logger = silentLogger(),
  publicBase = (r) => (r.url ? new URL(r.url).origin : 'http://localhost'),
  settings: overrides = {},
  lifecycle = { stopping: false },
  streams: givenStreams,
  plugins: extraPlugins = [],
}: AppOptions) {
  const settings: AppSettings = { ...loadConfig({}), ...overrides };
  const streams =
    givenStreams ??
    createEventStreams({ max: settings.sseMaxConnections, perCaller: settings.sseMaxPerCaller, logger });
  const redis = settings.redisUrl
    ? connectRedis({ url: settings.redisUrl, timeoutMs: settings.redisTimeoutMs, logger })
    : undefined;
  const metrics = createMetrics(db, redis);
  // Each instance's own watch of the listing version: subscriptions and CDN purges hear of changes from it, and
  // the instance reads what it keeps per version as soon as a new one is seen (the server did so before it
  // listened), so the first requests in the version do not.
  const listingWatch = watchListingVersion(db.read, settings.listingWatchMs, logger);
  listingWatch.subscribe(() => void warmUp(db.read).catch((error) => logger.warn({ err: error }, WARM_UP_FAILED)));
  const purger = startPurger({
    urls: settings.purgeUrls,
    watch: listingWatch,
    read: db.read,
    cdnMaxAgeSeconds: settings.cdnMaxAgeSeconds,
    redis,
    registry: metrics.registry,
    logger,
    // Every answer of an old version has reached the CDN by then, a replica's that lagged behind included.
    repurgeAfterMs: settings.requestTimeoutMs + REPURGE_MARGIN_MS + db.reads.staleMs,
  });
  countEventStreams(metrics, streams);
  const callerOf = callerIdentity(settings);
  const manifestFile = settings.persistedOperations.file;
  const manifest = manifestFile ? readManifest(manifestFile) : undefined;
  const apqStore = apqOn(settings)
    ? createApqStore({ ...settings.apq, redis, registry: metrics.registry, logger })
    : undefined;
  const apq: Plugin[] = apqStore
    ? [
        automaticPersistedQueries({
          store: apqStore,
          manifest,
          maxTokens: settings.limits.tokens,
          bounds: settings.apq,
          redis,
          callerOf,
        }),
      ]
    : [];
  const corsOrigins = corsPolicy(settings.corsOrigins);
  const responses =
    settings.responseCacheBytes > 0
      ? createResponseCache({
          store: createAnswerStore({ maxBytes: settings.responseCacheBytes, redis }),
          reads: db.reads,
          // Most of the request's time stays for the answer itself when the version is slow to come.
          currentVersion: sharedVersionReads(Math.min(1000, settings.requestTimeoutMs / 3)),
          callerOf,
          publicBase,
          cacheControl: settings.cacheControl,
          v2KeysRequired: settings.v2ApiKeys !== undefined,
          seedPool: settings.seedPool,
          fingerprint: answerFingerprint(settings),
          cdnMaxAgeSeconds: settings.cdnMaxAgeSeconds,
          staleIfErrorSeconds: settings.staleIfErrorSeconds,
          persistedDocument: persistedDocuments(apqStore, manifest).documentFor,
          onAnswer: (pathname, result) => metrics.cache.inc({ route: routeLabel(pathname), result }),
          // GraphQL answers vary by Origin where CORS allows a list of origins (src/http/cors.ts).
          varyOrigin: corsOrigins.varyOrigin,
        })
      : undefined;
  const cache: Plugin[] = responses ? [responses.plugin] : [];
  const budget = requestBudget({ ...settings.rateLimit, redis });
  const record = requestRecorder(logger, metrics, callerOf);
  // Requests answered at the Node edge, before yoga's HTTP layer, with the decisions its plugins below make:
  // kept answers (src/cache/edge-hits.ts) and plain GraphQL queries (src/graphql/edge-operations.ts).
  const edge = {
    budget,
    identify: identifyCaller(settings),
    cors: corsOrigins,
    record,
    graphiql: settings.introspection,
  };
  const hits: BeforeTheApp | undefined = responses ? edgeHits({ ...edge, cache: responses }) : undefined;
  // Persisted operations only: no query sent as text is run, so none is run at the edge either.
  const operations = settings.persistedOperations.only
    ? undefined
    : edgeOperations({
        ...edge,
        yoga: () => yoga,
        cache: responses && { kept: keptAtTheEdge({ ...edge, cache: responses }), responses },
        maxBodyBytes: settings.maxBodyBytes,
      });
  const atTheEdge: BeforeTheApp = (request, response, requestId, target) => {
    if (!plan.answersOn(target.path)) return false;
    return target.path === GRAPHQL_PATH && operations
      ? operations(request, response, requestId, target)
      : (hits?.(request, response, requestId, target) ?? false);
  };
  const schemaHidden: Plugin[] = settings.introspection ? [] : introspectionOff();
  // GraphiQL reads the schema by introspection: without it, there is nothing for it to show.
  const graphiql: Plugin[] = settings.introspection ? [graphiqlPage()] : [];
  // Yoga runs each hook in this order (onRequest until one answers; onResponse for every plugin, each seeing
  // what the ones before it did; onExecute wrappers nest, the later one outside). Where the order matters a
  // comment says why, and test/pipeline.test.ts fails when it is broken; elsewhere the cheap refusals simply
  // come before the work they spare. Beside each plugin: how the Node edge honours its request-level hooks
  // (src/http/edge-plan.ts); one it does not turns the edge off for the routes it touches.
  const plan = planEdge<Plugin | Plugin<Context & YogaInitialContext>>([
    // -- HTTP edge, every route --
    // First, so every answer is timed and logged, refusals and cache hits included.
    { name: 'request log', plugin: requestLogPlugin(record) },
    // /metrics on the public port only with METRICS_PORT=public; the server serves it on its own port otherwise.
    { name: 'metrics', plugin: onThePublicPort(metricsPlugin(metrics, knownOperationNames()), settings.metricsPort) },
    {
      name: 'health',
      plugin: healthRoutes({
        database: db.health,
        databases: db.statuses,
        redis,
        stopping: () => lifecycle.stopping,
        logger,
      }),
    },
    ...graphiql.map((plugin) => ({ name: 'GraphiQL', plugin })),
    { name: 'CORS', plugin: cors(corsOrigins) },
    // Before the cache: a cached answer costs its client a request too.
    { name: 'rate limit', plugin: rateLimit(budget, callerOf) },
    { name: 'API keys', plugin: rejectUnknownKeys(callerOf) },
    { name: 'CSRF', plugin: postsMustBeJson() },

    // -- The doors --
    // Before the cache: the answers it keeps carry the Vary this adds, and it sets the Cache-Control of those it
    // shares; every other answer is marked for no shared cache.
    { name: 'cache headers', plugin: cacheHeaders({ v2KeysRequired: settings.v2ApiKeys !== undefined }) },
    // The cache's onRequest before both doors (a hit ends the request), its onResponse before compression:
    // it keeps answers uncompressed and encodes its hits itself, which compression then leaves alone.
    ...cache.map((plugin) => ({ name: 'response cache', plugin })),
    { name: 'compression', plugin: compressResponses() },
    {
      name: 'v2 door',
      plugin: listingEndpoint({ publicBase, callerOf, keysRequired: settings.v2ApiKeys !== undefined }),
    },

    // -- Execution of GraphQL operations, for both doors --
    { name: 'well-formed parameters', plugin: wellFormedParams() },
    // Before the persisted operations: it turns a known hash (the manifest's or a registered one) into its
    // document, which they then let through, and answers an unknown one PersistedQueryNotFound, the answer
    // APQ clients register their query on. Both before the limits: a persisted document is what they measure.
    ...apq.map((plugin) => ({ name: 'APQ', plugin })),
    ...persistedOperations(settings.persistedOperations, manifest).map((plugin) => ({
      name: 'persisted operations',
      plugin,
    })),
    // Before graphql-jit: nothing over a limit is compiled or run.
    { name: 'operation limits', plugin: operationLimits(settings.limits) },
    { name: 'database faults', plugin: answerUnavailable() },
    ...schemaHidden.map((plugin) => ({ name: 'introspection off', plugin })),
    { name: 'private fields', plugin: reportWithheldFields() },
    // Before graphql-jit, which compiles the document this marks; after reportWithheldFields, whose answer (a new
    // result when it adds the error) this one writes.
    { name: 'prepared photographers', plugin: preparedPhotographers() },
    // These three replace or wrap the execute function, in this order: graphql-jit replaces it (dropping any
    // wrapper set before it), the read session ends when the execution itself has ended, and the deadline,
    // outermost, answers the client on time while the execution winds down.
    // A subscription is subscribed to, never executed: none of these three applies to it, so its stream
    // holds no read session (nor a connection) and no deadline cuts it.
    { name: 'graphql-jit', plugin: jitForRepeatedDocuments() },
    { name: 'read sessions', plugin: readSessions() },
    { name: 'deadline', plugin: executionDeadline(settings.requestTimeoutMs) },
    // After graphql-jit (which drops wrappers set before it): spans for parse, validate and execute.
    ...(tracingOn() ? [{ name: 'tracing', plugin: tracePhases() }] : []),
    // Subscriptions as event streams, counted and bounded (src/http/event-streams.ts). Yoga's own result
    // processors come before every plugin here; this one takes over the streams they would write.
    { name: 'event streams', plugin: streams.plugin(callerOf) },
    {
      name: 'disposal',
      plugin: {
        onDispose: async () => {
          streams.closeAll();
          await purger.stop();
          listingWatch.stop();
          await redis?.close();
        },
      },
    },
    // Given by the embedder: the table has no row for them, so a request-level hook of one turns the edge off.
    ...extraPlugins.map((plugin, index) => ({ name: `added plugin ${index + 1}`, plugin })),
  ]);
  if (plan.unhonoured.length > 0) {
    logger.warn(
      `requests answered by yoga alone on ${EDGE_ROUTES.filter((route) => !plan.answersOn(route)).join(' and ')}: no Node edge for the hooks ${plan.unhonoured.join('; ')}`,
    );
  }
  const yoga = createYoga<Record<string, unknown>, Context>({
    schema,
    graphqlEndpoint: GRAPHQL_PATH,
    // GraphiQL is served by a plugin of ours (src/graphql/graphiql.ts), never by yoga, which would also render it
    // for any URL that ends with "/graphql" (a v2 query string can).
    graphiql: false,
    // Every other path is answered before yoga (src/http/edge.ts); a method a route does not take never gets
    // yoga's landing page.
    landingPage: false,
    // Yoga's own health check answers any URL that ends with this text (a query string can end with "/health");
    // a space can end no request target, so it never answers. Health is /healthz (src/http/health.ts).
    healthCheckEndpoint: ' ',
    // The Node edge bounds every body (MAX_BODY_BYTES, src/http/edge.ts) before yoga sees it; yoga's own limit
    // would pipe each body through a stream of its own, a tenth of a small page's CPU.
    maxRequestBodySize: false,
    parserAndValidationCache: parseCache(),
    context: createContextFactory({
      reads: db.reads,
      matchSets: graphqlMatchSets(createMatchSets(settings.filterCacheBytes)),
      lastSeen: lastSeenListing(),
      callerOf,
      requestTimeoutMs: settings.requestTimeoutMs,
      seedPool: settings.seedPool,
      logger,
      listingFeed: listingFeed(listingWatch),
      keptAnswers: responses !== undefined,
    }),
    cors: false,
    plugins: plan.plugins.map((plugin) =>
      maskHookErrors(plugin, (error) => logger.error({ err: asError(error) }, 'handling a request threw')),
    ),
    // Unexpected errors reach clients as "Unexpected error." (yoga's masking) and the log in full.
    maskedErrors: true,
    logging: {
      debug: (...args) => logger.debug(args.map(String).join(' ')),
      info: (...args) => logger.info(args.map(String).join(' ')),
      warn: (...args) => logger.warn(args.map(String).join(' ')),
      error: (...args) => logger.error({ err: args.find((a) => a instanceof Error) }, args.map(String).join(' ')),
    },
  });
  // The server puts `atTheEdge` in front of the app (src/http/edge.ts), which records what it answers itself with
  // `recordRequest`; in-process `fetch` calls go to yoga alone.
  return Object.assign(yoga, {
    atTheEdge,
    edgeUnhonoured: plan.unhonoured,
    recordRequest: record,
    metricsRegistry: metrics.registry,
  });
}

export type App = ReturnType<typeof createApp>;
