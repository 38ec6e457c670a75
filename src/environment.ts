// The environment variables: each one's type, range, default and meaning, in one zod schema. src/config.ts
// parses it into the typed `config`; src/config-docs.ts renders docs/configuration.md from it (`npm run
// docs:config`), so a variable's meaning is written here and nowhere else. Defaults are written as the variable
// would be (`.prefault('10')` for ten seconds), values accepted are the `accepts` meta of the helpers in
// src/environment-values.ts, and the meaning is `.describe()`, in Markdown whose links are relative to docs/.
import { z } from 'zod';
import { readKeyFile } from './api-keys.js';
import {
  apiKeys,
  flag,
  httpUrl,
  httpUrls,
  origins,
  postgresUrl,
  publicUrlAccepts,
  redisUrl,
  seconds,
  text,
  wholeNumber,
} from './environment-values.js';

export const environment = z.object({
  PORT: wholeNumber(0, 65535).prefault('4000').describe('HTTP port (`0` picks a free one)'),
  HOST: text('an interface address or host name')
    .prefault('127.0.0.1')
    .describe('interface to listen on (`0.0.0.0` for all)'),
  // Production is closed unless a setting opens it; development keeps a clone's `npm start` friendly. Each default
  // that differs names both, and why (src/config.ts applies them; docs/operations.md, "Production defaults").
  NODE_ENV: z
    .string()
    .trim()
    .meta({ accepts: '`production`, or anything else for development' })
    .optional()
    .describe(
      "`production` (the image's default) closes what development leaves open: introspection and GraphiQL, CORS for any site, `/metrics` on the public port, the v2 path's personal data without a key, and demo data; a start that would serve one of those without its setting saying so is refused in one line (see [Production defaults](operations.md#production-defaults)). Unset, as on a clone: development",
    ),
  METRICS_PORT: z
    .string()
    .trim()
    .regex(/^(public|off|\d+)$/, 'must be a whole number from 0 to 65535, `public` or `off`')
    .refine((value) => !/^\d+$/.test(value) || Number(value) <= 65535, 'must be a whole number from 0 to 65535')
    .transform((value) => (value === 'public' || value === 'off' ? value : Number(value)))
    .meta({
      accepts: 'a whole number from 0 to 65535 (`0` picks a free one), `public` or `off`',
      default: '`public` in development, `9464` in production',
    })
    .optional()
    .describe(
      "where `/metrics` is served: on this port of `HOST`, and then not on the public port, which a proxy then need not hide (9464 is Prometheus's registered port for such exporters); `public` beside `/graphql`, friendlier on a clone, where nothing is private to hide; `off` nowhere",
    ),
  DEMO: flag
    .meta({ default: '`true` in development, `false` in production' })
    .optional()
    .describe(
      '`true`: this instance serves a demo on purpose, so it may run on the embedded database (no `DATABASE_URL`) and load `SEED_PACKAGES` invented packages. Without it a production start refuses both: a misspelled `DATABASE_URL` would otherwise serve invented data and answer healthy',
    ),
  V2_PUBLIC: flag
    .meta({ default: '`true` in development, `false` in production' })
    .optional()
    .describe(
      '`true`: the v2 path is public on purpose. Its records carry `photographer_email` and `payments_user_id` (the legacy contract), so without `V2_API_KEYS` (or `V2_API_KEYS_FILE`) a start is refused unless this says so; ignored with keys',
    ),
  STOP_WITH_PARENT: flag
    .meta({ default: '`true` when npm started the process, else `false`' })
    .optional()
    .describe(
      '`true`: stop as on SIGTERM when the parent process exits (npm killed by SIGKILL leaves no server running unseen); `false`: keep running, as `nohup`, a double-forking supervisor or a logout expect',
    ),
  DATABASE_URL: postgresUrl
    .optional()
    .describe('use this PostgreSQL server instead of the embedded database (unset: the embedded PGlite)'),
  DATABASE_DIRECT_URL: postgresUrl
    .meta({ default: '`DATABASE_URL`' })
    .optional()
    .describe(
      'the primary itself, not through a pooler: migrations and the start-up lock, which need a session (see [Poolers](scaling.md#poolers))',
    ),
  DATABASE_REPLICA_URLS: z
    .string()
    .trim()
    .transform((value) =>
      value
        .split(',')
        .map((url) => url.trim())
        .filter(Boolean),
    )
    .pipe(z.array(postgresUrl).max(16, 'may list at most 16 replicas'))
    .meta({ accepts: 'postgres:// or postgresql:// URLs, comma-separated, at most 16' })
    .optional()
    .describe(
      'read replicas of `DATABASE_URL`: requests read from them while they keep up (see [Replicas](scaling.md#replicas))',
    ),
  DATABASE_POOLER: z
    .enum(['none', 'transaction'])
    .default('none')
    .describe(
      '`transaction` behind a pooler in transaction mode (PgBouncer): no statement prepared by name, no session settings (left unset there, the first refusal turns names off with a warning: see [Poolers](scaling.md#poolers))',
    ),
  REPLICA_MAX_LAG: seconds(0, 3600)
    .prefault('10')
    .describe("seconds a replica's listing may be behind the primary's before requests stop reading from it"),
  DATA_DIR: text('a directory path, or `memory://`')
    .prefault('./data')
    .describe('directory of the embedded database (ignored with `DATABASE_URL`); `memory://` keeps it in memory only'),
  SEED_PACKAGES: wholeNumber(0, 1_000_000)
    .meta({ default: '`2000` embedded, `0` on PostgreSQL' })
    .optional()
    .describe('demo packages loaded when the database is empty; on PostgreSQL only when set'),
  IMPORT_MAX_LINE_BYTES: wholeNumber(64 * 1024, 1024 ** 3)
    .prefault('16777216')
    .describe(
      '`npm run import` holds at most this many bytes of a source at once: a line of JSON Lines, a record of a file too large to be parsed whole, the answer of a URL. Past it the source fails in one line naming the line, record or URL, before more of it is read; a running server holds what the tool sends it to the same bound (see [Bounds](import.md#bounds))',
    ),
  IMPORT_MAX_SPOOL_BYTES: wholeNumber(1024 * 1024, 1024 ** 4)
    .prefault('2147483648')
    .describe(
      'bytes of one source a server on the embedded database takes from `npm run import`: it is spooled in `DATA_DIR` before the import, and refused past this, nothing of it written (see [While a server runs](import.md#while-a-server-runs)). A record takes some 9 kB: 2 GiB holds about 230,000; import a larger source with the server stopped',
    ),
  LOG_LEVEL: z
    .enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'])
    .default('info')
    .describe('the least severe lines logged'),
  LOG_FORMAT: z
    .enum(['auto', 'json', 'pretty'])
    .default('auto')
    .describe('`json` (one JSON object a line), `pretty` (readable), `auto` (pretty on a terminal, JSON otherwise)'),
  MIGRATE: z
    .enum(['auto', 'off'])
    .default('auto')
    .describe('`auto` applies pending migrations at start; `off` refuses to start on a database that is behind'),
  DATABASE_WAIT: seconds(0, 3600)
    .prefault('30')
    .describe('seconds a start waits for PostgreSQL to answer, saying so, before it gives up in one line'),
  DB_POOL_SIZE: wholeNumber(1, 1000).prefault('10').describe('connections to PostgreSQL'),
  DB_CONNECT_TIMEOUT: seconds(0.1, 600)
    .prefault('2')
    .describe('seconds to open a connection, or to wait for a free one'),
  DB_STATEMENT_TIMEOUT: seconds(0.1, 3600)
    .prefault('5')
    .describe(
      "seconds a read statement may run (PostgreSQL's `statement_timeout`, set on each connection; no statement starts after `REQUEST_TIMEOUT`)",
    ),
  DB_QUERY_TIMEOUT: seconds(0.1, 3600)
    .prefault('7')
    .describe("seconds the server waits for a statement's answer, for a database that stopped answering altogether"),
  DB_IDLE_TIMEOUT: seconds(1, 3600).prefault('30').describe('seconds an idle connection stays open'),
  DB_KEEPALIVE: seconds(0, 3600)
    .prefault('10')
    .describe('seconds of silence before TCP keepalive probes a connection; `0` turns them off'),
  SHUTDOWN_TIMEOUT: seconds(0, 3600)
    .prefault('25')
    .describe('seconds a stop waits for the requests in flight before it cuts their connections'),
  PUBLIC_URL: z
    .string()
    .trim()
    .refine((value) => {
      try {
        const url = new URL(value);
        return (url.protocol === 'http:' || url.protocol === 'https:') && !url.search && !url.hash;
      } catch {
        return false;
      }
    }, `must be ${publicUrlAccepts}`)
    .transform((value) => value.replace(/\/+$/, ''))
    .meta({ accepts: publicUrlAccepts })
    .optional()
    .describe('the address clients use; the v2 `next`/`previous` links are built on it (unset: the listening address)'),
  TRUST_PROXY: flag
    .prefault('false')
    .describe(
      '`true` behind a reverse proxy that sets `X-Forwarded-Proto`/`-Host`/`-For`: the links follow them, and rate limits count the address the proxy appended last to `X-Forwarded-For`',
    ),
  GRAPHQL_MAX_TOKENS: wholeNumber(100, 1_000_000)
    .prefault('3000')
    .describe('tokens in a GraphQL document; parsing stops there'),
  GRAPHQL_MAX_DEPTH: wholeNumber(1, 100)
    .prefault('15')
    .describe(
      "fields on the longest path of an operation: room for the web storefront's deepest query and another trip through a photographer's packages (see [What one request may cost](security.md#what-one-request-may-cost))",
    ),
  GRAPHQL_MAX_ALIASES: wholeNumber(0, 10_000).prefault('30').describe('aliases in an operation, fragments included'),
  GRAPHQL_MAX_DIRECTIVES: wholeNumber(0, 10_000)
    .prefault('20')
    .describe('directives in an operation, fragments included'),
  GRAPHQL_MAX_FIELDS: wholeNumber(10, 1_000_000)
    .prefault('1000')
    .describe('fields in an operation once every fragment spread is expanded'),
  GRAPHQL_MAX_COST: wholeNumber(10, 100_000_000)
    .prefault('60000')
    .describe(
      'fields times the list sizes they are served for (see [What one request may cost](security.md#what-one-request-may-cost))',
    ),
  GRAPHQL_INTROSPECTION: flag
    .meta({ default: '`true` in development, `false` in production' })
    .optional()
    .describe(
      '`false` turns off introspection, GraphiQL and "Did you mean" suggestions. Off in production: the schema names the private fields and every limit, and the clients that need it have it from codegen',
    ),
  PERSISTED_OPERATIONS: text('a file path')
    .optional()
    .describe("path of a persisted operations manifest (hash -> document, as codegen's client preset writes it)"),
  PERSISTED_OPERATIONS_ONLY: flag
    .prefault('false')
    .describe('`true`: run persisted operations only, refuse queries sent as text'),
  APQ_MAX_QUERIES: wholeNumber(0, 10_000_000)
    .prefault('10000')
    .describe(
      'documents registered by automatic persisted queries that an instance keeps in memory (see [Automatic persisted queries](graphql.md#automatic-persisted-queries)); `0` turns APQ off',
    ),
  APQ_MAX_BYTES: wholeNumber(64 * 1024, 4 * 1024 ** 3)
    .prefault('16777216')
    .describe('memory for those documents'),
  APQ_REGISTRATIONS: wholeNumber(0, 1_000_000)
    .prefault('100')
    .describe('new documents a client may register per minute (429 beyond); `0`: no bound'),
  APQ_TTL: seconds(1, 30 * 86_400)
    .prefault('86400')
    .describe('seconds a registered document is kept, in memory and in Redis'),
  APQ_MAX_DOCUMENT_BYTES: wholeNumber(1024, 10 * 1024 * 1024)
    .prefault('16384')
    .describe(
      "bytes (UTF-8) of a document registered by automatic persisted queries; a longer one gets 400 `QUERY_LIMIT_EXCEEDED` before it is hashed or kept. The largest document the project's clients send, a page with every field of a package, is 2.9 kB: 16 KiB leaves five times that for a storefront's own fragments, while comments and long strings, which `GRAPHQL_MAX_TOKENS` does not count, stop there",
    ),
  APQ_REDIS_MAX_BYTES: wholeNumber(0, 64 * 1024 ** 3)
    .prefault('67108864')
    .describe(
      'bytes of registered documents all instances keep in Redis within `APQ_TTL`, counted in Redis; past it a new document is kept in the memory of the instance that registered it only (its client is served) until older ones expire; `0`: none in Redis (see [What one caller may hold](security.md#what-one-caller-may-hold))',
    ),
  APQ_MAX_BYTES_PER_CALLER: wholeNumber(0, 64 * 1024 ** 3)
    .prefault('524288')
    .describe(
      'bytes of new documents one client (its API key, else its address) may have kept in Redis within `APQ_TTL`, counted there across instances: past it 429 `RATE_LIMITED` with `Retry-After`; `0`: no bound. A document counts a quarter more than its bytes, and 384 for its key and counters: 512 KiB is some 130 pages of every field, or 25 documents of `APQ_MAX_DOCUMENT_BYTES`',
    ),
  MAX_BODY_BYTES: wholeNumber(1024, 100 * 1024 * 1024)
    .prefault('102400')
    .describe('largest request body; larger ones get 413'),
  MAX_CONNECTIONS_PER_ADDRESS: wholeNumber(0, 1_000_000)
    .prefault('128')
    .describe(
      "connections one client address may hold open at once on an instance; past it the connection's request is answered 429 with `Retry-After` and the connection closed; `0`: no bound. Not applied with `TRUST_PROXY=true`, where every connection is the proxy's: bound clients there. A browser opens at most 6; 128 leaves room for a storefront's server-side connection pool or an office behind one address",
    ),
  FILTER_CACHE_BYTES: wholeNumber(0, 4 * 1024 ** 3)
    .prefault('33554432')
    .describe("memory for the filters' matching positions kept between requests (4 bytes a match)"),
  RESPONSE_CACHE_BYTES: wholeNumber(0, 16 * 1024 ** 3)
    .prefault('67108864')
    .describe('memory for cached answers (see [Caching](operations.md#caching)); `0` turns the response cache off'),
  SEED_POOL: wholeNumber(0, 1_000_000)
    .prefault('256')
    .describe(
      'a request without `seed` draws one of this many seeds, drawn afresh for each listing version, so first pages can be cached and shared (visitors may share an order); `0`: a seed of its own for every request, never cached',
    ),
  CACHE_CONTROL: z
    .string()
    .regex(/^[\x20-\x7e]{1,200}$/, 'must be a Cache-Control header value')
    .meta({ accepts: 'a Cache-Control header value (printable ASCII, at most 200 characters)' })
    .default('public, max-age=5, stale-while-revalidate=30')
    .describe('`Cache-Control` of cacheable anonymous answers'),
  REQUEST_TIMEOUT: seconds(0.1, 600)
    .prefault('10')
    .describe(
      'seconds an operation may take; then it is answered with a timeout error (GraphQL 504 `TIMEOUT`, v2 503)',
    ),
  LISTING_WATCH_INTERVAL: seconds(0.05, 3600)
    .prefault('1')
    .describe(
      "seconds between each instance's reads of the listing version: a new version is told to subscriptions and CDN purges, and what the instance keeps per version is read ahead of requests",
    ),
  STALE_IF_ERROR: wholeNumber(0, 86_400)
    .prefault('0')
    .describe(
      "seconds after the listing's version was last read that a kept answer is still served while the database is away (`X-Cache: stale` with its `Age`), instead of 503; 0: never. Off by default: serving a listing that may have changed since is the operator's choice; the Kubernetes manifest sets 300 (see [When the database is slow or gone](operations.md#when-the-database-is-slow-or-gone))",
    ),
  CDN_MAX_AGE: wholeNumber(0, 31_536_000)
    .prefault('86400')
    .describe(
      'seconds a CDN may keep an anonymous answer (`Surrogate-Control: max-age`); a purge ends it sooner (see [A CDN in front](scaling.md#a-cdn-in-front))',
    ),
  PURGE_URLS: httpUrls
    .prefault('')
    .describe(
      "URLs each POSTed the surrogate keys of the versions a new listing version superseded, when it is seen (Varnish's `/.xkey-purge`, or an adapter to a CDN's purge API)",
    ),
  SSE_MAX_CONNECTIONS: wholeNumber(0, 100_000)
    .prefault('1000')
    .describe(
      '`listingChanged` streams (Server-Sent Events) open at once per instance; past it a 503; `0` refuses them all',
    ),
  SSE_MAX_PER_CALLER: wholeNumber(0, 100_000)
    .prefault('10')
    .describe(
      '`listingChanged` streams one client (its API key, else its address) may hold open at once on an instance; past it a 429 with `Retry-After`, so that one client cannot take the room `SSE_MAX_CONNECTIONS` leaves everyone; `0`: no bound of its own. A page needs one stream; 10 leaves room for a few tabs, or a few people behind one address',
    ),
  CORS_ORIGINS: origins
    .meta({ default: '`*` in development; none in production, where a start without it is refused' })
    .optional()
    .describe(
      "origins browsers may call `/graphql` from: `*` (any site, without credentials) or exact origins (credentials allowed). Production asks for the list, or `*` said on purpose: a storefront's sites are the operator's to name",
    ),
  API_KEYS: apiKeys(true).optional().describe('keys for GraphQL (see [API keys](security.md#api-keys))'),
  V2_API_KEYS: apiKeys(false)
    .optional()
    .describe('when set, the v2 path answers only requests carrying one of these keys'),
  // Keys from a file, read again at run time: see src/api-keys.ts (the file is read and checked here, at start).
  API_KEYS_FILE: text('a file path')
    .transform((path, ctx) => {
      const keys = readKeyFile(path, true);
      if (typeof keys === 'string') ctx.addIssue({ code: 'custom', message: keys });
      return typeof keys === 'string' ? z.NEVER : { path, keys };
    })
    .meta({ accepts: 'a file of `API_KEYS` entries, one a line or comma-separated; `#` begins a comment line' })
    .optional()
    .describe(
      'instead of `API_KEYS`: read again on SIGHUP and when the file changes, so keys are added and removed without a restart, and one name may carry two keys while clients move to the new one (see [Rotating an API key](operations.md#rotating-an-api-key)); a bad file keeps the keys in use and logs one error line',
    ),
  V2_API_KEYS_FILE: text('a file path')
    .transform((path, ctx) => {
      const keys = readKeyFile(path, false);
      if (typeof keys === 'string') ctx.addIssue({ code: 'custom', message: keys });
      return typeof keys === 'string' ? z.NEVER : { path, keys };
    })
    .meta({ accepts: 'a file of `V2_API_KEYS` entries, one a line or comma-separated; `#` begins a comment line' })
    .optional()
    .describe('instead of `V2_API_KEYS`, read again as `API_KEYS_FILE` is'),
  RATE_LIMIT: wholeNumber(0, 1_000_000_000)
    .prefault('600')
    .describe('requests per client per `RATE_LIMIT_WINDOW` on `/graphql` and the v2 path; `0` turns it off'),
  RATE_LIMIT_WINDOW: seconds(1, 86_400).prefault('60').describe('the window of `RATE_LIMIT`, in seconds'),
  REDIS_URL: redisUrl
    .optional()
    .describe('rate limits and cached answers shared by every instance using it (in memory per instance otherwise)'),
  REDIS_TIMEOUT: seconds(0.001, 10)
    .prefault('0.05')
    .describe(
      'seconds a Redis command may take; past it the request goes on without Redis (see [Caching](operations.md#caching))',
    ),
  // OpenTelemetry's own variables, the ones that turn tracing on (the exporter reads the rest itself).
  OTEL_EXPORTER_OTLP_ENDPOINT: httpUrl
    .optional()
    .describe(
      'an OTLP/HTTP collector: OpenTelemetry traces on, sent to `<endpoint>/v1/traces` (see [Tracing](operations.md#tracing)); unset: no tracing',
    ),
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: httpUrl
    .optional()
    .describe("the collector's traces endpoint as given, instead of `OTEL_EXPORTER_OTLP_ENDPOINT`"),
  OTEL_SERVICE_NAME: text('any non-empty text')
    .prefault('package-listing-gateway')
    .describe('the service name on every span'),
});
