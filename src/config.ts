// Configuration: the environment (src/environment.ts) parsed and validated once, into one typed `config` object.
// Every problem is reported in one line; the process stops before it touches any data.
import type { z } from 'zod';
import type { ApiKey, KeyFile } from './api-keys.js';
import { environment } from './environment.js';
import { stopsWithParent } from './lifecycle.js';

export { environment };

/** What one operation may ask for; checked before it runs (see src/graphql/limits.ts). */
export interface OperationLimits {
  tokens: number;
  depth: number;
  aliases: number;
  directives: number;
  /** Fields in the selection with every fragment spread expanded. */
  fields: number;
  /** Fields times the list sizes they are asked for (see src/graphql/limits.ts for the pricing). */
  cost: number;
}

/** How the server talks to PostgreSQL (the embedded database has no pool, network or timeouts). */
export interface PoolSettings {
  size: number;
  connectTimeoutMs: number;
  /** Server-side bound on each read statement (also bounded by what is left of the request's deadline). */
  statementTimeoutMs: number;
  /** Client-side bound on each read statement, for a server that accepts and never answers. */
  queryTimeoutMs: number;
  idleTimeoutMs: number;
  /** TCP keepalive idle time; 0 turns keepalive off. */
  keepAliveMs: number;
}

export type Config = {
  /** NODE_ENV=production: the defaults close what development leaves open (src/environment.ts says which). */
  production: boolean;
  port: number;
  host: string;
  /** Where /metrics is served: a port of its own on `host` (0 picks one), beside /graphql, or nowhere. */
  metricsPort: number | 'public' | 'off';
  /** The instance serves a demo on purpose: the embedded database and demo packages are allowed (src/start-checks.ts). */
  demo: boolean;
  /** The v2 path is public on purpose, its private fields included, when there are no `v2ApiKeys`. */
  v2Public: boolean;
  /** Stop as on SIGTERM when the parent process exits (src/lifecycle.ts). */
  stopWithParent: boolean;
  database:
    | {
        kind: 'postgresql';
        url: string;
        /** For work that needs a session of its own (migrations, the start-up lock); by default `url`. */
        directUrl?: string | undefined;
        /** Read replicas, read from while they keep up (src/db/replicas.ts). */
        replicaUrls?: string[] | undefined;
        /** `transaction`: behind a pooler in transaction mode (no statement prepared by name, no session settings). */
        pooler?: 'none' | 'transaction';
        /** How long a replica's listing version may be behind the primary's before it is skipped. */
        replicaMaxLagMs?: number;
      }
    | { kind: 'pglite'; dataDir: string };
  /**
   * What an import holds at once: a line, a streamed record or a URL's answer, in bytes; and what a server on the
   * embedded database spools of one source the import tool hands it (src/import/live-server.ts).
   */
  imports: { maxLineBytes: number; maxSpoolBytes: number };
  /** Demo packages loaded into an empty database at start: by default 2,000 on the embedded one, none on PostgreSQL. */
  seedPackages: number;
  logLevel: z.infer<typeof environment>['LOG_LEVEL'];
  /** JSON lines, or readable lines for a terminal; `auto` is pretty on a terminal, JSON otherwise. */
  logFormat: z.infer<typeof environment>['LOG_FORMAT'];
  /** `auto` applies pending migrations at start; `off` refuses to start on a database that is behind. */
  migrate: 'auto' | 'off';
  /** How long start-up waits for PostgreSQL to answer before it gives up. */
  databaseWaitMs: number;
  pool: PoolSettings;
  /** How long a stop waits for the requests in flight before it closes their connections. */
  shutdownTimeoutMs: number;
  /** The service's address as clients see it, for the v2 links; by default the address it listens on. */
  publicUrl: string | undefined;
  /** Behind a reverse proxy: take the public address from X-Forwarded-Proto/-Host, the client from -For. */
  trustProxy: boolean;
  limits: OperationLimits;
  introspection: boolean;
  /** The persisted operations manifest, and whether only those run (src/graphql/persisted.ts). */
  persistedOperations: { file?: string; only: boolean };
  /**
   * Automatic persisted queries (src/graphql/apq.ts): documents kept in memory (0 turns APQ off) and their bytes,
   * new documents a client may register per minute (0: no bound), how long Redis keeps one, the largest document
   * registered, and the bytes kept in Redis within a TTL for every client (0: none) and for one (0: no bound).
   */
  apq: {
    maxQueries: number;
    maxBytes: number;
    registrationsPerMinute: number;
    ttlMs: number;
    maxDocumentBytes: number;
    redisMaxBytes: number;
    maxBytesPerCaller: number;
  };
  /** Largest request body accepted (413 beyond). */
  maxBodyBytes: number;
  /** Connections one client address may hold open at once (0: no bound); not applied behind a trusted proxy. */
  maxConnectionsPerAddress: number;
  /** Memory for the filters' matching positions kept between requests (src/listing/matches.ts). */
  filterCacheBytes: number;
  /** Memory for cached answers (src/cache/); 0 turns the response cache off. */
  responseCacheBytes: number;
  /** Seeds a request without one draws from, per listing version (src/listing/seed-pool.ts); 0: any seed. */
  seedPool: number;
  /** Cache-Control of cacheable anonymous answers. */
  cacheControl: string;
  /** How often each instance reads the listing version to tell subscribers and purgers of a change. */
  /** Surrogate-Control max-age of anonymous answers: how long a CDN keeps them unless purged. */
  cdnMaxAgeSeconds: number;
  /** How long after the version was last read a kept answer is served while the database is away (0: never). */
  staleIfErrorSeconds: number;
  /** Where a new listing version's purge of the previous one is POSTed (src/cache/purge.ts). */
  purgeUrls: string[];
  listingWatchMs: number;
  /** Subscription streams (Server-Sent Events) open at once on an instance, at most; 0: none. */
  sseMaxConnections: number;
  /** Subscription streams one caller may hold open at once on an instance; 0: no bound of its own. */
  sseMaxPerCaller: number;
  /** Time an operation may take before it is answered with a timeout error, in milliseconds. */
  requestTimeoutMs: number;
  /** Origins browsers may call /graphql from: ['*'] (any, without credentials) or exact origins; [] none named. */
  corsOrigins: string[];
  /** Keys that unlock scopes on GraphQL (`private`: the personal fields). */
  apiKeys: ApiKey[];
  /** When set, the v2 path answers only requests that carry one of these keys. */
  v2ApiKeys: ApiKey[] | undefined;
  /** The files the keys above were read from, if any: read again at run time into those same lists. */
  apiKeyFiles: KeyFile[];
  /** Requests per client per window; 0 turns rate limiting off. */
  rateLimit: { requests: number; windowMs: number };
  /** Redis shared by every instance (rate limits, cached answers); unset: each instance keeps its own in memory. */
  redisUrl: string | undefined;
  /** How long a Redis command may take before the request goes on without Redis. */
  redisTimeoutMs: number;
  /** OpenTelemetry traces: on when an OTLP endpoint is set (src/tracing.ts). */
  tracing: { endpoint: string | undefined; serviceName: string };
};

export class ConfigError extends Error {}

/** The demo packages the embedded database is given by default: the listing a first start serves, made ready once. */
export const DEMO_PACKAGES = 2000;

/** Production's METRICS_PORT: the one Prometheus's list of default ports gives exporters of this kind. */
export const PROMETHEUS_EXPORTER_PORT = 9464;

/** The value as it may be shown: a URL's password is never printed. */
function printable(name: string, value: string | undefined): string {
  if (value === undefined) return 'undefined';
  if (/KEYS$/.test(name)) return '(hidden)';
  return JSON.stringify(value.replace(/^([a-z]+:\/\/[^:/@]*:)[^@]*@/i, '$1***@'));
}

/** Parses the environment; throws a ConfigError whose message lists every problem on one line. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  // An empty variable means "not set", as in most shells' `VAR= command`.
  const present = Object.fromEntries(Object.entries(env).filter(([, value]) => value !== undefined && value !== ''));
  const parsed = environment.safeParse(present);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => {
      const name = issue.path.join('.');
      return `${name}=${printable(name, present[name])} ${issue.message}`;
    });
    throw new ConfigError(`invalid configuration: ${problems.join('; ')}`);
  }
  const e = parsed.data;
  for (const [variable, file] of [
    ['API_KEYS', e.API_KEYS_FILE],
    ['V2_API_KEYS', e.V2_API_KEYS_FILE],
  ] as const) {
    if (file && present[variable] !== undefined) {
      throw new ConfigError(`invalid configuration: ${variable} and ${variable}_FILE are both set; set one of them`);
    }
  }
  const apiKeyFiles: KeyFile[] = [];
  if (e.API_KEYS_FILE) apiKeyFiles.push({ variable: 'API_KEYS_FILE', withScopes: true, ...e.API_KEYS_FILE });
  if (e.V2_API_KEYS_FILE) apiKeyFiles.push({ variable: 'V2_API_KEYS_FILE', withScopes: false, ...e.V2_API_KEYS_FILE });
  const production = e.NODE_ENV === 'production';
  const metricsPort = e.METRICS_PORT ?? (production ? PROMETHEUS_EXPORTER_PORT : 'public');
  if (metricsPort === e.PORT && e.PORT !== 0) {
    throw new ConfigError(
      `invalid configuration: METRICS_PORT=${JSON.stringify(String(metricsPort))} must not be PORT (METRICS_PORT=public serves /metrics on the public port)`,
    );
  }
  return {
    production,
    port: e.PORT,
    host: e.HOST,
    metricsPort,
    demo: e.DEMO ?? !production,
    v2Public: e.V2_PUBLIC ?? !production,
    stopWithParent: stopsWithParent(present),
    database: e.DATABASE_URL
      ? {
          kind: 'postgresql',
          url: e.DATABASE_URL,
          directUrl: e.DATABASE_DIRECT_URL,
          replicaUrls: e.DATABASE_REPLICA_URLS ?? [],
          pooler: e.DATABASE_POOLER,
          replicaMaxLagMs: e.REPLICA_MAX_LAG,
        }
      : { kind: 'pglite', dataDir: e.DATA_DIR },
    imports: { maxLineBytes: e.IMPORT_MAX_LINE_BYTES, maxSpoolBytes: e.IMPORT_MAX_SPOOL_BYTES },
    seedPackages: e.SEED_PACKAGES ?? (e.DATABASE_URL ? 0 : DEMO_PACKAGES),
    logLevel: e.LOG_LEVEL,
    logFormat: e.LOG_FORMAT,
    migrate: e.MIGRATE,
    databaseWaitMs: e.DATABASE_WAIT,
    pool: {
      size: e.DB_POOL_SIZE,
      connectTimeoutMs: e.DB_CONNECT_TIMEOUT,
      statementTimeoutMs: e.DB_STATEMENT_TIMEOUT,
      queryTimeoutMs: e.DB_QUERY_TIMEOUT,
      idleTimeoutMs: e.DB_IDLE_TIMEOUT,
      keepAliveMs: e.DB_KEEPALIVE,
    },
    shutdownTimeoutMs: e.SHUTDOWN_TIMEOUT,
    publicUrl: e.PUBLIC_URL,
    trustProxy: e.TRUST_PROXY,
    limits: {
      tokens: e.GRAPHQL_MAX_TOKENS,
      depth: e.GRAPHQL_MAX_DEPTH,
      aliases: e.GRAPHQL_MAX_ALIASES,
      directives: e.GRAPHQL_MAX_DIRECTIVES,
      fields: e.GRAPHQL_MAX_FIELDS,
      cost: e.GRAPHQL_MAX_COST,
    },
    introspection: e.GRAPHQL_INTROSPECTION ?? !production,
    persistedOperations: { file: e.PERSISTED_OPERATIONS, only: e.PERSISTED_OPERATIONS_ONLY },
    apq: {
      maxQueries: e.APQ_MAX_QUERIES,
      maxBytes: e.APQ_MAX_BYTES,
      registrationsPerMinute: e.APQ_REGISTRATIONS,
      ttlMs: e.APQ_TTL,
      maxDocumentBytes: e.APQ_MAX_DOCUMENT_BYTES,
      redisMaxBytes: e.APQ_REDIS_MAX_BYTES,
      maxBytesPerCaller: e.APQ_MAX_BYTES_PER_CALLER,
    },
    maxBodyBytes: e.MAX_BODY_BYTES,
    maxConnectionsPerAddress: e.MAX_CONNECTIONS_PER_ADDRESS,
    filterCacheBytes: e.FILTER_CACHE_BYTES,
    responseCacheBytes: e.RESPONSE_CACHE_BYTES,
    seedPool: e.SEED_POOL,
    cacheControl: e.CACHE_CONTROL,
    requestTimeoutMs: e.REQUEST_TIMEOUT,
    listingWatchMs: e.LISTING_WATCH_INTERVAL,
    cdnMaxAgeSeconds: e.CDN_MAX_AGE,
    staleIfErrorSeconds: e.STALE_IF_ERROR,
    purgeUrls: e.PURGE_URLS,
    sseMaxConnections: e.SSE_MAX_CONNECTIONS,
    sseMaxPerCaller: e.SSE_MAX_PER_CALLER,
    corsOrigins: e.CORS_ORIGINS ?? (production ? [] : ['*']),
    // A file's keys are the very list its reload replaces (src/api-keys.ts).
    apiKeys: e.API_KEYS_FILE?.keys ?? e.API_KEYS ?? [],
    v2ApiKeys: e.V2_API_KEYS_FILE?.keys ?? e.V2_API_KEYS,
    apiKeyFiles,
    rateLimit: { requests: e.RATE_LIMIT, windowMs: e.RATE_LIMIT_WINDOW },
    redisUrl: e.REDIS_URL,
    redisTimeoutMs: e.REDIS_TIMEOUT,
    tracing: {
      endpoint: e.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT ?? e.OTEL_EXPORTER_OTLP_ENDPOINT,
      serviceName: e.OTEL_SERVICE_NAME,
    },
  };
}

/** The defaults, for code that runs without an environment (tests, the v2 door's own operation). */
export const DEFAULT_LIMITS: OperationLimits = loadConfig({}).limits;
export const DEFAULT_IMPORT_BOUNDS: Config['imports'] = loadConfig({}).imports;
