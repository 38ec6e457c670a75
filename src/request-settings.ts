// Which settings change how a request is handled. The server answers some requests at the Node edge and leaves the
// rest to yoga, and both doors must give the same answer under every setting that changes one:
// test/edge/settings-matrix.test.ts asks both the same requests under profiles of settings, and holds every variable
// marked 'request' here to a place in one of its profiles. The table is typed over the environment's own schema, so
// a new variable does not compile until it is placed here, and a new 'request' one fails that test until a profile
// sets it.
import type { environment } from './environment.js';

/** Changes how a request is handled (its answer, its refusal, what is kept or counted of it), or not, and why. */
export type RequestRole = 'request' | { notRequest: string };

/** Every variable of the environment (src/environment.ts). */
export type EnvironmentVariable = keyof typeof environment.shape;

const not = (why: string): RequestRole => ({ notRequest: why });

export const requestSettings: Readonly<Record<EnvironmentVariable, RequestRole>> = {
  // Without PUBLIC_URL (and a trusted proxy), the v2 links are built on the listening address.
  PORT: 'request',
  HOST: 'request',
  NODE_ENV: not('only the defaults of other settings, each held to both doors by its own row'),
  METRICS_PORT: not('/metrics is no route of the edge: yoga alone answers it, or a port of its own'),
  DEMO: not('start-up only: whether the embedded database and demo data may be served'),
  V2_PUBLIC: not('start-up only: whether a v2 path without keys may be served'),
  STOP_WITH_PARENT: not('how the process stops'),
  DATABASE_URL: not('where the listing is stored; both doors read it the same way'),
  DATABASE_DIRECT_URL: not('migrations and the start-up lock only'),
  DATABASE_REPLICA_URLS: not('which copy a read goes to, below both doors; the reads are the same'),
  DATABASE_POOLER: not('how statements are sent to PostgreSQL, below both doors'),
  REPLICA_MAX_LAG: not('which copy a read goes to, below both doors'),
  DATA_DIR: not('where the embedded database is stored'),
  SEED_PACKAGES: not('the data loaded at start, not how a request is handled'),
  IMPORT_MAX_LINE_BYTES: not("the import tool's bound, and its socket's, never an HTTP request's"),
  IMPORT_MAX_SPOOL_BYTES: not("the import socket's bound, never an HTTP request's"),
  LOG_LEVEL: not('which log lines are written'),
  LOG_FORMAT: not('how log lines are written'),
  MIGRATE: not('start-up only'),
  DATABASE_WAIT: not('start-up only'),
  DB_POOL_SIZE: not('connections to PostgreSQL, below both doors'),
  DB_CONNECT_TIMEOUT: not('connections to PostgreSQL, below both doors'),
  DB_STATEMENT_TIMEOUT: not("the database's own bound on a statement, below both doors"),
  DB_QUERY_TIMEOUT: not("the client's bound on a statement's answer, below both doors"),
  DB_IDLE_TIMEOUT: not('connections to PostgreSQL'),
  DB_KEEPALIVE: not('connections to PostgreSQL'),
  SHUTDOWN_TIMEOUT: not('how long a stop waits'),
  PUBLIC_URL: 'request',
  TRUST_PROXY: 'request',
  GRAPHQL_MAX_TOKENS: 'request',
  GRAPHQL_MAX_DEPTH: 'request',
  GRAPHQL_MAX_ALIASES: 'request',
  GRAPHQL_MAX_DIRECTIVES: 'request',
  GRAPHQL_MAX_FIELDS: 'request',
  GRAPHQL_MAX_COST: 'request',
  GRAPHQL_INTROSPECTION: 'request',
  PERSISTED_OPERATIONS: 'request',
  PERSISTED_OPERATIONS_ONLY: 'request',
  APQ_MAX_QUERIES: 'request',
  APQ_MAX_BYTES: 'request',
  APQ_REGISTRATIONS: 'request',
  APQ_TTL: 'request',
  APQ_MAX_DOCUMENT_BYTES: 'request',
  APQ_REDIS_MAX_BYTES: 'request',
  APQ_MAX_BYTES_PER_CALLER: 'request',
  MAX_BODY_BYTES: 'request',
  MAX_CONNECTIONS_PER_ADDRESS: 'request',
  FILTER_CACHE_BYTES: 'request',
  RESPONSE_CACHE_BYTES: 'request',
  SEED_POOL: 'request',
  CACHE_CONTROL: 'request',
  REQUEST_TIMEOUT: 'request',
  LISTING_WATCH_INTERVAL: not('when a new listing version is noticed, for subscriptions and purges'),
  CDN_MAX_AGE: 'request',
  STALE_IF_ERROR: 'request',
  PURGE_URLS: not('where purges are sent when the listing changes, never in answer to a request'),
  SSE_MAX_CONNECTIONS: 'request',
  SSE_MAX_PER_CALLER: 'request',
  CORS_ORIGINS: 'request',
  API_KEYS: 'request',
  V2_API_KEYS: 'request',
  // The same lists as API_KEYS and V2_API_KEYS (which the profiles set), read from a file and again at run time.
  API_KEYS_FILE: not("where API_KEYS's list is read from; the list itself is API_KEYS's"),
  V2_API_KEYS_FILE: not("where V2_API_KEYS's list is read from; the list itself is V2_API_KEYS's"),
  RATE_LIMIT: 'request',
  RATE_LIMIT_WINDOW: 'request',
  REDIS_URL: 'request',
  // Past it a request goes on without Redis: the local budget and the memory tier answer instead.
  REDIS_TIMEOUT: 'request',
  OTEL_EXPORTER_OTLP_ENDPOINT: 'request',
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'request',
  OTEL_SERVICE_NAME: not('a name on the spans'),
};

/** The variables that change how a request is handled. */
export const requestVariables = (): EnvironmentVariable[] =>
  (Object.keys(requestSettings) as EnvironmentVariable[]).filter((name) => requestSettings[name] === 'request');
