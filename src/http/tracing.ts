// The HTTP request as the root span of its trace (when tracing is on: src/tracing.ts): an incoming W3C
// `traceparent` is continued, the span is active while the request is handled (the GraphQL phases, SQL statements
// and cache lookups are its children, src/graphql/tracing.ts), and it ends with the response's status.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { context, propagation, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import { tracer } from '../tracing.js';
import { resolveTarget } from './edge.js';

type NodeHandler = (request: IncomingMessage, response: ServerResponse) => unknown;

export function traceRequests(handler: NodeHandler): NodeHandler {
  return (request, response) => {
    const parent = propagation.extract(context.active(), request.headers);
    const route = resolveTarget(request.url)?.path;
    const method = request.method ?? 'GET';
    const span = tracer.startSpan(
      route ? `${method} ${route}` : method,
      {
        kind: SpanKind.SERVER,
        attributes: { 'http.request.method': method, ...(route && { 'http.route': route, 'url.path': route }) },
      },
      parent,
    );
    response.once('close', () => {
      span.setAttribute('http.response.status_code', response.statusCode);
      if (response.statusCode >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
      span.end();
    });
    return context.with(trace.setSpan(parent, span), () => handler(request, response));
  };
}
