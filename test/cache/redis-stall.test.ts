// Redis only saves work: when it stops answering (a TCP proxy of the test's own holds its bytes, as a silent
// network drop would), requests go on being answered in time, from memory or made anew, rate limits counted in
// this process; /healthz and /metrics say so, and Redis is used again once it answers.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../src/app.js';
import { createListingTestDatabase, engineName, type TestDatabase } from '../helpers/database.js';
import { startTcpProxy, type TcpProxy } from '../helpers/tcp-proxy.js';

const REDIS = new URL(process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379');
const ORIGIN = 'http://localhost';

let db: TestDatabase;
let proxy: TcpProxy;
let app: ReturnType<typeof createApp>;

beforeAll(async () => {
  db = await createListingTestDatabase(30);
  proxy = await startTcpProxy({ host: REDIS.hostname, port: Number(REDIS.port || 6379) });
  app = createApp({
    db,
    settings: { redisUrl: proxy.url(REDIS.toString()), rateLimit: { requests: 100_000, windowMs: 60_000 } },
  });
});
afterAll(async () => {
  await app?.dispose();
  await proxy?.close();
  await db?.destroy();
});

const health = async () => (await (await app.fetch(`${ORIGIN}/healthz`)).json()) as Record<string, string>;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function until(check: () => Promise<boolean>, ms: number): Promise<boolean> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (await check()) return true;
    await sleep(100);
  }
  return check();
}

/** A request of the steady load: a page seen before (cached) or a new one, on either door. */
async function request(i: number): Promise<Response> {
  const seed = i % 4 === 0 ? 1000 + i : 7; // every fourth one new, the rest one hot page each
  if (i % 2 === 0) return app.fetch(`${ORIGIN}/v2/local-package-list/?limit=5&seed=${seed}`);
  const query = `{ packages(limit: 5, seed: ${seed}) { count results { id title } } }`;
  return app.fetch(`${ORIGIN}/graphql?query=${encodeURIComponent(query)}`);
}

describe(`a stalled Redis, on ${engineName}`, () => {
  it('costs no request: steady load is answered in time, and /healthz and /metrics report it', async () => {
    expect(await until(async () => (await health()).redis === 'ok', 5000)).toBe(true);
    for (let i = 0; i < 8; i++) expect((await request(i)).status).toBe(200);

    proxy.setMode('blackhole');
    const slowest: number[] = [];
    const until3s = Date.now() + 3000;
    for (let i = 8; Date.now() < until3s; i += 4) {
      // Four clients at once, again and again, for three seconds.
      const answers = await Promise.all(
        [0, 1, 2, 3].map(async (k) => {
          const started = performance.now();
          const answer = await request(i + k);
          await answer.arrayBuffer();
          return { status: answer.status, ms: performance.now() - started };
        }),
      );
      for (const { status, ms } of answers) {
        expect(status).toBe(200);
        slowest.push(ms);
      }
    }
    expect(slowest.length).toBeGreaterThan(20);
    // Each waits at most one Redis deadline (50 ms) on top of its own work; a stall used to hold every request.
    expect(Math.max(...slowest)).toBeLessThan(1000);

    const during = await app.fetch(`${ORIGIN}/healthz`);
    expect(during.status).toBe(200);
    expect(((await during.json()) as Record<string, string>).redis).toMatch(/^(degraded|unreachable)$/);
    const metrics = await (await app.fetch(`${ORIGIN}/metrics`)).text();
    expect(metrics).toMatch(/^redis_up 0$/m);
    expect(Number(/^redis_commands_failed_total (\d+)$/m.exec(metrics)?.[1])).toBeGreaterThan(0);

    proxy.setMode('pass');
    expect(await until(async () => (await health()).redis === 'ok', 8000)).toBe(true);
    expect((await request(0)).status).toBe(200);
    expect(await (await app.fetch(`${ORIGIN}/metrics`)).text()).toMatch(/^redis_up 1$/m);
  });
});
