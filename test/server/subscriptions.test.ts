// `listingChanged` on real server processes over real HTTP.
// - Two instances on one PostgreSQL database (TEST_DATABASE_URL only: the embedded database serves one process),
//   at the default LISTING_WATCH_INTERVAL (1 s): a subscriber on each gets exactly one event per import, within
//   2 s of its commit, the same versions on both.
// - SSE_MAX_CONNECTIONS: past it a 503 at once, while queries are served; each stream is one request to the rate
//   limit. Then SIGTERM with streams open: each ends with `event: complete`, and the process exits 0 long before
//   SHUTDOWN_TIMEOUT.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/db/client.js';
import { generatePackages } from '../../src/demo/generate.js';
import { importSource } from '../../src/import/importer.js';
import type { V2Package } from '../../src/v2/records.js';
import { createPostgresDatabaseUrl, engineName, onPostgres } from '../helpers/database.js';
import { changes, type Subscriber, subscribe } from '../helpers/event-stream.js';
import { send } from '../helpers/http-server.js';
import { type ServerProcess, startServer } from '../helpers/server-process.js';
import { copyOfTemplate } from '../helpers/templates.js';
import { memorySource } from '../import/helpers.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const records = [...generatePackages({ count: 8, seed: 5 })].map((r) => ({ ...r, status: 1 })) as V2Package[];

describe.runIf(onPostgres)('listingChanged on two instances sharing PostgreSQL', () => {
  let database: { url: string; drop: () => Promise<void> };
  let servers: ServerProcess[] = [];

  beforeAll(async () => {
    database = await createPostgresDatabaseUrl();
    // The default LISTING_WATCH_INTERVAL: the 2 s must hold as deployed.
    const env = { DATABASE_URL: database.url, RATE_LIMIT: '0' };
    servers = await Promise.all([startServer(env), startServer(env)]);
  });
  afterAll(async () => {
    for (const server of servers) await server.stop('SIGKILL');
    await database?.drop();
  });

  it('tells each subscriber exactly one event per import, within 2 s of its commit', async () => {
    const db = await openDatabase({ kind: 'postgresql', url: database.url });
    const subscribers: Subscriber[] = [];
    try {
      await importSource(db, memorySource(records));
      // Each instance's watch reads the version every second whether or not anyone listens: a subscriber that came
      // within a second of an import would be told of it. This one comes once both have seen it.
      await sleep(1500);
      for (const server of servers) subscribers.push(await subscribe(server.url));
      await sleep(500);
      const latencies: number[] = [];
      for (let n = 0; n < 3; n++) {
        const from = subscribers.map((s) => s.events.length);
        const changed = { ...structuredClone(records[n] as V2Package), price: `${500 + n}.00` };
        await importSource(db, memorySource([changed]));
        const committed = performance.now();
        const told = await Promise.all(subscribers.map((s, i) => s.waitFor('next', 2000, from[i])));
        for (const event of told) latencies.push(event.at - committed);
        await sleep(200);
      }
      await sleep(1500); // two more reads of each watch: nothing more is told
      const seen = subscribers.map(changes);
      for (const told of seen) {
        expect(told).toHaveLength(3);
        expect(new Set(told.map((c) => c.version)).size).toBe(3);
        for (const change of told) expect(change.count).toBe(records.length);
      }
      expect(seen[0]?.map((c) => c.version)).toEqual(seen[1]?.map((c) => c.version));
      for (const latency of latencies) expect(latency).toBeLessThan(2000);
      console.log(`listingChanged latency after commit (ms): ${latencies.map(Math.round).join(', ')}`);
    } finally {
      for (const subscriber of subscribers) subscriber.close();
      await db.close();
    }
  });
});

describe(`listingChanged bounds and stop on ${engineName}`, () => {
  let server: ServerProcess;
  let database: { url: string; drop: () => Promise<void> } | undefined;

  beforeAll(async () => {
    database = onPostgres ? await createPostgresDatabaseUrl() : undefined;
    server = await startServer({
      ...(database ? { DATABASE_URL: database.url } : { DATA_DIR: copyOfTemplate() }),
      SEED_PACKAGES: '20',
      SSE_MAX_CONNECTIONS: '3',
      RATE_LIMIT: '6',
      RATE_LIMIT_WINDOW: '60',
      SHUTDOWN_TIMEOUT: '20',
    });
  });
  afterAll(async () => {
    await server?.stop('SIGKILL');
    await database?.drop();
  });

  it('refuses past SSE_MAX_CONNECTIONS at once, serves queries meanwhile, and ends the streams on SIGTERM', async () => {
    const open = await Promise.all([subscribe(server.url), subscribe(server.url), subscribe(server.url)]);
    expect(open.map((s) => s.status)).toEqual([200, 200, 200]);

    const started = performance.now();
    const refused = await subscribe(server.url);
    await refused.ended;
    const refusedMs = performance.now() - started;
    expect(refused.status).toBe(503);
    expect(refusedMs).toBeLessThan(500);
    expect(JSON.parse(refused.body()).errors[0].extensions.code).toBe('SERVICE_UNAVAILABLE');

    const page = await send(server.url, {
      method: 'GET',
      path: `/graphql?query=${encodeURIComponent('{ packages(limit: 3) { count } }')}`,
      headers: { accept: 'application/json' },
    });
    expect(page.status).toBe(200);
    // Each stream was one request to the rate limit (3 streams, the refusal, the page: 5 of 6), however long
    // it stays open: one more is allowed, then 429.
    await sleep(300);
    const statuses = [];
    for (let n = 0; n < 2; n++) {
      statuses.push(
        (await send(server.url, { method: 'GET', path: '/graphql?query=%7B__typename%7D', headers: {} })).status,
      );
    }
    expect(statuses).toEqual([200, 429]);

    const signalled = performance.now();
    const code = await server.stop('SIGTERM');
    const stopMs = performance.now() - signalled;
    await Promise.all(open.map((s) => s.ended));
    expect(code).toBe(0);
    expect(stopMs).toBeLessThan(5000);
    for (const subscriber of open) expect(subscriber.events.at(-1)?.event).toBe('complete');
    expect(server.output()).toMatch(/"streams":3,"reason":"SIGTERM"/);
    expect(server.output()).not.toMatch(/cut off|"level":"(error|fatal)"/);
    console.log(
      `503 past the bound in ${Math.round(refusedMs)} ms; stopped with 3 streams open in ${Math.round(stopMs)} ms`,
    );
  });
});
