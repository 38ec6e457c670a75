// What one caller may hold or make the service keep, in process (docs/security.md, "What one caller may hold"): for
// each row, one caller at its bound leaves a second caller served. Callers are told apart by their address
// (`clientAddress`, as the Node adapter gives it). The listener's rows (connections, heads, bodies) are in
// caller-connections.test.ts; the rows tested elsewhere are named in that section of the docs.
import { createHash, randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type App, type AppSettings, createApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { documentCost } from '../../src/graphql/apq-budget.js';
import { MAX_COMPILED } from '../../src/graphql/jit.js';
import { type Facet, keptFacet } from '../../src/listing/facets.js';
import { vocabularyPart } from '../../src/listing/typos.js';
import { readListingVersion } from '../../src/listing/version.js';
import { createListingTestDatabase, engineName, type TestDatabase } from '../helpers/database.js';
import { type Process, startRedis } from '../helpers/fleet.js';

const DEFAULTS = loadConfig({});
/** The caller at its bound, and the second caller. */
const A = '192.0.2.1';
const B = '198.51.100.2';

let db: TestDatabase;
let redis: Process;
let inspect: Redis;
const apps: App[] = [];

beforeAll(async () => {
  db = await createListingTestDatabase(20);
  redis = await startRedis();
  inspect = new Redis(redis.port, '127.0.0.1');
});
afterAll(async () => {
  for (const app of apps) await app.dispose();
  inspect?.disconnect();
  await redis?.stop();
  await db?.destroy();
});

function appWith(settings: Partial<AppSettings> = {}): App {
  const app = createApp({ db, settings: { rateLimit: { requests: 0, windowMs: 60_000 }, ...settings } });
  apps.push(app);
  return app;
}

/** Settings of an app on this file's own Redis. */
const onRedis = (settings: Partial<AppSettings> = {}): Partial<AppSettings> => ({
  redisUrl: `redis://127.0.0.1:${redis.port}`,
  redisTimeoutMs: 2000,
  ...settings,
});

async function reachingRedis(app: App): Promise<void> {
  for (let i = 0; i < 50; i++) {
    const health = (await (await app.fetch('http://x/healthz')).json()) as { redis?: string };
    if (health.redis === 'ok') return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error('never reached Redis');
}

type Body = { data?: Record<string, unknown>; errors?: { message: string; extensions?: { code?: string } }[] };

async function ask(app: App, clientAddress: string, body: object) {
  const response = await app.fetch(
    'http://x/graphql',
    {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify(body),
    },
    { clientAddress },
  );
  return { status: response.status, headers: response.headers, body: (await response.json()) as Body };
}

const code = (answer: { body: Body }) => answer.body.errors?.[0]?.extensions?.code;
const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
const persisted = (query: string) => ({ persistedQuery: { version: 1, sha256Hash: sha256(query) } });
const register = (app: App, from: string, query: string) => ask(app, from, { query, extensions: persisted(query) });
const byHash = (app: App, from: string, query: string) => ask(app, from, { extensions: persisted(query) });
/** A document no other has registered, padded with a comment to `bytes` bytes where asked. */
function fresh(bytes = 0): string {
  const query = `{ n${randomBytes(6).toString('hex')}: packages(limit: 2, seed: 3) { count } }`;
  return bytes > 0 ? `# ${'x'.repeat(bytes - query.length - 3)}\n${query}` : query;
}

describe(`what one caller may hold, on ${engineName}`, () => {
  it('rate-limit counts: one address past RATE_LIMIT is refused, a second is served, in memory and in Redis', async () => {
    await inspect.flushall();
    for (const settings of [{}, onRedis()]) {
      const app = appWith({ ...settings, rateLimit: { requests: 3, windowMs: 60_000 } });
      if (settings.redisUrl) await reachingRedis(app);
      for (let i = 0; i < 3; i++) expect((await ask(app, A, { query: '{ __typename }' })).status).toBe(200);
      const refused = await ask(app, A, { query: '{ __typename }' });
      expect([refused.status, code(refused)]).toEqual([429, 'RATE_LIMITED']);
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
      expect((await ask(app, B, { query: '{ __typename }' })).status).toBe(200);
    }
    // What the callers made Redis keep for the rate limit: one count each.
    expect((await inspect.keys('listing-rl*')).sort()).toEqual([`listing-rl:ip:${A}`, `listing-rl:ip:${B}`]);
  });

  it('APQ in memory: one address past APQ_REGISTRATIONS is refused, a second registers again what it evicted', async () => {
    // No response cache: a registration's answer kept by it would be served without registering again.
    const app = appWith({ responseCacheBytes: 0, apq: { ...DEFAULTS.apq, maxQueries: 3, registrationsPerMinute: 3 } });
    const mine = fresh();
    expect((await register(app, B, mine)).status).toBe(200);
    for (let i = 0; i < 3; i++) expect((await register(app, A, fresh())).status).toBe(200);
    const refused = await register(app, A, fresh());
    expect([refused.status, code(refused)]).toEqual([429, 'RATE_LIMITED']);
    // The first caller's documents took the instance's places: the second's hash is unknown, and registered again.
    expect(code(await byHash(app, B, mine))).toBe('PERSISTED_QUERY_NOT_FOUND');
    expect((await register(app, B, mine)).status).toBe(200);
    expect((await byHash(app, B, mine)).status).toBe(200);
  });

  it('APQ in Redis: one address past APQ_MAX_BYTES_PER_CALLER is refused, a second registers and is shared', async () => {
    await inspect.flushall();
    const budget = documentCost(fresh(4000)) * 3;
    const settings = onRedis({ responseCacheBytes: 0, apq: { ...DEFAULTS.apq, maxBytesPerCaller: budget } });
    const [one, other] = [appWith(settings), appWith(settings)];
    await Promise.all([reachingRedis(one), reachingRedis(other)]);
    for (let i = 0; i < 3; i++) expect((await register(one, A, fresh(4000))).status).toBe(200);
    const refused = await register(one, A, fresh(4000));
    expect([refused.status, code(refused)]).toEqual([429, 'RATE_LIMITED']);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    const mine = fresh(4000);
    expect((await register(one, B, mine)).status).toBe(200);
    expect((await byHash(other, B, mine)).status).toBe(200);
  });

  it('match sets: one address fills FILTER_CACHE_BYTES, a second reads its filter again and is served the same', async () => {
    const app = appWith({ filterCacheBytes: 2048, responseCacheBytes: 0 });
    const page = (from: string, min: string) =>
      ask(app, from, {
        query:
          'query ($min: Decimal) { packages(limit: 3, seed: 1, filter: { currency: "USD", priceMin: $min, search: "golden" }) { count results { id } } }',
        variables: { min },
      });
    const before = await page(B, '10.00');
    expect(before.status).toBe(200);
    for (let i = 0; i < 60; i++) expect((await page(A, `${100 + i}.00`)).status).toBe(200);
    const { result: after, statements } = await db.statements.record(() => page(B, '10.00'));
    expect(after.body).toEqual(before.body);
    expect(statements.some((text) => text.includes('string_agg(int4send(e.position)'))).toBe(true);
  });

  it("facet counts: one caller's fill the instance's 2,000, a second's are counted again, the same", async () => {
    const app = appWith({ responseCacheBytes: 0 });
    const facets = () =>
      ask(app, B, {
        query: `{ packages(limit: 1, seed: 1, filter: { categories: [1] }) { count facets {
          category { values { id count } } instantBooking { values { id count } } } } }`,
      });
    const before = await facets();
    expect(before.body.errors).toBeUndefined();
    const none: Facet = { id: 'category', label: 'Category', type: 'LIST', values: [] };
    for (let i = 0; i < 2100; i++)
      await keptFacet('another version', 'category', { priceMin: `${i}.00` }, async () => none);
    expect((await facets()).body).toEqual(before.body);
  });

  it("typo look-ups: one caller's unknown words fill the instance's 10,000, a second's typo is still corrected", async () => {
    const app = appWith({ responseCacheBytes: 0 });
    const count = async (filter: object) => {
      const answer = await ask(app, B, {
        query: 'query ($filter: PackageFilter) { packages(limit: 3, seed: 1, filter: $filter) { count } }',
        variables: { filter },
      });
      return (answer.body.data?.packages as { count: number } | undefined)?.count;
    };
    // A typo only a look-up corrects: as typed it is no word, no word's start and no folded form of a listed package
    // ("weding" is: it folds to "wed", as "wedding" does, and is found without a look-up).
    const typo = 'wdding';
    const [typed] = await db.read.single<{ n: number }>(
      { text: 'SELECT count(*)::int AS n FROM package_search WHERE document @@ package_search_query($1::text[])' },
      [[typo]],
    );
    expect(typed?.n).toBe(0);
    // Corrected, it finds what "wedding" finds: 3 here, the two demo packages titled "… Wedding …" and the edge
    // package in "Hochzeiten / Weddings".
    const wanted = await count({ search: 'wedding' });
    expect(wanted).toBe(3);
    expect(await count({ search: typo })).toBe(wanted);
    // The vocabulary the app read for this listing version, and 10,001 words no listing has looked up in it.
    const version = await readListingVersion((statement) => db.read.single(statement));
    const vocabulary = await vocabularyPart.of(
      { query: () => Promise.reject(new Error('the app has not read it')) },
      version,
    );
    for (let i = 0; i < 10_001; i++) vocabulary.closest(`zq${i}xw`);
    // A new filter with the same typo and the same packages (every category the listing has, the edge package's
    // 2,147,483,647 among them): its matches are read and its words looked up again.
    const categories = await db.read.single<{ category: number }>({ text: 'SELECT DISTINCT category FROM package' });
    expect(await count({ search: typo, categories: categories.map((row) => row.category) })).toBe(wanted);
  });

  it("the parse cache: one caller's large documents fill it, a second's query is parsed again, the same", async () => {
    const app = appWith({ responseCacheBytes: 0 });
    const mine = '{ packages(limit: 2, seed: 5) { count results { id } } }';
    const before = await ask(app, B, { query: mine });
    expect(before.status).toBe(200);
    // 12 documents of 95 kB: past the cache's million characters.
    for (let i = 0; i < 12; i++) {
      expect((await ask(app, A, { query: `# ${i} ${'x'.repeat(95_000)}\n{ __typename }` })).status).toBe(200);
    }
    expect((await ask(app, B, { query: mine })).body).toEqual(before.body);
  });

  it(`compiled operations: one caller's documents take the ${MAX_COMPILED} places, a second's is answered the same`, async () => {
    const app = appWith({ responseCacheBytes: 0 });
    const mine = '{ packages(limit: 2, seed: 5) { count results { id title } } }';
    const before = await ask(app, B, { query: mine });
    for (let run = 0; run < 3; run++) expect((await ask(app, B, { query: mine })).body).toEqual(before.body);
    for (let i = 0; i < MAX_COMPILED + 2; i++) {
      for (let run = 0; run < 3; run++)
        expect((await ask(app, A, { query: `{ a${i}: __typename }` })).status).toBe(200);
    }
    expect((await ask(app, B, { query: mine })).body).toEqual(before.body);
  });

  it("cached answers in memory: one caller's fill RESPONSE_CACHE_BYTES, a second's is made again, the same", async () => {
    const app = appWith({ responseCacheBytes: 32 * 1024 });
    const page = (from: string, seed: number) =>
      ask(app, from, { query: `{ packages(limit: 5, seed: ${seed}) { results { id title } } }` });
    const before = await page(B, 1);
    expect((await page(B, 1)).headers.get('x-cache')).toBe('hit');
    for (let seed = 2; seed < 100; seed++) expect((await page(A, seed)).status).toBe(200);
    const after = await page(B, 1);
    expect(after.headers.get('x-cache')).toBe('miss');
    expect(after.body).toEqual(before.body);
  });

  it("cached answers in Redis: one caller's fill Redis to its maxmemory, a second's is served", async () => {
    await inspect.flushall();
    await inspect.config('SET', 'maxmemory', '4mb');
    await inspect.config('SET', 'maxmemory-policy', 'allkeys-lru');
    try {
      const app = appWith(onRedis({ responseCacheBytes: 16 * 1024 }));
      await reachingRedis(app);
      const page = (from: string, seed: number) =>
        ask(app, from, { query: `{ packages(limit: 20, seed: ${seed}) { results { id title description } } }` });
      const before = await page(B, 1);
      for (let seed = 2; seed < 400; seed++) expect((await page(A, seed)).status).toBe(200);
      const memory = await inspect.info('memory');
      expect(Number(/used_memory:(\d+)/.exec(memory)?.[1])).toBeLessThan(5 * 1024 * 1024);
      expect(Number(/evicted_keys:(\d+)/.exec(await inspect.info('stats'))?.[1])).toBeGreaterThan(0);
      const after = await page(B, 1);
      expect(after.status).toBe(200);
      expect(after.body).toEqual(before.body);
    } finally {
      await inspect.config('SET', 'maxmemory', '0');
    }
  });

  it('purge claims: no caller makes one (two a superseded listing version, claimed by the instance that purges it)', async () => {
    await inspect.flushall();
    const app = appWith(onRedis({ purgeUrls: ['http://127.0.0.1:9/purge'], listingWatchMs: 50 }));
    await reachingRedis(app);
    for (let seed = 0; seed < 30; seed++) {
      expect((await ask(app, A, { query: `{ packages(limit: 2, seed: ${seed}) { count } }` })).status).toBe(200);
    }
    // The instance claims the versions this database recorded before the current one (it purges them as it
    // starts), whatever callers ask.
    const current = await readListingVersion((statement) => db.read.single(statement));
    const recorded = await db.read.single<{ version: string }>({
      text: 'SELECT version::text AS version FROM listing_version_history',
    });
    const superseded = recorded.map((row) => row.version).filter((version) => version !== current);
    const claimable = superseded.flatMap((version) => [`purge:${version}`, `purge:${version}:again`]);
    for (const key of await inspect.keys('purge:*')) expect(claimable).toContain(key);
  });
});
