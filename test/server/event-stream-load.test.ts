// 2,000 `listingChanged` streams held open on one server process over loopback: its memory (VmRSS) stays under
// 300 MB on PostgreSQL, pages are still served meanwhile, one more stream is refused, and SIGTERM with them open
// ends them all and exits 0 at once. On the embedded database, whose WebAssembly memory alone holds the process
// near 260 MB from its start (docs/operations.md, "Memory"), the streams' own share is bounded instead: under 100 MB.
// Bounded: a few seconds of connecting, then it stops by itself.
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPostgresDatabaseUrl, engineName, onPostgres } from '../helpers/database.js';
import { type Subscriber, subscribe } from '../helpers/event-stream.js';
import { send } from '../helpers/http-server.js';
import { type ServerProcess, startServer } from '../helpers/server-process.js';
import { copyOfTemplate } from '../helpers/templates.js';

const STREAMS = 2000;
const BATCH = 200;
const RSS_LIMIT_MB = 300;
const STREAMS_SHARE_MB = 100;

/** The process's resident memory, in MB, as the kernel counts it. */
function rssMb(pid: number): number {
  const line = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return Number(line?.[1]) / 1024;
}

async function gauge(url: string): Promise<number> {
  const metrics = await send(url, { method: 'GET', path: '/metrics', headers: {} });
  return Number(/^graphql_event_streams (\d+)$/m.exec(metrics.body.toString())?.[1]);
}

/** Serves 20 slim pages of 24 (seeds from `firstSeed`), each checked; returns how long each took, in ms. */
async function servePages(url: string, firstSeed: number): Promise<number[]> {
  const pageMs: number[] = [];
  for (let seed = firstSeed; seed < firstSeed + 20; seed++) {
    const started = performance.now();
    const page = await send(url, {
      method: 'GET',
      path: `/graphql?query=${encodeURIComponent(`{ packages(limit: 24, seed: ${seed}) { count results { id title price } } }`)}`,
      headers: { accept: 'application/json' },
    });
    pageMs.push(performance.now() - started);
    expect(page.status).toBe(200);
    expect(JSON.parse(page.body.toString()).data.packages.results).toHaveLength(24);
  }
  return pageMs;
}

describe(`${STREAMS} open streams on one instance (${engineName})`, () => {
  let server: ServerProcess;
  let database: { url: string; drop: () => Promise<void> } | undefined;
  const subscribers: Subscriber[] = [];

  beforeAll(async () => {
    database = onPostgres ? await createPostgresDatabaseUrl() : undefined;
    server = await startServer({
      ...(database ? { DATABASE_URL: database.url } : { DATA_DIR: copyOfTemplate() }),
      SEED_PACKAGES: '200',
      SSE_MAX_CONNECTIONS: String(STREAMS),
      // One client address stands here for the 2,000 clients: no share of streams or connections of its own.
      SSE_MAX_PER_CALLER: '0',
      MAX_CONNECTIONS_PER_ADDRESS: '0',
      RATE_LIMIT: '0',
      SHUTDOWN_TIMEOUT: '20',
      // As `npm start` and the image run it (docs/operations.md, "Memory").
      NODE_OPTIONS: '--max-semi-space-size=4',
    });
  });
  afterAll(async () => {
    for (const subscriber of subscribers) subscriber.close();
    await server?.stop('SIGKILL');
    await database?.drop();
  });

  it(`holds ${STREAMS} in bounded memory while serving pages, and stops with them open`, async () => {
    // Pages first, so that what serving them takes (the embedded database's WebAssembly memory grows and never
    // gives back) is in the measure before the streams, not counted as theirs.
    await servePages(server.url, 0);
    const before = rssMb(server.pid);
    const opening = performance.now();
    for (let n = 0; n < STREAMS; n += BATCH) {
      subscribers.push(...(await Promise.all(Array.from({ length: BATCH }, () => subscribe(server.url)))));
    }
    const openMs = performance.now() - opening;
    expect(subscribers.filter((s) => s.status === 200)).toHaveLength(STREAMS);
    expect(await gauge(server.url)).toBe(STREAMS);
    // One more is past the bound.
    const refused = await subscribe(server.url);
    await refused.ended;
    expect(refused.status).toBe(503);

    const pageMs = await servePages(server.url, 100);
    const held = rssMb(server.pid);
    console.log(`VmRSS ${Math.round(before)} MB before, ${Math.round(held)} MB with ${STREAMS} streams open`);
    if (onPostgres) expect(held).toBeLessThan(RSS_LIMIT_MB);
    expect(held - before).toBeLessThan(STREAMS_SHARE_MB);

    const signalled = performance.now();
    const code = await server.stop('SIGTERM');
    const stopMs = performance.now() - signalled;
    await Promise.all(subscribers.map((s) => s.ended));
    expect(code).toBe(0);
    expect(stopMs).toBeLessThan(10_000);
    expect(subscribers.filter((s) => s.events.at(-1)?.event === 'complete')).toHaveLength(STREAMS);
    console.log(
      `${STREAMS} streams: opened in ${Math.round(openMs)} ms; VmRSS ${Math.round(before)} MB before, ` +
        `${Math.round(held)} MB with them open; pages meanwhile: max ${Math.round(Math.max(...pageMs))} ms, ` +
        `median ${Math.round(pageMs.sort((a, b) => a - b)[10] ?? 0)} ms; SIGTERM to exit ${Math.round(stopMs)} ms`,
    );
  });
});
