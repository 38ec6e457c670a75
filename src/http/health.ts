// GET /healthz (readiness): {"status":"ok"} when the database answers within a second; 503 with the reason when it
// does not, when the data directory is gone or read-only, or while the server is stopping (so a load balancer
// stops sending requests). GET /livez (liveness): 200 as long as the process can answer at all: restarting it
// would not bring a database back. With REDIS_URL, /healthz also says how Redis is (`"redis":"ok"`, `degraded`:
// late or failing, `unreachable`), and stays 200 whatever it is: without Redis the instance still serves.
import type { Plugin } from 'graphql-yoga';
import type { SharedRedis } from './redis.js';
import { onlyGetAndHead } from './refusals.js';
import { HEALTH_PATH, LIVE_PATH } from './routes.js';

export interface HealthOptions {
  /** Why the database cannot serve, or null; answers within the given time. */
  database: (timeoutMs: number) => Promise<string | null>;
  /** The shared Redis, when configured: reported, never a reason to refuse traffic (it only saves work). */
  redis?: Pick<SharedRedis, 'state'>;
  /** True once the server has begun to stop. */
  stopping: () => boolean;
}

const HEALTH_TIMEOUT_MS = 1000;

export function healthRoutes({ database, redis, stopping }: HealthOptions): Plugin {
  return {
    async onRequest({ url, request, endResponse, fetchAPI }) {
      if (url.pathname !== HEALTH_PATH && url.pathname !== LIVE_PATH) return;
      const refused = onlyGetAndHead(fetchAPI.Response, request);
      if (refused) return endResponse(refused);
      let status = 200;
      let body: Record<string, string> = { status: url.pathname === LIVE_PATH ? 'alive' : 'ok' };
      if (url.pathname === HEALTH_PATH) {
        const reason = stopping() ? 'the server is stopping' : await database(HEALTH_TIMEOUT_MS);
        if (reason) {
          status = 503;
          body = { status: 'unavailable', reason };
        }
        if (redis) body.redis = redis.state();
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
