// GET /healthz (readiness): {"status":"ok","version":...} when the database answers within a second; 503 with the
// reason when it does not, when the data directory is gone or read-only, or while the server is stopping (so a load
// balancer stops sending requests). GET /livez (liveness): 200 as long as the process can answer at all: restarting
// it would not bring a database back. With REDIS_URL, /healthz also says how Redis is (`"redis":"ok"`, `degraded`:
// late or failing, `unreachable`), and stays 200 whatever it is: without Redis the instance still serves. With
// read replicas it lists each database by role: reachable, serving requests, lag.
import type { Plugin } from 'graphql-yoga';
import { buildInfo } from '../build-info.js';
import type { DatabaseStatus } from '../db/replicas.js';
import type { SharedRedis } from './redis.js';
import { onlyGetAndHead } from './refusals.js';
import { HEALTH_PATH, LIVE_PATH } from './routes.js';

export interface HealthOptions {
  /** Why the database cannot serve, or null; answers within the given time. */
  database: (timeoutMs: number) => Promise<string | null>;
  /** Each database by role when there are replicas (src/db/replicas.ts): reported with /healthz. */
  databases?: () => DatabaseStatus[];
  /** The shared Redis, when configured: reported, never a reason to refuse traffic (it only saves work). */
  redis?: Pick<SharedRedis, 'state'>;
  /** True once the server has begun to stop. */
  stopping: () => boolean;
}

/** How long /healthz waits for the database's answer; a balancer's check must wait longer than this. */
export const HEALTH_TIMEOUT_MS = 1000;

export function healthRoutes({ database, databases, redis, stopping }: HealthOptions): Plugin {
  return {
    async onRequest({ url, request, endResponse, fetchAPI }) {
      if (url.pathname !== HEALTH_PATH && url.pathname !== LIVE_PATH) return;
      const refused = onlyGetAndHead(fetchAPI.Response, request);
      if (refused) return endResponse(refused);
      let status = 200;
      let body: Record<string, unknown> = { status: url.pathname === LIVE_PATH ? 'alive' : 'ok' };
      if (url.pathname === HEALTH_PATH) {
        const reason = stopping() ? 'the server is stopping' : await database(HEALTH_TIMEOUT_MS);
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
  };
}
