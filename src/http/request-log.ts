// One structured log line per request (method, path, status, duration), and the HTTP duration metric.
import type { Plugin } from 'graphql-yoga';
import type { Logger } from 'pino';
import { type Metrics, routeLabel } from './metrics.js';

export function requestLogPlugin(logger: Logger, metrics: Metrics): Plugin {
  const started = new WeakMap<Request, number>();
  return {
    onRequest({ request }) {
      started.set(request, performance.now());
    },
    onResponse({ request, response }) {
      const start = started.get(request);
      if (start === undefined) return;
      const seconds = (performance.now() - start) / 1000;
      const path = new URL(request.url).pathname;
      metrics.http.observe(
        { method: request.method, route: routeLabel(path), status: String(response.status) },
        seconds,
      );
      logger.info(
        { method: request.method, path, status: response.status, durationMs: Math.round(seconds * 10000) / 10 },
        'request',
      );
    },
  };
}
