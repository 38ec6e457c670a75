// One structured log line per request (method, path, status, duration, the GraphQL operation's name, and who
// called: the API key's name, never the key, and the client's address as the rate limits see it), and the HTTP
// duration metric. Every door records with this one function: the app's plugin, the Node edge's hits and plain
// queries, and what the edge answers itself (a path of none of ours: 404; a refusal). The probes and the scrape
// (/healthz, /livez, /metrics) are logged at debug: counted in the metric all the same, but a probe every few
// seconds is noise in the log. The request id comes with every line from the logger itself (src/logger.ts), or is
// given where the line is written outside the request's context (at the Node edge).
import type { Plugin } from 'graphql-yoga';
import type { Logger } from 'pino';
import { type Caller, type CallerOf, keyName, type ServerContext } from './callers.js';
import { type Metrics, methodLabel, routeLabel } from './metrics.js';
import type { RequestHead } from './request-head.js';
import { HEALTH_PATH, LIVE_PATH, METRICS_PATH, READY_PATH } from './routes.js';

export interface Answered {
  method: string;
  /** The route's path, or the path of a request target that is none of ours (see `loggedPath`). */
  path: string;
  status: number;
  seconds: number;
  operation?: string | undefined;
  requestId?: string;
  /** Who called, as the door identified it... */
  caller?: Caller;
  /** ...or the request to identify it from, where the door did not. */
  from?: { head: RequestHead; server?: ServerContext };
}

/** Logs an answered request and times it in the HTTP duration metric. */
export type RecordRequest = (answered: Answered) => void;

/** The routes asked over and over by machines: the probes and the scrape. */
const QUIET_ROUTES: ReadonlySet<string> = new Set([HEALTH_PATH, LIVE_PATH, READY_PATH, METRICS_PATH]);

/** The longest path a line shows; a longer one is cut, with an ellipsis. */
const MAX_LOGGED_PATH = 200;

/**
 * A request target as a log line shows it: its path alone (a query may carry anything, a token included), each
 * character that is not printable ASCII written as %XX (or %uXXXX), at most MAX_LOGGED_PATH characters.
 */
export function loggedPath(target: string): string {
  const mark = target.indexOf('?');
  const path = mark < 0 ? target : target.slice(0, mark);
  const cut = path.length > MAX_LOGGED_PATH ? path.slice(0, MAX_LOGGED_PATH) : path;
  const shown = cut.replace(/[^\x21-\x7e]/g, (c) => {
    const code = c.charCodeAt(0);
    return code <= 0xff
      ? `%${code.toString(16).toUpperCase().padStart(2, '0')}`
      : `%u${code.toString(16).padStart(4, '0')}`;
  });
  return cut === path ? shown : `${shown}…`;
}

/**
 * `callerOf`: who calls, for the lines whose door passes `from` rather than `caller` (the app's own CallerOf, which
 * remembers each request's answer: asked again here, it costs nothing).
 */
export function requestRecorder(logger: Logger, metrics: Metrics, callerOf?: CallerOf): RecordRequest {
  return ({ method, path, status, seconds, operation, requestId, caller, from }) => {
    metrics.http.observe({ method: methodLabel(method), route: routeLabel(path), status: String(status) }, seconds);
    const quiet = QUIET_ROUTES.has(path);
    // A probe's 503 is the readiness it reports (the outage itself is logged once: src/http/health.ts).
    const level = status >= 500 && !(quiet && status === 503) ? 'warn' : quiet ? 'debug' : 'info';
    if (!logger.isLevelEnabled(level)) return;
    const who = caller ?? (from && callerOf?.(from.head, from.server));
    const key = who && keyName(who);
    const line = {
      ...(requestId !== undefined && { requestId }),
      method,
      path,
      ...(operation !== undefined && { operation }),
      status,
      durationMs: Math.round(seconds * 10000) / 10,
      ...(key !== undefined && { key }),
      ...(who && { address: who.address }),
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
    onResponse({ request, response, serverContext }) {
      const start = started.get(request);
      if (start === undefined) return;
      record({
        method: request.method,
        path: new URL(request.url).pathname,
        status: response.status,
        seconds: (performance.now() - start) / 1000,
        operation: operations.get(request),
        from: { head: request, server: serverContext as ServerContext },
      });
    },
  };
}
