// The gateway in a company's graph, as it is used: its subgraph schema (from `_service { sdl }`) composed with a
// second subgraph, a small bookings service whose Booking references Package by id, by
// @theguild/federation-composition; the supergraph served by a real router (Hive Gateway, its own process), and
// a query that needs both subgraphs answered through it. The composition and the router are ecosystem tools,
// installed on first need (test/helpers/ecosystem.ts); type-checked by test/ecosystem/tsconfig.json.
import { type ChildProcess, spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { join } from 'node:path';
import { buildSubgraphSchema } from '@apollo/subgraph';
import { parse } from 'graphql';
import { createYoga } from 'graphql-yoga';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createListingTestDatabase, type TestDatabase } from '../helpers/database.js';
import { ecosystemTools } from '../helpers/ecosystem.js';
import { type ServedApp, serveApp } from '../helpers/http-server.js';
import { freePort } from '../helpers/processes.js';
import { tempDir } from '../import/helpers.js';

const tools = await ecosystemTools('the supergraph test with Hive Gateway');
const { composeServices } = await tools.load<typeof import('@theguild/federation-composition')>(
  '@theguild/federation-composition',
);
// The composition reads documents with its own graphql, which the tools hold.
const composition = await tools.load<typeof import('graphql')>('graphql');

const BOOKINGS_SDL = `
  extend schema @link(url: "https://specs.apollo.dev/federation/v2.6", import: ["@key"])
  type Booking @key(fields: "id") {
    id: ID!
    customer: String!
    package: Package!
  }
  type Package @key(fields: "id", resolvable: false) {
    id: ID!
  }
  type Query {
    bookings: [Booking!]!
  }
`;

const dir = tempDir('supergraph-');
let db: TestDatabase;
let listing: ServedApp;
let bookings: Server;
let router: ChildProcess | undefined;
let routerUrl: string;
let listed: { id: string; title: string; photographer: { name: string } }[];

async function post<T>(url: string, query: string) {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json' },
    body: JSON.stringify({ query }),
    signal: AbortSignal.timeout(10_000),
  });
  return { status: response.status, body: (await response.json()) as { data: T; errors?: unknown[] } };
}

/** A bookings subgraph on a free port: two bookings of the first two listed packages. */
async function startBookings(packageIds: string[]): Promise<{ server: Server; url: string }> {
  const schema = buildSubgraphSchema({
    typeDefs: parse(BOOKINGS_SDL),
    resolvers: {
      Query: {
        bookings: () =>
          packageIds.map((id, i) => ({ id: `booking-${i + 1}`, customer: `customer ${i + 1}`, package: { id } })),
      },
    },
  });
  const server = createServer(createYoga({ schema, graphiql: false, logging: false }));
  const port = await freePort();
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return { server, url: `http://127.0.0.1:${port}/graphql` };
}

beforeAll(async () => {
  if (!tools.available) return;
  db = await createListingTestDatabase(20);
  listing = await serveApp(db, { responseCacheBytes: 0, rateLimit: { requests: 0, windowMs: 60_000 } });
  type Listed = typeof listed;
  const page = await post<{ packages: { results: Listed } }>(
    `${listing.url}/graphql`,
    '{ packages(limit: 2, seed: 4) { results { id title photographer { name } } } }',
  );
  listed = page.body.data.packages.results;
  const started = await startBookings(listed.map((p) => p.id));
  bookings = started.server;

  const sdl = (await post<{ _service: { sdl: string } }>(`${listing.url}/graphql`, '{ _service { sdl } }')).body.data
    ._service.sdl;
  const composed = composeServices([
    { name: 'listing', typeDefs: composition.parse(sdl), url: `${listing.url}/graphql` },
    { name: 'bookings', typeDefs: composition.parse(BOOKINGS_SDL), url: started.url },
  ]);
  if (!composed.supergraphSdl)
    throw new Error(`composition failed: ${composed.errors?.map((e) => e.message).join('; ')}`);
  const supergraph = join(dir.path, 'supergraph.graphql');
  writeFileSync(supergraph, composed.supergraphSdl);

  const port = await freePort();
  routerUrl = `http://127.0.0.1:${port}/graphql`;
  const bin = tools.path('@graphql-hive/gateway/dist/bin.js');
  const child = spawn(
    process.execPath,
    [bin, 'supergraph', supergraph, '--host', '127.0.0.1', '--port', String(port)],
    {
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  router = child;
  let output = '';
  child.stdout?.on('data', (chunk) => (output += chunk));
  child.stderr?.on('data', (chunk) => (output += chunk));
  for (let i = 0; ; i++) {
    if (child.exitCode !== null) throw new Error(`the router exited: ${output}`);
    const ready = await fetch(`http://127.0.0.1:${port}/readiness`).catch(() => undefined);
    if (ready?.ok) break;
    if (i > 300) throw new Error(`the router was not ready within 30 s: ${output}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}, 60_000);

afterAll(async () => {
  if (router && router.exitCode === null) {
    const exited = new Promise((resolve) => router?.once('exit', resolve));
    router.kill('SIGTERM');
    const timer = setTimeout(() => router?.kill('SIGKILL'), 5000);
    await exited;
    clearTimeout(timer);
  }
  if (bookings) await new Promise((resolve) => bookings.close(resolve));
  await listing?.close();
  await db?.destroy();
  dir.remove();
});

describe.skipIf(!tools.available)('the gateway in a supergraph', () => {
  it('answers a query that needs both subgraphs through a real router', async () => {
    const { status, body } = await post<{ bookings: unknown[] }>(
      routerUrl,
      '{ bookings { id customer package { id title photographer { name } } } }',
    );
    expect(body.errors).toBeUndefined();
    expect(status).toBe(200);
    expect(body.data.bookings).toEqual(
      listed.map((p, i) => ({ id: `booking-${i + 1}`, customer: `customer ${i + 1}`, package: p })),
    );
  });
});
