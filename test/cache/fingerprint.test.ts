// Instances sharing Redis share an answer only when they would have made the same one. The refusals that run
// after the cache (introspection off, a lower limit, persisted operations only) are never walked around by an
// answer another instance kept, and an instance whose settings differ in nothing that shapes answers still
// shares them. (A build's code is part of the key too: test/server/build-fingerprint.test.ts.)
import { randomInt } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AppSettings, createApp } from '../../src/app.js';
import { DEFAULT_LIMITS } from '../../src/config.js';
import { createListingTestDatabase, engineName, type TestDatabase } from '../helpers/database.js';
import { tempDir } from '../import/helpers.js';

const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
const INTROSPECTION = `{ __schema { queryType { name } } }`;

let db: TestDatabase;
const apps: ReturnType<typeof createApp>[] = [];
const dir = tempDir('fingerprint-');

function appWith(settings: Partial<AppSettings> = {}) {
  const app = createApp({
    db,
    settings: { rateLimit: { requests: 0, windowMs: 60_000 }, redisUrl: REDIS_URL, ...settings },
  });
  apps.push(app);
  return app;
}

beforeAll(async () => {
  db = await createListingTestDatabase(10);
});
afterAll(async () => {
  for (const app of apps) await app.dispose();
  await db?.destroy();
  dir.remove();
});

// Each run asks what no earlier run kept: a query text of its own (an alias naming the run).
const run = `run${randomInt(1e9)}`;
const get = (app: ReturnType<typeof createApp>, query: string) =>
  app.fetch(`http://localhost/graphql?query=${encodeURIComponent(query)}`, { headers: { accept: 'application/json' } });
/** Redis writes are not awaited: give the first instance's a moment, and the new instances time to connect. */
const settle = () => new Promise((resolve) => setTimeout(resolve, 300));

/** Until the instance's Redis is connected (its /healthz says so), for at most 10 s: a loaded machine is slow to. */
async function redisUp(app: ReturnType<typeof createApp>) {
  for (let tries = 0; tries < 100; tries++) {
    const health = (await (await app.fetch('http://localhost/healthz')).json()) as { redis?: string };
    if (health.redis === 'ok') return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** The first instance keeps the answer; the second, asked once, answers as `expected` would have it. */
async function keptByOneAskedOfTwo(
  one: ReturnType<typeof createApp>,
  two: ReturnType<typeof createApp>,
  query: string,
) {
  await redisUp(one);
  await redisUp(two);
  const first = await get(one, query);
  expect(first.status).toBe(200);
  expect(first.headers.get('x-cache')).toBe('miss');
  const bytes = await first.text();
  await settle();
  const second = await get(two, query);
  return { bytes, second, body: await second.text() };
}

describe(`cache keys and the settings that shape answers, on ${engineName}`, () => {
  it('serves an answer kept by another instance with the same settings: the control', async () => {
    const query = `{ ${run}a: packages(limit: 2, seed: 5) { results { id } } }`;
    const { bytes, second, body } = await keptByOneAskedOfTwo(
      appWith(),
      appWith({ corsOrigins: ['https://shop.example'] }),
      query,
    );
    expect(second.headers.get('x-cache')).toBe('hit');
    expect(body).toBe(bytes);
  });

  it('never serves an introspection answer to an instance with introspection off', async () => {
    const query = `{ ${run}: __typename ${INTROSPECTION.slice(1)}`;
    const { second, body } = await keptByOneAskedOfTwo(appWith(), appWith({ introspection: false }), query);
    expect(second.headers.get('x-cache')).not.toBe('hit');
    expect(JSON.parse(body).data).toBeUndefined();
    expect(JSON.parse(body).errors?.[0]?.message).toMatch(/introspection has been disabled/);
  });

  it('never walks around a lower limit with an answer kept under a higher one', async () => {
    const deep = `{ ${run}: packages(limit: 1, seed: 5) { results { photographer { id } } } }`;
    const strict = appWith({ limits: { ...DEFAULT_LIMITS, depth: 3 } });
    const { second, body } = await keptByOneAskedOfTwo(appWith(), strict, deep);
    expect(second.headers.get('x-cache')).not.toBe('hit');
    expect(JSON.parse(body).errors?.[0]?.extensions?.code).toBeTruthy();
    expect(JSON.parse(body).data ?? null).toBeNull();
  });

  it('never answers a query sent as text from the cache of an instance that runs persisted operations only', async () => {
    const manifest = join(dir.path, 'manifest.json');
    writeFileSync(manifest, JSON.stringify({ abc: '{ __typename }' }));
    const query = `{ ${run}b: packages(limit: 2, seed: 6) { results { id } } }`;
    const only = appWith({ persistedOperations: { file: manifest, only: true } });
    const { second, body } = await keptByOneAskedOfTwo(appWith(), only, query);
    expect(second.status).toBe(400);
    expect(second.headers.get('x-cache')).not.toBe('hit');
    expect(JSON.parse(body).errors?.[0]?.extensions?.code).toBe('PERSISTED_QUERY_ONLY');
  });
});
