// GET /healthz (readiness): {"status":"ok","version":...} when the database answers within a second; 503 with the
// reason when it does not, when the data directory is gone or read-only, or while the server is stopping (so a load
// balancer stops sending requests). GET /readyz (readiness where every instance shares one database, as in
// Kubernetes): 200 until the server stops, the database's state in its body: an outage of the one database would
// take every instance out of the balancer at once, and clients would get the balancer's error instead of the
// gateway's answers (kept answers within STALE_IF_ERROR, else 503 with Retry-After). GET /livez (liveness): 200 as
// long as the process can answer at all: restarting it would not bring a database back. With REDIS_URL, /healthz also says how Redis is (`"redis":"ok"`, `degraded`:
// late or failing, `unreachable`), and stays 200 whatever it is: without Redis the instance still serves. With
// read replicas it lists each database by role: reachable, serving requests, lag.
//
// An outage of the database is logged once when it begins and once when it ends, from the same check: each
// /healthz asks it, and so does a watch every OUTAGE_WATCH_MS while nothing else has (an instance no balancer
// probes still says when its database went and came back).
import type { Plugin } from 'graphql-yoga';
import type { Logger } from 'pino';
import { buildInfo } from '../build-info.js';
import type { DatabaseStatus } from '../db/replicas.js';
import type { SharedRedis } from './redis.js';
import { onlyGetAndHead } from './refusals.js';
import { HEALTH_PATH, LIVE_PATH, READY_PATH } from './routes.js';

export interface HealthOptions {
  /** Why the database cannot serve, or null; answers within the given time. */
  database: (timeoutMs: number) => Promise<string | null>;
  /** Each database by role when there are replicas (src/db/replicas.ts): reported with /healthz. */
  databases?: () => DatabaseStatus[];
  /** The shared Redis, when configured: reported, never a reason to refuse traffic (it only saves work). */
  redis?: Pick<SharedRedis, 'state'>;
  /** True once the server has begun to stop. */
  stopping: () => boolean;
  /** Where the database's outages and recoveries are logged; without it they are not watched. */
  logger?: Logger;
}

/** How long /healthz waits for the database's answer; a balancer's check must wait longer than this. */
export const HEALTH_TIMEOUT_MS = 1000;

/** How often the outage watch asks the database when no /healthz has in that time. */
export const OUTAGE_WATCH_MS = 5000;

export const OUTAGE_BEGAN = 'database unavailable: requests are answered 503 until it is back';
export const OUTAGE_ENDED = 'database back: requests are answered again';

export interface OutageWatch {
  /** Asks the database (within HEALTH_TIMEOUT_MS): why it cannot serve, or null. */
  ask(): Promise<string | null>;
  stop(): void;
}

/**
 * The database's health, asked through `ask` or every `everyMs` when nothing asked meanwhile: the first failing
 * answer after a good one (or the start) is logged at warn with its reason, the first good one after it at info
 * with how long it lasted. Answers are taken in the order they were asked, so a slow one cannot undo a later one.
 */
export function watchOutages(
  check: HealthOptions['database'],
  logger: Logger,
  stopping: () => boolean,
  everyMs = OUTAGE_WATCH_MS,
): OutageWatch {
  let asked = 0;
  let heard = 0;
  let lastAsked = performance.now();
  let outage: { since: number; reason: string } | null = null;
  const ask = async () => {
    const order = ++asked;
    lastAsked = performance.now();
    const reason = await check(HEALTH_TIMEOUT_MS);
    if (order > heard && !stopping()) {
      heard = order;
      if (reason !== null && !outage) {
        outage = { since: performance.now(), reason };
        logger.warn({ reason }, OUTAGE_BEGAN);
      } else if (reason === null && outage) {
        const outageSeconds = Math.round((performance.now() - outage.since) / 100) / 10;
        logger.info({ outageSeconds, reason: outage.reason }, OUTAGE_ENDED);
        outage = null;
      }
    }
    return reason;
  };
  const timer = setInterval(() => {
    if (!stopping() && performance.now() - lastAsked >= everyMs) void ask();
  }, everyMs);
  timer.unref();
  return { ask, stop: () => clearInterval(timer) };
}

export function healthRoutes({ database, databases, redis, stopping, logger }: HealthOptions): Plugin {
  // Watched only where its lines can be seen (a silent logger: tests, tools).
  const watch = logger?.isLevelEnabled('warn') ? watchOutages(database, logger, stopping) : undefined;
  const check = watch ? watch.ask : () => database(HEALTH_TIMEOUT_MS);
  return {
    async onRequest({ url, request, endResponse, fetchAPI }) {
      if (url.pathname !== HEALTH_PATH && url.pathname !== LIVE_PATH && url.pathname !== READY_PATH) return;
      const refused = onlyGetAndHead(fetchAPI.Response, request);
      if (refused) return endResponse(refused);
      let status = 200;
      let body: Record<string, unknown> = { status: url.pathname === LIVE_PATH ? 'alive' : 'ok' };
      if (url.pathname === READY_PATH) {
        const reason = stopping() ? null : await check();
        status = stopping() ? 503 : 200;
        body = stopping()
          ? { status: 'unavailable', reason: 'the server is stopping' }
          : { status: reason ? 'degraded' : 'ok', database: reason ?? 'ok', version: buildInfo().version };
      } else if (url.pathname === HEALTH_PATH) {
        const reason = stopping() ? 'the server is stopping' : await check();
        if (reason) {
          status = 503;
          body = { status: 'unavailable', reason };
        }
        body.version = buildInfo().version;
        if (redis) body.redis = redis.state();
        const statuses = databases?.() ?? [];
        if (statuses.length > 0) {
          body.databases = statuses.map(({ role, reachable, serving, lagSeconds }) => ({
            role,
            reachable,
            serving,
            ...(lagSeconds === null ? {} : { lagSeconds: Math.round(lagSeconds * 10) / 10 }),
          }));
        }
      }
      endResponse(
        new fetchAPI.Response(request.method === 'HEAD' ? null : JSON.stringify(body), {
          status,
          headers: { 'content-type': 'application/json', 'cache-control': 'no-store' },
        }),
      );
    },
    onDispose: () => watch?.stop(),
  };
}
