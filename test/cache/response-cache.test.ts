// The versioned response cache and HTTP caching: a repeated request is answered from the cache with the same
// bytes; an import between two requests changes the answer at once, on every instance sharing Redis; ETags
// and 304; answers that depend on chance, carry errors, or belong to another scope are never served from it.

import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { LISTING_VERSION, type ReadPath } from '../../src/db/sql.js';
import { generatePackages } from '../../src/demo/generate.js';
import { importSource } from '../../src/import/importer.js';
import type { V2Package } from '../../src/v2/records.js';
import { createTestDatabase, engineName, readingThrough, type TestDatabase } from '../helpers/database.js';
import { PRIVATE_KEY, TEST_KEYS } from '../helpers/graphql.js';
import { startTcpProxy } from '../helpers/tcp-proxy.js';
import { memorySource } from '../import/helpers.js';

const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
const ORIGIN = 'http://localhost';
const V2 = `${ORIGIN}/v2/local-package-list/?limit=100&seed=3`;

let db: TestDatabase;
let apps: ReturnType<typeof createApp>[] = [];
const records = [...generatePackages({ count: 30, seed: 31 })].map((r) => ({ ...r, status: 1 })) as V2Package[];

function newApp(settings: Parameters<typeof createApp>[0]['settings'] = {}) {
  const app = createApp({
    db,
    settings: { apiKeys: TEST_KEYS, rateLimit: { requests: 0, windowMs: 60_000 }, ...settings },
  });
  apps.push(app);
  return app;
}

beforeAll(async () => {
  db = await createTestDatabase();
  await importSource(db, memorySource(records));
});
afterAll(async () => {
  for (const app of apps) await app.dispose();
  apps = [];
  await db?.destroy();
});

const post = (app: ReturnType<typeof createApp>, query: string, headers: Record<string, string> = {}) =>
  app.fetch(`${ORIGIN}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json', ...headers },
    body: JSON.stringify({ query }),
  });

async function changePrice(index: number, price: string) {
  await importSource(db, memorySource([{ ...structuredClone(records[index] as V2Package), price }]));
}

describe(`the response cache on ${engineName}`, () => {
  it('answers a repeated v2 page from the cache with the same bytes, ETag and a 304 on If-None-Match', async () => {
    const app = newApp();
    const first = await app.fetch(V2);
    expect(first.headers.get('x-cache')).toBe('miss');
    const etag = first.headers.get('etag') as string;
    expect(etag).toMatch(/^"[A-Za-z0-9_-]{32}"$/);
    expect(first.headers.get('cache-control')).toBe('public, max-age=5, stale-while-revalidate=30');
    const body = await first.text();
    const second = await app.fetch(V2);
    expect(second.headers.get('x-cache')).toBe('hit');
    expect(second.headers.get('etag')).toBe(etag);
    expect(second.headers.get('content-type')).toBe('application/json');
    expect(second.headers.get('vary')).toContain('Accept');
    expect(await second.text()).toBe(body);

    const revalidated = await app.fetch(V2, { headers: { 'if-none-match': etag } });
    expect(revalidated.status).toBe(304);
    expect(await revalidated.text()).toBe('');
    expect(revalidated.headers.get('etag')).toBe(etag);
    const otherTag = await app.fetch(V2, { headers: { 'if-none-match': '"something-else"' } });
    expect(otherTag.status).toBe(200);
  });

  it('never serves a page of an older version: an import between two requests changes the answer at once', async () => {
    const app = newApp();
    const query = `{ packages(limit: 100, seed: 1) { results { id price } } }`;
    const before = await (await post(app, query)).json();
    expect((await post(app, query)).headers.get('x-cache')).toBe('hit');
    const v2Before = await (await app.fetch(V2)).text();
    await changePrice(2, '12.00');
    const after = await post(app, query);
    expect(after.headers.get('x-cache')).toBe('miss');
    const prices = ((await after.json()) as { data: { packages: { results: { id: string; price: string }[] } } }).data
      .packages.results;
    expect(prices.find((p) => p.id === records[2]?.identifier)?.price).toBe('12.00');
    expect(prices).not.toEqual((before as { data: { packages: { results: unknown[] } } }).data.packages.results);
    const v2After = await app.fetch(V2);
    expect(v2After.headers.get('x-cache')).toBe('miss');
    expect(await v2After.text()).not.toBe(v2Before);
  });

  it('keeps facets as it keeps pages: a repeat is a hit, an import counts again at once', async () => {
    const app = newApp();
    // A package under its currency's top price range, counted in that currency's ranges (the facet's edges are
    // per currency).
    const { photographer } = records[0] as V2Package;
    const currency = (photographer.override_currency_code || photographer.currency_code).toUpperCase();
    const index = records.findIndex(
      (r) =>
        !r.featured &&
        (r.photographer.override_currency_code || r.photographer.currency_code).toUpperCase() === currency,
    );
    const query = `{ packages(limit: 3, seed: 1, filter: { featured: false, currency: "${currency}" }) { facets { price { values { value count } } } } }`;
    type PriceFacet = { data: { packages: { facets: { price: { values: { value: string; count: number }[] } } } } };
    const ranges = async (response: Response) =>
      ((await response.json()) as PriceFacet).data.packages.facets.price.values;
    const first = await post(app, query);
    expect(first.headers.get('x-cache')).toBe('miss');
    const before = await ranges(first);
    const top = before.at(-1);
    expect(top?.value).toMatch(new RegExp(`^${currency}:[0-9.]+-$`));
    expect((await post(app, query)).headers.get('x-cache')).toBe('hit');
    // That package priced past every edge: the import bumps the version, the facet is counted again.
    const topFrom = Number(top?.value.slice(currency.length + 1, -1));
    expect(Number(records[index]?.price)).toBeLessThan(topFrom);
    await changePrice(index, (topFrom * 10).toFixed(2));
    const after = await post(app, query);
    expect(after.headers.get('x-cache')).toBe('miss');
    const counted = await ranges(after);
    expect(counted.find((v) => v.value === top?.value)?.count).toBe((top?.count ?? 0) + 1);
  });

  it('shares answers between instances through Redis, and both see an import at once', async () => {
    const [a, b] = [newApp({ redisUrl: REDIS_URL }), newApp({ redisUrl: REDIS_URL })] as const;
    await new Promise((resolve) => setTimeout(resolve, 300)); // both connect to Redis (until then: memory only)
    const query = `{ packages(limit: 100, seed: 99) { results { id title price } } }`;
    const fromA = await post(a, query);
    expect(fromA.headers.get('x-cache')).toBe('miss');
    const bytes = await fromA.text();
    // b has never seen it: the answer comes from Redis (Redis writes are not awaited: give it a moment).
    await new Promise((resolve) => setTimeout(resolve, 100));
    const fromB = await post(b, query);
    expect(fromB.headers.get('x-cache')).toBe('hit');
    expect(await fromB.text()).toBe(bytes);

    await changePrice(4, '13.00');
    const [afterA, afterB] = [await post(a, query), await post(b, query)];
    expect(afterA.headers.get('x-cache')).toBe('miss');
    const fresh = await afterA.text();
    expect(fresh).not.toBe(bytes);
    expect(fresh).toContain('"price":"13.00"');
    // b asks after a kept the new version's answer: from Redis or made anew, it is the new one.
    expect(await afterB.text()).toBe(fresh);
  });

  it('shares an answer made while Redis was away once Redis is back, at its next hit', async () => {
    const redis = new URL(REDIS_URL);
    const proxy = await startTcpProxy({ host: redis.hostname, port: Number(redis.port || 6379) });
    try {
      proxy.setMode('reset');
      const a = newApp({ redisUrl: proxy.url(REDIS_URL) });
      const query = `{ packages(limit: 7, seed: ${Date.now() % 1_000_000}) { results { id } } }`;
      const made = await post(a, query);
      expect(made.headers.get('x-cache')).toBe('miss'); // kept in a's memory only
      const bytes = await made.text();
      proxy.setMode('pass');
      // a reconnects within its retry delay; its hits meanwhile come from memory, the first one after it is
      // connected also writes the answer to Redis.
      for (let i = 0; i < 25; i++) {
        await new Promise((resolve) => setTimeout(resolve, 200));
        expect((await post(a, query)).headers.get('x-cache')).toBe('hit');
      }
      const b = newApp({ redisUrl: REDIS_URL });
      await new Promise((resolve) => setTimeout(resolve, 300)); // b connects
      const fromB = await post(b, query);
      expect(fromB.headers.get('x-cache')).toBe('hit');
      expect(await fromB.text()).toBe(bytes);
    } finally {
      await proxy.close();
    }
  });

  it('keeps an answer under the version its execution read, when an import committed after the key was made', async () => {
    // The cache reads the version for the key with `single`; here an import commits right after that read, so
    // the execution reads the next version.
    let importAfterNextVersionRead = false;
    const read: ReadPath = {
      session: (...args) => db.read.session(...args),
      async single(statement, params) {
        const rows = await db.read.single(statement, params);
        // The cache's read of the version (the instance's version watch reads the version with the size).
        if (importAfterNextVersionRead && statement === LISTING_VERSION) {
          importAfterNextVersionRead = false;
          await changePrice(6, '16.00');
        }
        return rows as never;
      },
    };
    const app = createApp({ db: readingThrough(db, read), settings: { rateLimit: { requests: 0, windowMs: 60_000 } } });
    apps.push(app);
    const page = `${ORIGIN}/v2/local-package-list/?limit=100&seed=66`;
    importAfterNextVersionRead = true;
    const made = await app.fetch(page);
    expect(made.headers.get('x-cache')).toBe('miss');
    const bytes = await made.text();
    expect(bytes).toContain('"price":"16.00"');
    // The next request reads the new version for its key: it finds the answer, under the ETag it was given.
    const next = await app.fetch(page);
    expect(next.headers.get('x-cache')).toBe('hit');
    expect(await next.text()).toBe(bytes);
    expect(next.headers.get('etag')).toBe(made.headers.get('etag'));
  });

  it('does not keep answers chosen at random, answers with errors, or requests of other kinds', async () => {
    const app = newApp({ seedPool: 0 }); // no pool of seeds: a request without one gets a seed of its own
    const noSeed = `{ packages(limit: 3) { seed results { id } } }`;
    for (let i = 0; i < 2; i++) expect((await post(app, noSeed)).headers.get('x-cache')).toBeNull();
    const bad = `{ packages(limit: 1000, seed: 1) { count } }`;
    for (let i = 0; i < 2; i++) expect((await post(app, bad)).headers.get('x-cache')).toBeNull();
    const v2NoSeed = `${ORIGIN}/v2/local-package-list/?limit=2`;
    for (let i = 0; i < 2; i++) expect((await app.fetch(v2NoSeed)).headers.get('etag')).toBeNull();
  });

  it('keeps private answers per scope: an anonymous caller never gets what a key unlocked', async () => {
    const app = newApp();
    const query = `{ packages(limit: 3, seed: 5) { results { photographerEmail } } }`;
    const keyed = await post(app, query, { authorization: `Bearer ${PRIVATE_KEY}` });
    const keyedBody = (await keyed.json()) as {
      data: { packages: { results: { photographerEmail: string | null }[] } };
    };
    expect(keyedBody.data.packages.results.every((r) => r.photographerEmail?.includes('@'))).toBe(true);
    expect(keyed.headers.get('cache-control')).toBe('private, no-cache');
    expect((await post(app, query, { authorization: `Bearer ${PRIVATE_KEY}` })).headers.get('x-cache')).toBe('hit');
    for (let i = 0; i < 2; i++) {
      const anonymous = await post(app, query);
      expect(anonymous.headers.get('x-cache')).toBeNull(); // withheld fields come with an error: not kept
      const body = (await anonymous.json()) as { data: { packages: { results: { photographerEmail: null }[] } } };
      expect(body.data.packages.results.every((r) => r.photographerEmail === null)).toBe(true);
    }
  });

  it('caches GraphQL over GET, answers 304 to a conditional GET, and can be turned off', async () => {
    const app = newApp();
    const url = `${ORIGIN}/graphql?query=${encodeURIComponent('{ packages(limit: 2, seed: 8) { results { id } } }')}`;
    const first = await app.fetch(url, { headers: { accept: 'application/json' } });
    expect(first.status).toBe(200);
    const etag = first.headers.get('etag') as string;
    const again = await app.fetch(url, { headers: { accept: 'application/json', 'if-none-match': etag } });
    expect(again.status).toBe(304);

    const off = newApp({ responseCacheBytes: 0 });
    for (let i = 0; i < 2; i++) {
      const answer = await off.fetch(V2);
      expect(answer.headers.get('x-cache')).toBeNull();
      expect(answer.headers.get('etag')).toBeNull();
    }
  });

  it('never answers a persisted query registration from the cache: the server must register it again', async () => {
    // Room for one registered document: registering a second one forgets the first.
    const app = newApp({ apq: { ...loadConfig({}).apq, maxQueries: 1 } });
    const hashOf = (query: string) => createHash('sha256').update(query).digest('hex');
    const register = (query: string) =>
      app.fetch(`${ORIGIN}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json' },
        body: JSON.stringify({ query, extensions: { persistedQuery: { version: 1, sha256Hash: hashOf(query) } } }),
      });
    const byHash = (query: string) =>
      app.fetch(
        `${ORIGIN}/graphql?extensions=${encodeURIComponent(JSON.stringify({ persistedQuery: { version: 1, sha256Hash: hashOf(query) } }))}`,
        { headers: { accept: 'application/json' } },
      );
    const first = '{ packages(limit: 2, seed: 41) { results { id } } }';
    const second = '{ packages(limit: 2, seed: 42) { results { id } } }';
    expect((await register(first)).status).toBe(200);
    expect((await register(second)).status).toBe(200);
    expect(JSON.stringify(await (await byHash(first)).json())).toContain('PersistedQueryNotFound');
    // The client registers it again, as APQ clients do on PersistedQueryNotFound; that must reach the server.
    const again = await register(first);
    expect(again.status).toBe(200);
    expect(again.headers.get('x-cache')).not.toBe('hit');
    const found = await byHash(first);
    expect(found.status).toBe(200);
    expect(JSON.stringify(await found.json())).not.toContain('PersistedQueryNotFound');
  });
});
