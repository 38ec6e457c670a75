// GET /metrics in Prometheus text format: SQL statements executed, and request durations for HTTP and GraphQL.
// One registry per app, so several apps in one process (tests) never share counters. Every label value comes
// from a closed set (routes, "other" for any path of none of ours, the project's own operation names), so no
// client can grow the registry. The faults no code handled are the process's, not an app's: every registry reads
// the one count (src/lifecycle.ts). So are the build (build_info) and the memory the process may use.
import { totalmem } from 'node:os';
import { getOperationAST } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';
import { buildInfo } from '../build-info.js';
import type { PoolerStatus } from '../db/named-statements.js';
import type { DatabaseStatus, PoolGauges } from '../db/replicas.js';
import type { StatementObserver } from '../db/statements.js';
import { processFaults } from '../lifecycle.js';
import type { SharedRedis } from './redis.js';
import { onlyGetAndHead } from './refusals.js';
import { METRICS_PATH, ROUTES } from './routes.js';

const BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5];

/** What the metrics read of the database layer (src/db/client.ts's Database has all of it). */
export interface MeteredDatabase {
  statements: StatementObserver;
  /** The connection pool's gauges (PostgreSQL only). */
  pool?: PoolGauges | null;
  /** Each database with replicas; empty without them. */
  statuses?: () => DatabaseStatus[];
  poolers?: () => PoolerStatus[];
  /** Why the database cannot serve now, or null: asked at scrape time when there are no replicas' watches. */
  health?: (timeoutMs: number) => Promise<string | null>;
}

/** A scrape waits at most this long for the primary's answer (the same bound as /healthz). */
const SCRAPE_HEALTH_TIMEOUT_MS = 1000;

/** Counters that read their totals, kept elsewhere, at each scrape: [name, help, the total's key] each. */
function countersOf<K extends string>(
  registry: Registry,
  totals: () => Record<K, number>,
  counters: readonly (readonly [string, string, K])[],
): void {
  for (const [name, help, key] of counters) {
    new Counter({
      name,
      help,
      registers: [registry],
      collect() {
        this.reset();
        this.inc(totals()[key]);
      },
    });
  }
}

export function createMetrics(database: MeteredDatabase, redis?: Pick<SharedRedis, 'state' | 'counts'>) {
  const { statements, pool = null, statuses: databases = () => [], poolers = () => [], health } = database;
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const dbQueries = new Counter({ name: 'db_queries_total', help: 'SQL statements executed.', registers: [registry] });
  statements.listen(() => dbQueries.inc());
  const dbDuration = new Histogram({
    name: 'db_query_duration_seconds',
    help: "Duration of the read path's SQL statements.",
    buckets: BUCKETS,
    registers: [registry],
  });
  statements.listenDurations((seconds) => dbDuration.observe(seconds));
  if (pool) {
    // Each database by role: the primary alone, or with its replicas (src/db/replicas.ts), whose watch says
    // whether each answers. Without replicas there is no watch: the primary is asked at scrape time, so db_up
    // and db_serving say when it is gone (the alert on a database down reads them).
    const primaryAlone = (reachable: boolean): DatabaseStatus[] => [
      { role: 'primary', pool, reachable, serving: reachable, lagSeconds: null, routed: 0 },
    ];
    const withPrimary = () => {
      const statuses = databases();
      return statuses.length > 0 ? statuses : primaryAlone(true);
    };
    const checked = async () => {
      const statuses = databases();
      if (statuses.length > 0 || !health) return statuses;
      return primaryAlone((await health(SCRAPE_HEALTH_TIMEOUT_MS)) === null);
    };
    for (const [name, help, read, of] of [
      [
        'db_pool_connections',
        'Connections the pool holds (in use and idle), by database.',
        (d) => d.pool.total(),
        withPrimary,
      ],
      ['db_pool_idle_connections', 'Connections the pool holds idle, by database.', (d) => d.pool.idle(), withPrimary],
      [
        'db_pool_waiting_requests',
        'Requests waiting for a connection, by database.',
        (d) => d.pool.waiting(),
        withPrimary,
      ],
      [
        'db_up',
        'Whether the database answers (replicas: its last watch), by database.',
        (d) => Number(d.reachable),
        checked,
      ],
      ['db_serving', 'Whether requests read from the database now, by database.', (d) => Number(d.serving), checked],
      [
        'db_replica_lag_seconds',
        "Seconds a replica's listing version has been behind the primary's.",
        (d) => d.lagSeconds ?? 0,
        databases,
      ],
    ] as [string, string, (d: DatabaseStatus) => number, () => DatabaseStatus[] | Promise<DatabaseStatus[]>][]) {
      new Gauge({
        name,
        help,
        labelNames: ['role'],
        registers: [registry],
        async collect() {
          for (const status of await of()) this.set({ role: status.role }, read(status));
        },
      });
    }
    new Counter({
      name: 'db_routed_requests_total',
      help: 'Requests whose reads were sent to the database (with replicas), by database.',
      labelNames: ['role'],
      registers: [registry],
      collect() {
        this.reset();
        for (const status of databases()) this.inc({ role: status.role }, status.routed);
      },
    });
  }
  // A counter, not a gauge of names on or off: names are off by configuration too (DATABASE_POOLER), and what
  // wants an operator's attention is the finding, once per database and process (an alert on its increase).
  new Counter({
    name: 'db_pooler_detected_total',
    help: 'Poolers in transaction mode found where DATABASE_POOLER=transaction was not set (statement names then turned off), by database.',
    labelNames: ['role'],
    registers: [registry],
    collect() {
      this.reset();
      for (const status of poolers()) this.inc({ role: status.role }, Number(status.detected));
    },
  });
  if (redis) {
    new Gauge({
      name: 'redis_up',
      help: 'Whether the shared Redis answers in time (1) or is late, failing or unreachable (0).',
      registers: [registry],
      collect() {
        this.set(redis.state() === 'ok' ? 1 : 0);
      },
    });
    countersOf(registry, () => redis.counts(), [
      ['redis_commands_failed_total', 'Redis commands given up on: late past REDIS_TIMEOUT, or failed.', 'failed'],
      ['redis_commands_skipped_total', 'Redis commands not sent because Redis was away or late.', 'skipped'],
    ]);
  }
  // Which build runs where: `build_info * on (instance) group_left (version) ...` names it beside any series.
  const build = buildInfo();
  new Gauge({
    name: 'build_info',
    help: "The build this instance runs: package.json's version, the commit it was built from, the Node.js version; always 1.",
    labelNames: ['version', 'commit', 'node'],
    registers: [registry],
  }).set({ version: build.version, commit: build.commit, node: build.node }, 1);
  new Gauge({
    name: 'process_memory_limit_bytes',
    help: "Memory the process may take before it is killed: its cgroup's limit (memory.max, the one Node sizes its heap from), else the machine's memory.",
    registers: [registry],
    collect() {
      this.set(memoryLimit());
    },
  });
  // Zero from the start, so the first fault is an increase the alert sees.
  countersOf(registry, processFaults, [
    [
      'process_unhandled_rejections_total',
      'Promises rejected with nothing to handle them (logged at error; the process goes on).',
      'unhandledRejections',
    ],
    [
      'process_uncaught_exceptions_total',
      'Exceptions nothing caught (logged at fatal; the process then stops as on SIGTERM and exits 1).',
      'uncaughtExceptions',
    ],
  ]);
  const http = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'Duration of HTTP requests, by method, route and status.',
    labelNames: ['method', 'route', 'status'],
    buckets: BUCKETS,
    registers: [registry],
  });
  const graphql = new Histogram({
    name: 'graphql_request_duration_seconds',
    help: 'Duration of GraphQL operations (execution), by operation (the project\'s own operation names, else "other") and outcome.',
    labelNames: ['operation', 'outcome'],
    buckets: BUCKETS,
    registers: [registry],
  });
  const cache = new Counter({
    name: 'response_cache_answers_total',
    help: 'Answers the response cache looked up, by route and result (hit: kept bytes; miss: made and kept).',
    labelNames: ['route', 'result'],
    registers: [registry],
  });
  return { registry, http, graphql, cache };
}

export type Metrics = ReturnType<typeof createMetrics>;

/**
 * The container's memory limit as Node reads it (libuv: the cgroup's memory.max on v2, memory.limit_in_bytes on
 * v1, for the process's own cgroup); the machine's memory where there is none (Node then says 0, or a number past
 * the machine's, "max").
 */
export function memoryLimit(): number {
  const machine = totalmem();
  const constrained = process.constrainedMemory?.() ?? 0;
  return constrained > 0 && constrained < machine ? constrained : machine;
}

/** The subscription streams open now, as a gauge (src/http/event-streams.ts). */
export function countEventStreams(metrics: Metrics, streams: { open(): number }): void {
  new Gauge({
    name: 'graphql_event_streams',
    help: 'Subscription streams (Server-Sent Events) open now.',
    registers: [metrics.registry],
    collect() {
      this.set(streams.open());
    },
  });
}

const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);

/** The route label of every path that is none of ours (each answered 404 by the Node edge). */
export const OTHER_ROUTE = 'other';

/** Routes as labels: known paths by name, everything else as "other", so label values stay few. */
export function routeLabel(pathname: string): string {
  return (ROUTES as readonly string[]).includes(pathname) ? pathname : OTHER_ROUTE;
}

export function methodLabel(method: string): string {
  return METHODS.has(method) ? method : 'other';
}

/** `knownOperations`: the operation names that get a label of their own; any other name is "other". */
export function metricsPlugin(metrics: Metrics, knownOperations: ReadonlySet<string>): Plugin {
  return {
    async onRequest({ url, request, endResponse, fetchAPI }) {
      if (url.pathname !== METRICS_PATH) return;
      const refused = onlyGetAndHead(fetchAPI.Response, request);
      if (refused) return endResponse(refused);
      endResponse(
        new fetchAPI.Response(request.method === 'HEAD' ? null : await metrics.registry.metrics(), {
          headers: { 'content-type': metrics.registry.contentType },
        }),
      );
    },
    onExecute({ args }) {
      const name = getOperationAST(args.document, args.operationName)?.name?.value;
      const stop = metrics.graphql.startTimer({ operation: name && knownOperations.has(name) ? name : 'other' });
      return {
        onExecuteDone({ result }) {
          const failed = 'errors' in result && Array.isArray(result.errors) && result.errors.length > 0;
          stop({ outcome: failed ? 'error' : 'ok' });
        },
      };
    },
  };
}
