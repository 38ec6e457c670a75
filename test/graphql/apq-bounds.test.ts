// Automatic persisted queries, in process: what a registration must pass (the query's own hash, the token limit,
// the per-client rate), how malformed extensions are refused, PERSISTED_OPERATIONS_ONLY, sharing through Redis,
// and a hash-only GET cached, ETagged and answered 304 like any other GET.
import { createHash, randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AppSettings, createApp } from '../../src/app.js';
import { createListingTestDatabase, engineName, type TestDatabase } from '../helpers/database.js';
import { tempDir } from '../import/helpers.js';

const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
const ORIGIN = 'http://x';

let db: TestDatabase;
const apps: ReturnType<typeof createApp>[] = [];
const dir = tempDir('apq-');

beforeAll(async () => {
  db = await createListingTestDatabase(20);
});
afterAll(async () => {
  for (const app of apps) await app.dispose();
  await db?.destroy();
  dir.remove();
});

function appWith(settings: Partial<AppSettings> = {}) {
  const app = createApp({ db, settings: { rateLimit: { requests: 0, windowMs: 60_000 }, ...settings } });
  apps.push(app);
  return app;
}

type App = ReturnType<typeof createApp>;
type Body = { data?: unknown; errors?: { message: string; extensions?: { code?: string } }[] };

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
/** A document no other run has registered (Redis outlives a run): its alias is random. */
const unique = (selection = 'count') =>
  `query Q { n${randomBytes(6).toString('hex')}: packages(limit: 2, seed: 3) { ${selection} } }`;
const persisted = (hash: unknown, version: unknown = 1) => ({ persistedQuery: { version, sha256Hash: hash } });

async function post(app: App, body: object) {
  const response = await app.fetch(`${ORIGIN}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: response.status, headers: response.headers, body: (await response.json()) as Body };
}

const register = (app: App, query: string, hash = sha256(query)) => post(app, { query, extensions: persisted(hash) });
const byHash = (app: App, hash: string) => post(app, { extensions: persisted(hash) });
const getUrl = (hash: string) => `${ORIGIN}/graphql?extensions=${encodeURIComponent(JSON.stringify(persisted(hash)))}`;

/** Resolves once the app says it reaches Redis. */
async function reachingRedis(app: App): Promise<void> {
  for (let i = 0; i < 50; i++) {
    const health = (await (await app.fetch(`${ORIGIN}/healthz`)).json()) as { redis?: string };
    if (health.redis === 'ok') return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error('never reached Redis');
}

const code = (body: Body) => body.errors?.[0]?.extensions?.code;

describe(`automatic persisted queries on ${engineName}`, () => {
  it('answers an unknown hash PersistedQueryNotFound, uncacheable, and runs it by hash once registered', async () => {
    const app = appWith();
    const query = unique();
    const missed = await byHash(app, sha256(query));
    expect(missed.status).toBe(400);
    expect(missed.body.errors?.[0]?.message).toBe('PersistedQueryNotFound');
    expect(code(missed.body)).toBe('PERSISTED_QUERY_NOT_FOUND');
    expect(missed.headers.get('cache-control')).toBe('no-store');

    const registered = await register(app, query);
    expect(registered.status).toBe(200);
    const found = await byHash(app, sha256(query));
    expect(found.status).toBe(200);
    expect(found.body).toEqual(registered.body);
    expect(found.body).toEqual((await post(app, { query })).body);
  });

  it('refuses a query whose hash is another query’s, and registers nothing', async () => {
    const app = appWith();
    const query = unique();
    const other = sha256(unique());
    const refused = await register(app, query, other);
    expect(refused.status).toBe(400);
    expect(code(refused.body)).toBe('PERSISTED_QUERY_MISMATCH');
    expect(code((await byHash(app, other)).body)).toBe('PERSISTED_QUERY_NOT_FOUND');
  });

  it('refuses to register a document over the token limit', async () => {
    const app = appWith();
    const query = `{ __typename ${'a: __typename '.repeat(1100)} }`; // 3,303 tokens: the limit is 3,000
    const refused = await register(app, query);
    expect(refused.status).toBe(400);
    expect(code(refused.body)).toBe('QUERY_LIMIT_EXCEEDED');
    expect(code((await byHash(app, sha256(query))).body)).toBe('PERSISTED_QUERY_NOT_FOUND');
  });

  it('refuses malformed extensions with a 400 naming the shape, never a 5xx', async () => {
    const app = appWith();
    const query = unique();
    for (const extensions of [
      persisted(sha256(query), 2),
      persisted(12345),
      persisted({ $gt: '' }),
      persisted('not-a-hash'),
      persisted('a'.repeat(5000)),
      { persistedQuery: 'yes' },
      { persistedQuery: [1] },
    ]) {
      for (const body of [{ extensions }, { query, extensions }]) {
        const refused = await post(app, body);
        expect(refused.status, JSON.stringify(body)).toBe(400);
        expect(refused.body.errors?.[0]?.message).toMatch(/extensions\.persistedQuery as \{"version": 1/);
      }
    }
    const overGet = await app.fetch(
      `${ORIGIN}/graphql?extensions=${encodeURIComponent('{"persistedQuery":{"version":1,"sha256Hash":null}}')}`,
    );
    expect(overGet.status).toBe(400);
  });

  it('bounds the new documents a client registers per minute with a 429, and counts no known one', async () => {
    const app = appWith({ apq: { maxQueries: 100, maxBytes: 1 << 20, registrationsPerMinute: 2, ttlMs: 60_000 } });
    const [first, second, third] = [unique(), unique(), unique()] as [string, string, string];
    expect((await register(app, first)).status).toBe(200);
    expect((await register(app, second)).status).toBe(200);
    expect((await register(app, first)).status).toBe(200); // known: not a new registration
    const refused = await register(app, third);
    expect(refused.status).toBe(429);
    expect(code(refused.body)).toBe('RATE_LIMITED');
    expect(refused.body.errors?.[0]?.message).toMatch(/^Too many new persisted queries: the limit is 2 per minute/);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(code((await byHash(app, sha256(third))).body)).toBe('PERSISTED_QUERY_NOT_FOUND');
    expect((await byHash(app, sha256(first))).status).toBe(200);
  });

  it('keeps registered documents in an LRU bounded by count', async () => {
    const app = appWith({ apq: { maxQueries: 2, maxBytes: 1 << 20, registrationsPerMinute: 0, ttlMs: 60_000 } });
    const queries = [unique(), unique(), unique()];
    for (const query of queries) expect((await register(app, query)).status).toBe(200);
    expect(code((await byHash(app, sha256(queries[0] as string))).body)).toBe('PERSISTED_QUERY_NOT_FOUND');
    expect((await byHash(app, sha256(queries[2] as string))).status).toBe(200);
  });

  it('is off under PERSISTED_OPERATIONS_ONLY: a registration is refused as any query sent as text', async () => {
    const manifest = join(dir.path, 'manifest.json');
    const trusted = unique();
    writeFileSync(manifest, JSON.stringify({ [`sha256:${sha256(trusted)}`]: trusted }));
    const app = appWith({ persistedOperations: { file: manifest, only: true } });
    const query = unique();
    const refused = await register(app, query);
    expect(refused.status).toBe(400);
    expect(code(refused.body)).toBe('PERSISTED_QUERY_ONLY');
    expect(code((await byHash(app, sha256(query))).body)).toBe('PERSISTED_QUERY_NOT_FOUND');
    expect((await byHash(app, sha256(trusted))).status).toBe(200);
    // Without `only`, the manifest's hashes and registered ones both run.
    const open = appWith({ persistedOperations: { file: manifest, only: false } });
    expect((await byHash(open, sha256(trusted))).status).toBe(200);
    expect((await register(open, query)).status).toBe(200);
    expect((await byHash(open, sha256(query))).status).toBe(200);
  });

  it('serves a hash-only GET from the cache with an ETag and a 304, each hash its own answer', async () => {
    // No seed: the order is drawn from the pool (of one seed here), which the key must name: it reads the
    // document the hash stands for.
    const app = appWith({ seedPool: 1 });
    const [one, two] = [unique('results { id }'), unique('count')].map((q) => q.replace(', seed: 3', '')) as [
      string,
      string,
    ];
    for (const query of [one, two]) expect((await register(app, query)).status).toBe(200);
    const first = await app.fetch(getUrl(sha256(one)), { headers: { accept: 'application/json' } });
    expect(first.status).toBe(200);
    expect(first.headers.get('x-cache')).toBe('miss');
    const etag = first.headers.get('etag') as string;
    expect(etag).toMatch(/^"/);
    const body = (await first.json()) as Body;
    expect(body.errors).toBeUndefined();

    const again = await app.fetch(getUrl(sha256(one)), { headers: { accept: 'application/json' } });
    expect(again.headers.get('x-cache')).toBe('hit');
    expect(await again.json()).toEqual(body);
    const revalidated = await app.fetch(getUrl(sha256(one)), {
      headers: { accept: 'application/json', 'if-none-match': etag },
    });
    expect(revalidated.status).toBe(304);

    const other = await app.fetch(getUrl(sha256(two)), { headers: { accept: 'application/json' } });
    expect(other.headers.get('x-cache')).toBe('miss');
    expect(other.headers.get('etag')).not.toBe(etag);
    const otherData = ((await other.json()) as { data: object }).data;
    expect(Object.keys(otherData)).not.toEqual(Object.keys(body.data as object));

    // By hash over POST too (kept without validators, as any POST).
    expect((await byHash(app, sha256(two))).headers.get('x-cache')).toBe('miss');
    expect((await byHash(app, sha256(two))).headers.get('x-cache')).toBe('hit');
  });

  it('shares registrations through Redis, and goes on from memory while Redis is away', async () => {
    const query = unique();
    const a = appWith({ redisUrl: REDIS_URL, responseCacheBytes: 0 });
    const b = appWith({ redisUrl: REDIS_URL, responseCacheBytes: 0 });
    await Promise.all([reachingRedis(a), reachingRedis(b)]); // until then: memory only
    expect((await register(a, query)).status).toBe(200);
    const fromB = await byHash(b, sha256(query));
    expect(fromB.status).toBe(200);
    expect(fromB.body.errors).toBeUndefined();

    const away = appWith({ redisUrl: 'redis://127.0.0.1:1', redisTimeoutMs: 20, responseCacheBytes: 0 });
    const alone = unique();
    expect(code((await byHash(away, sha256(alone))).body)).toBe('PERSISTED_QUERY_NOT_FOUND');
    expect((await register(away, alone)).status).toBe(200);
    expect((await byHash(away, sha256(alone))).status).toBe(200);
  });
});
