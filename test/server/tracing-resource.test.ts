// The resource on the spans the real server exports (src/tracing.ts): the SDK's defaults (telemetry.sdk.*), the
// host and the process, the service's name, version and an instance id of its own, and OTEL_RESOURCE_ATTRIBUTES /
// OTEL_SERVICE_NAME over all of these. Three server processes, each with its own OTLP/HTTP receiver: two started
// alike (their instance ids must differ), one given its instance id and service name in OTEL_RESOURCE_ATTRIBUTES.
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { hostname } from 'node:os';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../helpers/processes.js';
import { type ServerProcess, startServer } from '../helpers/server-process.js';
import { copyOfTemplate } from '../helpers/templates.js';

type OtlpAttribute = { key: string; value: Record<string, unknown> };

/** A receiver that keeps the resource of every batch it is sent. */
interface ResourceReceiver {
  port: number;
  /** Each exported batch's resource attributes, values as exported (numbers may come as strings). */
  resources: Record<string, unknown>[];
  server: Server;
}

async function startReceiver(): Promise<ResourceReceiver> {
  const port = await freePort();
  const resources: Record<string, unknown>[] = [];
  const server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk) => (body += chunk));
    request.on('end', () => {
      if (request.url === '/v1/traces') {
        const parsed = JSON.parse(body) as { resourceSpans: { resource?: { attributes?: OtlpAttribute[] } }[] };
        for (const { resource } of parsed.resourceSpans) {
          resources.push(
            Object.fromEntries((resource?.attributes ?? []).map(({ key, value }) => [key, Object.values(value)[0]])),
          );
        }
      }
      response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return { port, resources, server };
}

interface Traced {
  receiver: ResourceReceiver;
  server: ServerProcess;
}

const traced: Traced[] = [];

async function startTraced(env: Record<string, string>): Promise<Traced> {
  const receiver = await startReceiver();
  const entry: Traced = { receiver, server: undefined as unknown as ServerProcess };
  traced.push(entry);
  entry.server = await startServer({
    DATA_DIR: copyOfTemplate(),
    // A few packages: three servers seeding the 2,000 demo ones at once took 31-60 s of a loaded CI's 2 cores.
    SEED_PACKAGES: '20',
    OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${receiver.port}`,
    OTEL_BSP_SCHEDULE_DELAY: '100',
    ...env,
  });
  return entry;
}

/** The resource of the spans a request to the server is exported with. */
async function resourceOf({ receiver, server }: Traced): Promise<Record<string, unknown>> {
  expect((await fetch(`${server.url}/livez`)).status).toBe(200);
  for (let i = 0; i < 100 && receiver.resources.length === 0; i++) {
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  expect(receiver.resources.length).toBeGreaterThan(0);
  return receiver.resources[0] as Record<string, unknown>;
}

const ATTRIBUTES = 'deployment.environment.name=test,team=listing';
const { version } = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
  version: string;
};

let first: Traced;
let second: Traced;
let given: Traced;

beforeAll(async () => {
  [first, second, given] = await Promise.all([
    startTraced({ OTEL_RESOURCE_ATTRIBUTES: ATTRIBUTES }),
    startTraced({ OTEL_RESOURCE_ATTRIBUTES: ATTRIBUTES, OTEL_SERVICE_NAME: 'listing-second' }),
    startTraced({ OTEL_RESOURCE_ATTRIBUTES: 'service.instance.id=listing-eu-7,service.name=listing-eu,team=listing' }),
  ]);
}, 60_000);

afterAll(async () => {
  await Promise.all(
    traced.map(async ({ receiver, server }) => {
      await server?.stop();
      await new Promise((resolve) => receiver.server.close(resolve));
    }),
  );
});

describe('the resource of the exported spans', () => {
  it("carries OTEL_RESOURCE_ATTRIBUTES, the SDK's own attributes, the service and an instance id", async () => {
    const resource = await resourceOf(first);
    expect(resource).toMatchObject({
      'deployment.environment.name': 'test',
      team: 'listing',
      'telemetry.sdk.language': 'nodejs',
      'telemetry.sdk.name': 'opentelemetry',
      'telemetry.sdk.version': expect.any(String),
      // No OTEL_SERVICE_NAME: the configuration's default, not the SDK's unknown_service.
      'service.name': 'package-listing-gateway',
      'service.version': version,
      'service.instance.id': expect.stringMatching(
        /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/,
      ),
      'host.name': hostname(),
      'process.runtime.name': 'nodejs',
    });
    expect(Number(resource['process.pid'])).toBe(first.server.pid);
    // The process's command line is left out (a command line is where a secret would be passed by mistake).
    expect(resource).not.toHaveProperty('process.command_args');
  });

  it('gives each process its own instance id, and OTEL_SERVICE_NAME names the service', async () => {
    const [one, two] = await Promise.all([resourceOf(first), resourceOf(second)]);
    expect(two['service.name']).toBe('listing-second');
    expect(two['service.instance.id']).toEqual(expect.any(String));
    expect(two['service.instance.id']).not.toBe(one['service.instance.id']);
    expect(Number(two['process.pid'])).toBe(second.server.pid);
  });

  it('keeps an instance id and a service name given in OTEL_RESOURCE_ATTRIBUTES', async () => {
    const resource = await resourceOf(given);
    expect(resource).toMatchObject({
      'service.instance.id': 'listing-eu-7',
      'service.name': 'listing-eu',
      team: 'listing',
      'telemetry.sdk.language': 'nodejs',
    });
    // Every batch this process sent, not only the first, carries the given id.
    expect(new Set(given.receiver.resources.map((r) => r['service.instance.id']))).toEqual(new Set(['listing-eu-7']));
  });
});
