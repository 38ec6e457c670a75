// `listingChanged` over Server-Sent Events, the app served over real HTTP in this process: one `next` event per
// import, a heartbeat on a quiet stream, no deadline cutting it, nothing cached, a 503 past the bound while queries
// are still served, a 429 past one client's share while another client subscribes, mutations still refused,
// `event: complete` for every stream when the app stops, and nothing left subscribed (nor read) once the clients
// are gone.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_LIMITS } from '../../src/config.js';
import { generatePackages } from '../../src/demo/generate.js';
import { createEventStreams } from '../../src/http/event-streams.js';
import { importSource } from '../../src/import/importer.js';
import type { V2Package } from '../../src/v2/records.js';
import { createTestDatabase, engineName, type TestDatabase } from '../helpers/database.js';
import { changes, type Subscriber, subscribe } from '../helpers/event-stream.js';
import { type ServedApp, send, serveApp } from '../helpers/http-server.js';
import { memorySource } from '../import/helpers.js';

let db: TestDatabase;
const records = [...generatePackages({ count: 6, seed: 11 })].map((r) => ({ ...r, status: 1 })) as V2Package[];
const quiet = { info: () => {} };
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
let price = 100;
/** An import that changes one package's price: one new listing version. */
const importOnce = () =>
  importSource(db, memorySource([{ ...structuredClone(records[0] as V2Package), price: `${price++}.00` }]));

beforeAll(async () => {
  db = await createTestDatabase();
  await importSource(db, memorySource(records));
});
afterAll(() => db?.destroy());

async function query(served: ServedApp, text: string, accept = 'application/json') {
  const response = await send(served.url, {
    method: 'GET',
    path: `/graphql?query=${encodeURIComponent(text)}`,
    headers: { accept },
  });
  return { ...response, json: () => JSON.parse(response.body.toString()) };
}

describe(`listingChanged on ${engineName}`, () => {
  it('tells each import once, on a stream no deadline cuts and no cache keeps', async () => {
    const served = await serveApp(db, { listingWatchMs: 50, requestTimeoutMs: 200 });
    try {
      const subscriber = await subscribe(served.url);
      expect(subscriber.status).toBe(200);
      expect(subscriber.headers['content-type']).toMatch(/^text\/event-stream/);
      expect(subscriber.headers['x-cache']).toBeUndefined();
      await subscriber.waitFor('heartbeat', 1000); // the first bytes at once
      await sleep(300); // past REQUEST_TIMEOUT, and the watch has read the version
      for (let n = 1; n <= 3; n++) {
        const from = subscriber.events.length;
        await importOnce();
        await subscriber.waitFor('next', 2000, from);
      }
      await sleep(300); // nothing more comes
      const told = changes(subscriber);
      expect(told).toHaveLength(3);
      expect(new Set(told.map((c) => c.version)).size).toBe(3);
      for (const change of told) {
        expect(change.count).toBe(6);
        expect(change.changedAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);
      }
      expect(subscriber.events.some((e) => e.event === 'complete')).toBe(false);
      subscriber.close();
    } finally {
      await served.close();
    }
  });

  it('sends a heartbeat on a quiet stream', async () => {
    const streams = createEventStreams({ max: 10, heartbeatMs: 100, logger: quiet });
    const served = await serveApp(db, {}, undefined, streams);
    try {
      const subscriber = await subscribe(served.url);
      await sleep(550);
      // The one sent at once, then one every 100 ms.
      expect(subscriber.events.filter((e) => e.event === 'heartbeat').length).toBeGreaterThanOrEqual(4);
      subscriber.close();
    } finally {
      await served.close();
    }
  });

  it('refuses a stream past the bound with a 503, serves queries meanwhile, frees the room when a client leaves', async () => {
    const streams = createEventStreams({ max: 2, logger: quiet });
    const served = await serveApp(db, {}, undefined, streams);
    try {
      const open = [await subscribe(served.url), await subscribe(served.url)];
      expect(open.map((s) => s.status)).toEqual([200, 200]);
      const started = performance.now();
      const refused = await subscribe(served.url);
      await refused.ended;
      expect(performance.now() - started).toBeLessThan(500);
      expect(refused.status).toBe(503);
      expect(refused.headers['retry-after']).toBe('5');
      expect(JSON.parse(refused.body())).toEqual({
        errors: [
          { message: expect.stringContaining('SSE_MAX_CONNECTIONS'), extensions: { code: 'SERVICE_UNAVAILABLE' } },
        ],
      });
      const page = await query(served, '{ packages(limit: 2) { count } }');
      expect(page.status).toBe(200);
      expect(page.json()).toEqual({ data: { packages: { count: 6 } } });
      const metrics = await send(served.url, { method: 'GET', path: '/metrics', headers: {} });
      expect(metrics.body.toString()).toMatch(/^graphql_event_streams 2$/m);

      open[0]?.close();
      await open[0]?.ended;
      await sleep(100);
      expect(streams.open()).toBe(1);
      const again = await subscribe(served.url);
      expect(again.status).toBe(200);
      again.close();
      open[1]?.close();
      await sleep(100);
      expect(streams.open()).toBe(0);
    } finally {
      await served.close();
    }
  });

  it("refuses one address's streams past SSE_MAX_PER_CALLER with a 429 at once, while another address subscribes", async () => {
    const served = await serveApp(db, { sseMaxConnections: 20, sseMaxPerCaller: 3 });
    const open: Subscriber[] = [];
    const from = async (localAddress: string) => {
      const subscriber = await subscribe(served.url, { localAddress });
      open.push(subscriber);
      return subscriber;
    };
    try {
      for (let i = 0; i < 3; i++) expect((await from('127.0.0.2')).status).toBe(200);
      const started = performance.now();
      const refused = await from('127.0.0.2');
      expect(refused.status).toBe(429);
      await refused.ended;
      expect(performance.now() - started).toBeLessThan(1000);
      expect(refused.headers['retry-after']).toBe('5');
      expect(JSON.parse(refused.body())).toEqual({
        errors: [
          {
            message:
              'Too many open subscriptions from this client (SSE_MAX_PER_CALLER, 3): close one, or try again later.',
            extensions: { code: 'RATE_LIMITED' },
          },
        ],
      });
      // Another client, while the first holds its share: the instance has room for 17 more.
      const other = await from('127.0.0.3');
      expect(other.status).toBe(200);
      await other.waitFor('heartbeat', 1000);
      // The first client's share comes back as its streams end.
      open[0]?.close();
      await open[0]?.ended;
      await sleep(100);
      expect((await from('127.0.0.2')).status).toBe(200);
    } finally {
      for (const subscriber of open) subscriber.close();
      await served.close();
    }
  });

  it('ends every stream with `event: complete` when the app stops, and refuses new ones', async () => {
    const streams = createEventStreams({ max: 10, logger: quiet });
    const served = await serveApp(db, {}, undefined, streams);
    const open = await Promise.all([subscribe(served.url), subscribe(served.url), subscribe(served.url)]);
    streams.closeAll();
    await Promise.all(open.map((s) => s.ended));
    for (const subscriber of open) expect(subscriber.events.at(-1)?.event).toBe('complete');
    expect(streams.open()).toBe(0);
    const late = await subscribe(served.url);
    await late.ended;
    expect(late.status).toBe(503);
    expect(late.body()).toContain('stopping');
    await served.close();
  });

  it('still refuses mutations, and answers other requests for a subscription with a 4xx', async () => {
    const served = await serveApp(db, {});
    const shallow = await serveApp(db, { limits: { ...DEFAULT_LIMITS, depth: 1 } });
    try {
      const mutation = await send(served.url, {
        method: 'POST',
        path: '/graphql',
        headers: { 'content-type': 'application/json', accept: 'application/json' },
        body: JSON.stringify({ query: 'mutation { listingChanged { version } }' }),
      });
      expect(mutation.status).toBe(400);
      expect(JSON.parse(mutation.body.toString()).errors[0].extensions.code).toBe('OPERATION_NOT_SUPPORTED');
      // Only as a stream: a client that accepts JSON alone is told what it must accept.
      const asJson = await query(served, 'subscription { listingChanged { version } }');
      expect(asJson.status).toBe(406);
      // The operation limits price a subscription as they price a query.
      const deep = await subscribe(shallow.url, { query: 'subscription { listingChanged { version } }' });
      await deep.ended;
      expect(deep.status).toBe(400);
      // Told as yoga tells an error to a stream's client: one `next` event with it, then `complete`.
      expect(deep.events.map((e) => e.event)).toEqual(['heartbeat', 'next', 'complete']);
      expect(deep.events[1]?.data).toContain('QUERY_LIMIT_EXCEEDED');
      const unknown = await subscribe(served.url, { query: 'subscription { nothing }' });
      await unknown.ended;
      expect(unknown.status).toBe(400);
    } finally {
      await served.close();
      await shallow.close();
    }
  });
});
