// An OTLP/HTTP receiver in this process, and tracing started towards it (src/tracing.ts), for tests that look at
// the spans an app in this process exports. Start it before the app: the GraphQL phases are traced only in apps
// made while tracing is on.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startTracing } from '../../src/tracing.js';

type OtlpAttribute = { key: string; value: Record<string, unknown> };

export interface ExportedSpan {
  traceId: string;
  spanId: string;
  name: string;
  /** Each attribute's value as exported (numbers may come as strings). */
  attributes: Record<string, unknown>;
  events: { name: string; attributes: Record<string, unknown> }[];
}

export interface OtlpReceiver {
  spans(): ExportedSpan[];
  /** The spans once `found` holds of them, or what there is after `timeoutMs`. */
  waitFor(found: (spans: ExportedSpan[]) => boolean, timeoutMs?: number): Promise<ExportedSpan[]>;
  close(): Promise<void>;
}

const flat = (attributes: OtlpAttribute[] = []) =>
  Object.fromEntries(attributes.map(({ key, value }) => [key, Object.values(value)[0]]));

export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const spans: ExportedSpan[] = [];
  const server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk) => (body += chunk));
    request.on('end', () => {
      if (request.url === '/v1/traces') {
        const parsed = JSON.parse(body) as {
          resourceSpans: {
            scopeSpans: {
              spans: (Omit<ExportedSpan, 'attributes' | 'events'> & {
                attributes?: OtlpAttribute[];
                events?: { name: string; attributes?: OtlpAttribute[] }[];
              })[];
            }[];
          }[];
        };
        for (const resource of parsed.resourceSpans) {
          for (const scope of resource.scopeSpans) {
            for (const span of scope.spans) {
              spans.push({
                traceId: span.traceId,
                spanId: span.spanId,
                name: span.name,
                attributes: flat(span.attributes),
                events: (span.events ?? []).map((event) => ({ name: event.name, attributes: flat(event.attributes) })),
              });
            }
          }
        }
      }
      response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  // The exporter reads the standard variables itself.
  process.env.OTEL_EXPORTER_OTLP_ENDPOINT = endpoint;
  process.env.OTEL_BSP_SCHEDULE_DELAY = '100';
  const stop = await startTracing({ endpoint, serviceName: 'package-listing-gateway-test' });
  return {
    spans: () => spans,
    async waitFor(found, timeoutMs = 10_000) {
      const until = Date.now() + timeoutMs;
      while (!found(spans) && Date.now() < until) await new Promise((resolve) => setTimeout(resolve, 100));
      return spans;
    },
    async close() {
      await stop?.();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
