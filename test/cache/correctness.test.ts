// The response cache changes nothing but speed: each case here is an answer the cache once changed. A client that
// did not ask for compression gets none, a forwarded host never reaches another client's links, an empty Accept is
// not an absent one, and a 304 stands only for a 200 whose representation matches.
import { brotliDecompressSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashKey } from '../../src/api-keys.js';
import { type AppSettings, createApp } from '../../src/app.js';
import { publicBaseFor } from '../../src/http/public-base.js';
import { createListingTestDatabase, engineName, type TestDatabase } from '../helpers/database.js';
import { TEST_KEYS } from '../helpers/graphql.js';

const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
const ORIGIN = 'http://localhost';
const LISTENING = 'http://127.0.0.1:4000';
const V2_KEY = 'lgw_v2-key-for-the-cache-tests';

let db: TestDatabase;
const apps: ReturnType<typeof createApp>[] = [];

/** An app as the server builds it: v2 links on the listening address, or the forwarded one behind a proxy. */
function appWith(settings: Partial<AppSettings> = {}) {
  const trustProxy = settings.trustProxy ?? false;
  const app = createApp({
    db,
    publicBase: publicBaseFor({ publicUrl: undefined, trustProxy }, LISTENING),
    settings: { apiKeys: TEST_KEYS, rateLimit: { requests: 0, windowMs: 60_000 }, ...settings },
  });
  apps.push(app);
  return app;
}

beforeAll(async () => {
  db = await createListingTestDatabase(30);
});
afterAll(async () => {
  for (const app of apps) await app.dispose();
  await db?.destroy();
});

// A seed per test run: entries other runs left in Redis are never found.
const seed = Date.now() % 1_000_000;
const v2 = (query = '') => `${ORIGIN}/v2/local-package-list/?limit=20&seed=${seed}${query}`;

describe(`the response cache changes nothing but speed, on ${engineName}`, () => {
  it('never answers with a Content-Encoding the request did not ask for', async () => {
    const app = appWith();
    const url = v2('&case=encoding');
    const plain = await (await appWith({ responseCacheBytes: 0 }).fetch(url)).text();
    for (let i = 0; i < 2; i++) {
      const br = await app.fetch(url, { headers: { 'accept-encoding': 'gzip, deflate, br' } });
      expect(br.headers.get('content-encoding')).toBe('br');
      expect(brotliDecompressSync(Buffer.from(await br.arrayBuffer())).toString()).toBe(plain);
    }
    for (const headers of [{}, { 'accept-encoding': 'identity' }, { 'accept-encoding': 'br;q=0, gzip;q=0' }]) {
      const answer = await app.fetch(url, { headers });
      expect(answer.headers.get('x-cache')).toBe('hit');
      expect(answer.headers.get('content-encoding')).toBeNull();
      expect(await answer.text()).toBe(plain);
    }
  });

  it('keys v2 pages by the address their links are built on: a forwarded host never reaches another client', async () => {
    const behindProxy = appWith({ trustProxy: true, redisUrl: REDIS_URL });
    const direct = appWith({ redisUrl: REDIS_URL });
    const url = v2('&case=poison');
    const poisoned = await behindProxy.fetch(url, {
      headers: { 'x-forwarded-host': 'evil.example', 'x-forwarded-proto': 'https' },
    });
    expect(await poisoned.text()).toContain('"next":"https://evil.example/');
    for (const answer of [await behindProxy.fetch(url), await direct.fetch(url)]) {
      const body = await answer.text();
      expect(body).not.toContain('evil.example');
      expect(body).toContain(`"next":"${LISTING}`);
    }
    const viaHost = await behindProxy.fetch(url, { headers: { host: 'evil.example' } });
    expect(await viaHost.text()).toContain('"next":"http://evil.example/');
    expect(await (await direct.fetch(url)).text()).not.toContain('evil.example');
  });

  it('tells an empty Accept from an absent one: the empty one is refused with 406, cached page or not', async () => {
    const app = appWith();
    const url = v2('&case=accept');
    expect((await app.fetch(url)).status).toBe(200);
    expect((await app.fetch(url)).headers.get('x-cache')).toBe('hit');
    const empty = await app.fetch(url, { headers: { accept: '' } });
    expect(empty.status).toBe(406);
    expect(await empty.text()).toBe('{"detail":"Could not satisfy the request Accept header."}');
  });

  it('answers If-None-Match: * with the real answer wherever that is not a cached 200', async () => {
    const app = appWith({ v2ApiKeys: [{ name: 'legacy', scopes: new Set(), hash: hashKey(V2_KEY) }] });
    const star = { 'if-none-match': '*' };
    const v2Key = { authorization: `Bearer ${V2_KEY}` };
    const graphqlGet = (query: string) => `${ORIGIN}/graphql?query=${encodeURIComponent(query)}`;
    const cases: [string, RequestInit, number][] = [
      [`${ORIGIN}/v2/local-package-list/?seed=abc`, { headers: { ...star, ...v2Key } }, 400],
      [v2(), { headers: { ...star, ...v2Key, accept: 'text/csv' } }, 406],
      [v2(), { headers: star }, 401],
      [v2(), { method: 'DELETE', headers: { ...star, ...v2Key } }, 405],
      [graphqlGet('{ nope }'), { headers: star }, 400],
      [graphqlGet('mutation { nope }'), { headers: star }, 405],
      [graphqlGet(`{ packages(limit: 2, seed: ${seed}) { results { photographerEmail } } }`), { headers: star }, 200],
    ];
    for (const [url, init, status] of cases) {
      for (let i = 0; i < 2; i++) {
        const answer = await app.fetch(url, init);
        expect([url, init.method, answer.status]).toEqual([url, init.method, status]);
        expect(answer.headers.get('etag')).toBeNull();
      }
    }
    // A cached 200 of the v2 path with the key: now If-None-Match: * holds.
    expect((await app.fetch(v2(), { headers: v2Key })).status).toBe(200);
    expect((await app.fetch(v2(), { headers: { ...star, ...v2Key } })).status).toBe(304);
  });

  it('gives each encoding its own ETag, and a 304 only for the representation it matches', async () => {
    const app = appWith();
    const url = v2('&case=etags');
    const plain = await app.fetch(url);
    const identityTag = plain.headers.get('etag') as string;
    const br = await app.fetch(url, { headers: { 'accept-encoding': 'br' } });
    const brTag = br.headers.get('etag') as string;
    expect(brTag).toBe(`${identityTag.slice(0, -1)}-br"`);
    const ask = (encoding: string | null, tags: string) =>
      app.fetch(url, { headers: { 'if-none-match': tags, ...(encoding ? { 'accept-encoding': encoding } : {}) } });
    expect((await ask('br', identityTag)).status).toBe(200);
    expect((await ask(null, brTag)).status).toBe(200);
    const revalidated = await ask('br', `"other", W/${brTag}`);
    expect(revalidated.status).toBe(304);
    expect(revalidated.headers.get('etag')).toBe(brTag);
    expect(revalidated.headers.get('vary')).toBe('Accept, Accept-Encoding');
    expect(revalidated.headers.get('content-type')).toBeNull();
    expect((await ask(null, identityTag)).status).toBe(304);
  });
});

const LISTING = `${LISTENING}/v2/local-package-list/`;
