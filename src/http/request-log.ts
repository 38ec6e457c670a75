// One structured log line per request (method, path, status, duration, and the GraphQL operation's name), and
// the HTTP duration metric. The request id comes with every line from the logger itself (src/logger.ts), or is
// given where the line is written outside the request's context (a kept answer sent at the Node edge).
import type { Plugin } from 'graphql-yoga';
import type { Logger } from 'pino';
import { type Metrics, methodLabel, routeLabel } from './metrics.js';

export interface Answered {
  method: string;
  path: string;
  status: number;
  seconds: number;
  operation?: string | undefined;
  requestId?: string;
}

/** Logs an answered request and times it in the HTTP duration metric. */
export type RecordRequest = (answered: Answered) => void;

export function requestRecorder(logger: Logger, metrics: Metrics): RecordRequest {
  return ({ method, path, status, seconds, operation, requestId }) => {
    metrics.http.observe({ method: methodLabel(method), route: routeLabel(path), status: String(status) }, seconds);
    const level = status >= 500 ? 'warn' : 'info';
    if (!logger.isLevelEnabled(level)) return;
    const line = {
      ...(requestId !== undefined && { requestId }),
      method,
      path,
      ...(operation !== undefined && { operation }),
      status,
      durationMs: Math.round(seconds * 10000) / 10,
    };
    logger[level](line, 'request');
  };
}

export function requestLogPlugin(record: RecordRequest): Plugin {
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
      record({
        method: request.method,
        path: new URL(request.url).pathname,
        status: response.status,
        seconds: (performance.now() - start) / 1000,
        operation: operations.get(request),
      });
    },
  };
}
