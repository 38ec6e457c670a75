// One structured log line per request (method, path, status, duration, and the GraphQL operation's name), and
// the HTTP duration metric. The request id comes with every line from the logger itself (src/logger.ts).
import type { Plugin } from 'graphql-yoga';
import type { Logger } from 'pino';
import { type Metrics, methodLabel, routeLabel } from './metrics.js';

export function requestLogPlugin(logger: Logger, metrics: Metrics): Plugin {
  const started = new WeakMap<Request, number>();
  const operations = new WeakMap<Request, string>();
  return {
    onRequest({ request }) {
      started.set(request, performance.now());
    },
    onParams({ request, params }) {
      // The client chooses the name: cut to a sensible length before it goes into a log line.
      if (typeof params.operationName === 'string') operations.set(request, params.operationName.slice(0, 100));
    },
    onResponse({ request, response }) {
      const start = started.get(request);
      if (start === undefined) return;
      const seconds = (performance.now() - start) / 1000;
      const path = new URL(request.url).pathname;
      metrics.http.observe(
        { method: methodLabel(request.method), route: routeLabel(path), status: String(response.status) },
        seconds,
      );
      const line = {
        method: request.method,
        path,
        ...(operations.has(request) && { operation: operations.get(request) }),
        status: response.status,
        durationMs: Math.round(seconds * 10000) / 10,
      };
      if (response.status >= 500) logger.warn(line, 'request');
      else logger.info(line, 'request');
    },
  };
}
