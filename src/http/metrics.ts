// GET /metrics in Prometheus text format: SQL statements executed, and request durations for HTTP and GraphQL.
// One registry per app, so several apps in one process (tests) never share counters.
import { getOperationAST } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { Counter, collectDefaultMetrics, Histogram, Registry } from 'prom-client';
import type { StatementObserver } from '../db/statements.js';

const BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5];

export function createMetrics(statements: StatementObserver) {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const dbQueries = new Counter({ name: 'db_queries_total', help: 'SQL statements executed.', registers: [registry] });
  statements.listen(() => dbQueries.inc());
  const http = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'Duration of HTTP requests, by method, route and status.',
    labelNames: ['method', 'route', 'status'],
    buckets: BUCKETS,
    registers: [registry],
  });
  const graphql = new Histogram({
    name: 'graphql_request_duration_seconds',
    help: 'Duration of GraphQL operations (parse to result), by operation name and outcome.',
    labelNames: ['operation', 'outcome'],
    buckets: BUCKETS,
    registers: [registry],
  });
  return { registry, http, graphql };
}

export type Metrics = ReturnType<typeof createMetrics>;

/** Routes as labels: known paths by name, everything else as "other", so label values stay few. */
export function routeLabel(pathname: string): string {
  return ['/graphql', '/healthz', '/metrics', '/v2/local-package-list/', '/v2/openapi.json'].includes(pathname)
    ? pathname
    : 'other';
}

export function metricsPlugin(metrics: Metrics): Plugin {
  return {
    async onRequest({ url, request, endResponse, fetchAPI }) {
      if (url.pathname !== '/metrics' || request.method !== 'GET') return;
      endResponse(
        new fetchAPI.Response(await metrics.registry.metrics(), {
          headers: { 'content-type': metrics.registry.contentType },
        }),
      );
    },
    onExecute({ args }) {
      const operation = getOperationAST(args.document, args.operationName)?.name?.value ?? 'anonymous';
      const stop = metrics.graphql.startTimer({ operation });
      return {
        onExecuteDone({ result }) {
          const failed = 'errors' in result && Array.isArray(result.errors) && result.errors.length > 0;
          stop({ outcome: failed ? 'error' : 'ok' });
        },
      };
    },
  };
}
