// OpenTelemetry traces from the real server process to an OTLP/HTTP receiver this test runs: a request carrying
// a W3C `traceparent` is exported under the caller's trace id, with spans for the request, parse, validate,
// execute, each SQL statement (name and rows, never a parameter value) and the cache lookup; the server's log
// lines of that request carry the trace and span ids. Without an endpoint nothing is exported.
import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTracing, tracingOn } from '../../src/tracing.js';
import { freePort } from '../helpers/processes.js';
import { type ServerProcess, startServer } from '../helpers/server-process.js';
import { copyOfTemplate } from '../helpers/templates.js';

interface ExportedSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  attributes: { key: string; value: Record<string, unknown> }[];
}

let receiver: Server;
let receiverPort: number;
/** Every request body the receiver got, as text. */
const bodies: string[] = [];
let server: ServerProcess;

beforeAll(async () => {
  receiverPort = await freePort();
  receiver = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk) => (body += chunk));
    request.on('end', () => {
      if (request.url === '/v1/traces') bodies.push(body);
      response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => receiver.listen(receiverPort, '127.0.0.1', resolve));
  server = await startServer({
    DATA_DIR: copyOfTemplate(),
    SEED_PACKAGES: '30',
    OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${receiverPort}`,
    OTEL_SERVICE_NAME: 'listing-under-test',
    OTEL_BSP_SCHEDULE_DELAY: '100',
  });
}, 60_000);

afterAll(async () => {
  await server?.stop();
  await new Promise((resolve) => receiver?.close(resolve));
});

/** OTLP/JSON carries ids as hex (or base64 in some encoders): hex either way. */
const hex = (id: string) => (/^[0-9a-f]+$/i.test(id) ? id.toLowerCase() : Buffer.from(id, 'base64').toString('hex'));

function exportedSpans(): ExportedSpan[] {
  return bodies.flatMap((body) => {
    const parsed = JSON.parse(body) as {
      resourceSpans: { scopeSpans: { spans: ExportedSpan[] }[] }[];
    };
    return parsed.resourceSpans.flatMap((r) =>
      r.scopeSpans.flatMap((s) =>
        s.spans.map((span) => ({
          ...span,
          traceId: hex(span.traceId),
          spanId: hex(span.spanId),
          ...(span.parentSpanId && { parentSpanId: hex(span.parentSpanId) }),
        })),
      ),
    );
  });
}

async function spansOf(traceId: string, atLeast: number): Promise<ExportedSpan[]> {
  for (let i = 0; i < 100; i++) {
    const spans = exportedSpans().filter((span) => span.traceId === traceId);
    if (spans.length >= atLeast) return spans;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return exportedSpans().filter((span) => span.traceId === traceId);
}

const attribute = (span: ExportedSpan | undefined, key: string) => {
  const value = span?.attributes.find((a) => a.key === key)?.value;
  return value && Object.values(value)[0];
};

describe('OpenTelemetry traces', () => {
  it("continues the caller's trace: request, parse, validate, execute and every SQL statement", async () => {
    const traceId = '4bf92f3577b34da6a3ce929d0e0e4736';
    const callerSpan = '00f067aa0ba902b7';
    const secret = 'zzsecretsearchzz';
    const response = await fetch(`${server.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', traceparent: `00-${traceId}-${callerSpan}-01` },
      body: JSON.stringify({
        query:
          'query Cards($q: String) { packages(limit: 5, seed: 2, filter: { search: $q }) { count results { title images { id } } } }',
        variables: { q: secret },
      }),
    });
    expect(response.status).toBe(200);
    const spans = await spansOf(traceId, 5);
    const names = spans.map((span) => span.name);
    const root = spans.find((span) => span.name === 'POST /graphql');
    expect(root?.parentSpanId).toBe(callerSpan);
    expect(attribute(root, 'http.response.status_code')).toBe(200);
    for (const phase of ['graphql.parse', 'graphql.validate', 'graphql.execute']) {
      expect(spans.find((span) => span.name === phase)?.parentSpanId).toBe(root?.spanId);
    }
    const execute = spans.find((span) => span.name === 'graphql.execute');
    expect(attribute(execute, 'graphql.operation.name')).toBe('Cards');
    const statements = spans.filter((span) => span.name.startsWith('SQL '));
    expect(statements.length).toBeGreaterThan(0);
    // The operation's statements under execute; the cache's read of the listing version under the request.
    expect(statements.filter((statement) => statement.parentSpanId === execute?.spanId).length).toBeGreaterThan(0);
    for (const statement of statements) {
      expect([execute?.spanId, root?.spanId]).toContain(statement.parentSpanId);
      expect(attribute(statement, 'db.response.returned_rows')).toEqual(expect.anything());
    }
    expect(names).toContain('POST /graphql');
    // No parameter value, no variable, anywhere in what was exported.
    expect(bodies.join('')).not.toContain(secret);
    // The request's log lines carry the trace.
    const logged = server
      .output()
      .split('\n')
      .filter((line) => line.includes(`"trace_id":"${traceId}"`));
    expect(logged.length).toBeGreaterThan(0);
    expect(logged[0]).toContain('"span_id":"');
  });

  it('traces the cache lookup, miss then hit', async () => {
    const results: unknown[] = [];
    for (const [i, traceId] of ['11111111111111111111111111111111', '22222222222222222222222222222222'].entries()) {
      const response = await fetch(`${server.url}/v2/local-package-list/?limit=2&seed=77`, {
        headers: { traceparent: `00-${traceId}-00f067aa0ba902b${i}-01` },
      });
      expect(response.status).toBe(200);
      const lookup = (await spansOf(traceId, 2)).find((span) => span.name === 'cache lookup');
      results.push(attribute(lookup, 'cache.result'));
    }
    expect(results).toEqual(['miss', 'hit']);
  });

  it('is off without an endpoint: the SDK is not started and no span is recorded', async () => {
    expect(await startTracing({ endpoint: undefined, serviceName: 'x' })).toBeUndefined();
    expect(tracingOn()).toBe(false);
  });
});
