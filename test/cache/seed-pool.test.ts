// First pages without a seed: drawn from the pool of seeds (SEED_POOL), so they are kept and shared; each
// visitor still gets an order and links that carry its seed. With SEED_POOL=0 every request gets an order of
// its own and nothing is kept.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../src/app.js';
import { generatePackages } from '../../src/demo/generate.js';
import { importSource } from '../../src/import/importer.js';
import { poolSeed } from '../../src/listing/seed-pool.js';
import type { V2Package } from '../../src/v2/records.js';
import { createTestDatabase, engineName, type TestDatabase } from '../helpers/database.js';
import { memorySource } from '../import/helpers.js';

const ORIGIN = 'http://localhost';
const V2_FIRST_PAGE = `${ORIGIN}/v2/local-package-list/?limit=5`;
const FIRST_PAGE = '{ packages(limit: 5) { seed results { id } } }';

let db: TestDatabase;
const apps: ReturnType<typeof createApp>[] = [];
const records = [...generatePackages({ count: 30, seed: 5 })].map((r) => ({ ...r, status: 1 })) as V2Package[];

function newApp(seedPool: number) {
  const app = createApp({ db, settings: { seedPool, rateLimit: { requests: 0, windowMs: 60_000 } } });
  apps.push(app);
  return app;
}

const post = (app: ReturnType<typeof createApp>, query: string, variables?: object) =>
  app.fetch(`${ORIGIN}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json' },
    body: JSON.stringify({ query, variables }),
  });

const version = async () =>
  (await db.read.single<{ v: string }>({ text: 'SELECT version::text AS v FROM listing_version' }))[0]?.v ?? '0';

beforeAll(async () => {
  db = await createTestDatabase();
  await importSource(db, memorySource(records));
});
afterAll(async () => {
  for (const app of apps) await app.dispose();
  await db?.destroy();
});

describe(`first pages without a seed on ${engineName}`, () => {
  it('draw from the pool of the listing version, and are served from the cache on both doors', async () => {
    const app = newApp(1);
    const seed = poolSeed(await version(), 0);
    const first = await app.fetch(V2_FIRST_PAGE);
    const again = await app.fetch(V2_FIRST_PAGE);
    expect([first.headers.get('x-cache'), again.headers.get('x-cache')]).toEqual(['miss', 'hit']);
    const body = await first.text();
    expect(await again.text()).toBe(body);
    expect(JSON.parse(body).next).toBe(`${ORIGIN}/v2/local-package-list/?limit=5&offset=5&seed=${seed}`);

    const made = await post(app, FIRST_PAGE);
    const kept = await post(app, FIRST_PAGE);
    expect([made.headers.get('x-cache'), kept.headers.get('x-cache')]).toEqual(['miss', 'hit']);
    expect(((await made.json()) as { data: { packages: { seed: number } } }).data.packages.seed).toBe(seed);
  });

  it("give visitors the pool's orders at random, and a page asked with a seed is keyed once, not per draw", async () => {
    const app = newApp(4);
    const v = await version();
    const seeds = new Set<number>();
    for (let i = 0; i < 40; i++) {
      const body = (await (await post(app, FIRST_PAGE)).json()) as { data: { packages: { seed: number } } };
      seeds.add(body.data.packages.seed);
    }
    expect([...seeds].sort()).toEqual([0, 1, 2, 3].map((i) => poolSeed(v, i)).sort());

    const seeded = 'query ($seed: Int) { packages(limit: 5, seed: $seed) { seed results { id } } }';
    const cache = [];
    for (let i = 0; i < 6; i++) cache.push((await post(app, seeded, { seed: 9 })).headers.get('x-cache'));
    expect(cache).toEqual(['miss', 'hit', 'hit', 'hit', 'hit', 'hit']);
  });

  it('with SEED_POOL=0, give each request an order of its own and keep none', async () => {
    const app = newApp(0);
    const seeds = new Set<number>();
    for (let i = 0; i < 5; i++) {
      const response = await app.fetch(V2_FIRST_PAGE);
      expect(response.headers.get('x-cache')).toBeNull();
      seeds.add(Number(new URL(JSON.parse(await response.text()).next).searchParams.get('seed')));
    }
    expect(seeds.size).toBe(5);
  });
});
