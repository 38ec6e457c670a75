// Automatic persisted queries, in process: what a registration must pass (the query's own hash, the byte and token
// limits, the per-client rate and bytes), how malformed extensions are refused, PERSISTED_OPERATIONS_ONLY, sharing
// through Redis within its bound, and a hash-only GET cached, ETagged and answered 304 like any other GET.
import { createHash, randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AppSettings, createApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { documentCost } from '../../src/graphql/apq-budget.js';
import { createListingTestDatabase, engineName, type TestDatabase } from '../helpers/database.js';
import { type Process, startRedis } from '../helpers/fleet.js';
import { tempDir } from '../import/helpers.js';

const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
const DEFAULTS = loadConfig({});
const ORIGIN = 'http://x';

let db: TestDatabase;
const apps: ReturnType<typeof createApp>[] = [];
const dir = tempDir('apq-');
/** A Redis of this file's own, for counting what the registrations leave in it. */
let privateRedis: Process;
let inspect: Redis;

beforeAll(async () => {
  db = await createListingTestDatabase(20);
  privateRedis = await startRedis();
  inspect = new Redis(privateRedis.port, '127.0.0.1');
});
afterAll(async () => {
  for (const app of apps) await app.dispose();
  inspect?.disconnect();
  await privateRedis?.stop();
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

async function post(app: App, body: object, clientAddress = '192.0.2.1') {
  const response = await app.fetch(
    `${ORIGIN}/graphql`,
    {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify(body),
    },
    { clientAddress },
  );
  return { status: response.status, headers: response.headers, body: (await response.json()) as Body };
}

const register = (app: App, query: string, hash = sha256(query)) => post(app, { query, extensions: persisted(hash) });
const registerFrom = (clientAddress: string, app: App, query: string) =>
  post(app, { query, extensions: persisted(sha256(query)) }, clientAddress);
/** A new document of exactly `bytes` bytes (UTF-8): a query padded with a comment. */
const padded = (bytes: number) => {
  const query = unique();
  return `# ${'x'.repeat(bytes - query.length - 3)}\n${query}`;
};
/** What the APQ keys of the private Redis take (documents and counters), as Redis itself measures them. */
async function apqBytesInRedis(): Promise<number> {
  let total = 0;
  for (const key of await inspect.keys('lgw:apq*')) total += (await inspect.memory('USAGE', key)) ?? 0;
  return total;
}
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
  it('answers an unknown hash as Apollo Server does, by GET and POST in both media types, and never keeps it', async () => {
    const app = appWith();
    for (const accept of ['application/json', 'application/graphql-response+json']) {
      const query = unique();
      const hash = sha256(query);
      const byGet = () => app.fetch(getUrl(hash), { headers: { accept } });
      const byPost = () =>
        app.fetch(`${ORIGIN}/graphql`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', accept },
          body: JSON.stringify({ extensions: persisted(hash) }),
        });
      // By GET twice: the second would be a kept copy of the first, if there were one.
      for (const ask of [byGet, byPost, byGet]) {
        const missed = await ask();
        expect(missed.status, accept).toBe(200);
        expect(missed.headers.get('content-type')).toContain(accept);
        expect(await missed.json()).toEqual({
          errors: [{ message: 'PersistedQueryNotFound', extensions: { code: 'PERSISTED_QUERY_NOT_FOUND' } }],
        });
        expect(missed.headers.get('cache-control')).toBe('private, no-cache, must-revalidate');
        for (const name of ['surrogate-control', 'surrogate-key', 'etag', 'x-cache']) {
          expect(missed.headers.get(name), name).toBeNull();
        }
      }
      // Registered, the same requests get the document's answer: made now (a cache miss), not the miss kept.
      expect((await register(app, query)).status).toBe(200);
      const expected = (await post(app, { query })).body;
      expect(expected.errors).toBeUndefined();
      for (const ask of [byGet, byPost]) {
        const found = await ask();
        expect(found.status).toBe(200);
        expect(found.headers.get('x-cache')).toBe('miss');
        expect(await found.json()).toEqual(expected);
      }
      expect((await byGet()).headers.get('x-cache')).toBe('hit');
    }
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

  it('refuses to register a document over APQ_MAX_DOCUMENT_BYTES, comments counted, before it is kept', async () => {
    const app = appWith();
    const limit = DEFAULTS.apq.maxDocumentBytes;
    // A one-field query behind a 95 kB comment: 11 tokens, well within GRAPHQL_MAX_TOKENS.
    const query = padded(95_000);
    const refused = await register(app, query);
    expect(refused.status).toBe(400);
    expect(refused.body.errors?.[0]).toEqual({
      message: `The document to register as a persisted query has 95000 bytes (UTF-8); the limit is ${limit}.`,
      extensions: { code: 'QUERY_LIMIT_EXCEEDED', limit: 'documentBytes', max: limit, actual: 95_000 },
    });
    expect(code((await byHash(app, sha256(query))).body)).toBe('PERSISTED_QUERY_NOT_FOUND');
    // Bytes, not characters: 8,193 two-byte characters are over a limit of 16,384.
    const accented = `# ${'é'.repeat(limit / 2)}\n${unique()}`;
    expect(code((await register(app, accented)).body)).toBe('QUERY_LIMIT_EXCEEDED');
    const atLimit = padded(limit);
    expect((await register(app, atLimit)).status).toBe(200);
    expect((await byHash(app, sha256(atLimit))).status).toBe(200);
  });

  it('keeps no more in Redis than APQ_MAX_BYTES_PER_CALLER for 30 registrations from one address', async () => {
    await inspect.flushall();
    const redisUrl = `redis://127.0.0.1:${privateRedis.port}`;
    const app = appWith({ redisUrl, responseCacheBytes: 0, redisTimeoutMs: 2000 });
    await reachingRedis(app);
    const budget = DEFAULTS.apq.maxBytesPerCaller;
    // As large as a request body allows: each is refused, and nothing of them is kept.
    for (let i = 0; i < 30; i++) expect((await register(app, padded(95_000))).status).toBe(400);
    expect(await apqBytesInRedis()).toBe(0);

    // As large as a registration allows: the budget holds so many, then 429 until the oldest would have expired.
    const fitting = Math.floor(budget / documentCost(padded(DEFAULTS.apq.maxDocumentBytes)));
    const statuses: number[] = [];
    let refusal: Awaited<ReturnType<typeof register>> | undefined;
    for (let i = 0; i < 30; i++) {
      const answer = await register(app, padded(DEFAULTS.apq.maxDocumentBytes));
      statuses.push(answer.status);
      if (answer.status === 429) refusal ??= answer;
    }
    expect(statuses).toEqual([...Array(fitting).fill(200), ...Array(30 - fitting).fill(429)]);
    expect(code(refusal?.body as Body)).toBe('RATE_LIMITED');
    expect(refusal?.body.errors?.[0]?.message).toMatch(
      new RegExp(`^Too many bytes of new persisted queries: the limit is ${budget} per client within 86400 s\\.`),
    );
    const wait = Number(refusal?.headers.get('retry-after'));
    expect(wait).toBeGreaterThan(86_400 - 3600);
    expect(wait).toBeLessThanOrEqual(86_400 + 3600);
    const kept = await apqBytesInRedis();
    expect(kept).toBeGreaterThan(0);
    expect(kept).toBeLessThanOrEqual(budget);
  });

  it('keeps registrations past APQ_REDIS_MAX_BYTES in memory alone, serves them, and says so once', async () => {
    await inspect.flushall();
    const redisUrl = `redis://127.0.0.1:${privateRedis.port}`;
    const lines: string[] = [];
    const logger = pino({ level: 'info' }, { write: (line: string) => lines.push(line) });
    const queries = Array.from({ length: 5 }, () => padded(2000));
    const total = documentCost(queries[0] as string) * 3;
    const settings = {
      redisUrl,
      responseCacheBytes: 0,
      redisTimeoutMs: 2000,
      apq: { ...DEFAULTS.apq, redisMaxBytes: total },
    };
    const a = createApp({ db, logger, settings: { ...settings, rateLimit: { requests: 0, windowMs: 60_000 } } });
    apps.push(a);
    const b = appWith(settings);
    await Promise.all([reachingRedis(a), reachingRedis(b)]);
    // From five addresses, so that no caller's own budget is what stops them.
    for (const [i, query] of queries.entries()) {
      expect((await registerFrom(`198.51.100.${i}`, a, query)).status).toBe(200);
      expect((await byHash(a, sha256(query))).status).toBe(200);
    }
    const onB = await Promise.all(queries.map(async (query) => code((await byHash(b, sha256(query))).body)));
    expect(onB).toEqual([undefined, undefined, undefined, 'PERSISTED_QUERY_NOT_FOUND', 'PERSISTED_QUERY_NOT_FOUND']);
    expect(await apqBytesInRedis()).toBeLessThanOrEqual(total + 5 * 100); // and the callers' counters
    const metrics = await (await a.fetch(`${ORIGIN}/metrics`)).text();
    expect(metrics).toMatch(/^apq_registrations_total\{outcome="shared"\} 3$/m);
    expect(metrics).toMatch(/^apq_registrations_total\{outcome="memory"\} 2$/m);
    expect(lines.filter((line) => line.includes('APQ_REDIS_MAX_BYTES'))).toHaveLength(1);
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
    const app = appWith({ apq: { ...DEFAULTS.apq, maxQueries: 100, registrationsPerMinute: 2, ttlMs: 60_000 } });
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
    const app = appWith({ apq: { ...DEFAULTS.apq, maxQueries: 2, registrationsPerMinute: 0, ttlMs: 60_000 } });
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
