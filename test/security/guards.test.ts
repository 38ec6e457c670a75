// The guards around both doors, on the app itself: CORS and CSRF, keys for the v2 path, the introspection
// switch, the per-limit refusals, the operation deadline and per-client rate limits (in memory and in Redis).
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ApiKey, hashKey } from '../../src/api-keys.js';
import { type AppSettings, createApp } from '../../src/app.js';
import { DEFAULT_LIMITS } from '../../src/config.js';
import { createListingTestDatabase, type TestDatabase } from '../helpers/database.js';
import { graphql } from '../helpers/graphql.js';

let db: TestDatabase;
beforeAll(async () => {
  db = await createListingTestDatabase(20);
});
afterAll(() => db?.destroy());

const ORIGIN = 'http://gateway.test';
const appWith = (settings: Partial<AppSettings> = {}) => createApp({ db, settings });
const keyNamed = (name: string, key: string): ApiKey => ({ name, scopes: new Set(), hash: hashKey(key) });

describe('CORS', () => {
  const preflight = (app: ReturnType<typeof appWith>, origin: string, path = '/graphql') =>
    app.fetch(`${ORIGIN}${path}`, {
      method: 'OPTIONS',
      headers: { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type' },
    });

  it('by default any site may read /graphql, never with credentials', async () => {
    const app = appWith();
    const response = await app.fetch(`${ORIGIN}/graphql?query={__typename}`, {
      headers: { origin: 'https://a.example' },
    });
    expect(response.headers.get('access-control-allow-origin')).toBe('*');
    expect(response.headers.get('access-control-allow-credentials')).toBeNull();
    const options = await preflight(app, 'https://a.example');
    expect(options.status).toBe(204);
    expect(options.headers.get('access-control-allow-methods')).toBe('GET, POST, OPTIONS');
    expect(options.headers.get('access-control-allow-headers')).toContain('Authorization');
  });

  it('with CORS_ORIGINS, only the listed origins get CORS, with credentials', async () => {
    const app = appWith({ corsOrigins: ['https://shop.example', 'https://admin.example'] });
    const listed = await preflight(app, 'https://shop.example');
    expect(listed.headers.get('access-control-allow-origin')).toBe('https://shop.example');
    expect(listed.headers.get('access-control-allow-credentials')).toBe('true');
    expect(listed.headers.get('vary')).toContain('Origin');
    const other = await app.fetch(`${ORIGIN}/graphql?query={__typename}`, {
      headers: { origin: 'https://evil.example' },
    });
    expect(other.headers.get('access-control-allow-origin')).toBeNull();
    expect(other.headers.get('access-control-allow-credentials')).toBeNull();
  });

  it('the v2 path, /metrics and /healthz carry no CORS; OPTIONS on v2 stays DRF metadata', async () => {
    const app = appWith();
    for (const path of ['/v2/local-package-list/', '/metrics', '/healthz']) {
      const response = await app.fetch(`${ORIGIN}${path}`, { headers: { origin: 'https://a.example' } });
      expect(response.headers.get('access-control-allow-origin'), path).toBeNull();
    }
    const v2 = await preflight(app, 'https://a.example', '/v2/local-package-list/');
    expect(v2.status).toBe(200);
    expect(await v2.text()).toContain('"name":"Local Package List"');
  });
});

describe('CSRF', () => {
  it.each(['application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', 'text/plain', ''])(
    'a POST with Content-Type %j is refused with 415 and does not run',
    async (type) => {
      const app = appWith();
      const { statements } = await db.statements.record(async () => {
        const response = await app.fetch(`${ORIGIN}/graphql`, {
          method: 'POST',
          headers: type ? { 'content-type': type } : {},
          body: 'query=%7Bpackages%7Bcount%7D%7D',
        });
        expect(response.status).toBe(415);
        expect(
          ((await response.json()) as { errors: { extensions: { code: string } }[] }).errors[0]?.extensions.code,
        ).toBe('UNSUPPORTED_MEDIA_TYPE');
      });
      expect(statements).toEqual([]);
    },
  );

  it('JSON POSTs and GET queries keep working without extra headers', async () => {
    const app = appWith();
    expect((await graphql(app, '{ packages(limit: 1) { count } }')).status).toBe(200);
    const get = await app.fetch(`${ORIGIN}/graphql?query=${encodeURIComponent('{ packages(limit: 1) { count } }')}`);
    expect(get.status).toBe(200);
  });
});

describe('keys on the v2 path (V2_API_KEYS)', () => {
  const key = 'lgw_v2-legacy-client';
  it('answers 401 as DRF does without a key or with a wrong one, and the page with a right one', async () => {
    const app = appWith({ v2ApiKeys: [keyNamed('legacy', key)] });
    const url = `${ORIGIN}/v2/local-package-list/?limit=1`;
    const none = await app.fetch(url);
    expect(none.status).toBe(401);
    expect(none.headers.get('content-type')).toBe('application/json');
    expect(none.headers.get('www-authenticate')).toMatch(/^Bearer/);
    expect(await none.text()).toBe('{"detail":"Authentication credentials were not provided."}');
    const wrong = await app.fetch(url, { headers: { authorization: 'Bearer lgw_wrong' } });
    expect(wrong.status).toBe(401);
    expect(await wrong.text()).toBe('{"detail":"Invalid token."}');
    const right = await app.fetch(url, { headers: { authorization: `Bearer ${key}` } });
    expect(right.status).toBe(200);
    // Off by default: the open path ignores any Authorization header.
    expect((await appWith().fetch(url, { headers: { authorization: 'Bearer whatever' } })).status).toBe(200);
  });
});

describe('introspection switch', () => {
  it('off: introspection refused, no field suggestions, no GraphiQL', async () => {
    const app = appWith({ introspection: false });
    const schema = await graphql(app, '{ __schema { types { name } } }');
    expect(schema.status).toBe(400);
    expect(schema.body.errors?.[0]?.message).toMatch(/introspection/i);
    const typo = await graphql(app, '{ packages { cont } }');
    expect(typo.body.errors?.[0]?.message).not.toMatch(/Did you mean/);
    const page = await app.fetch(`${ORIGIN}/graphql`, { headers: { accept: 'text/html' } });
    expect(await page.text()).not.toMatch(/<html/i);
  });

  it('on by default: field suggestions included', async () => {
    const typo = await graphql(appWith(), '{ packages { cont } }');
    expect(typo.body.errors?.[0]?.message).toMatch(/Did you mean "count"/);
  });
});

describe('limits at their edges', () => {
  it('depth, directives and fields are refused just past their limit and pass at it', async () => {
    const app = appWith({ limits: { ...DEFAULT_LIMITS, depth: 4, directives: 2, fields: 6 } });
    const atDepth = '{ packages { results { location { name } } } }';
    expect((await graphql(app, atDepth)).status).toBe(200);
    const deeper = await graphql(app, '{ packages { results { photographer { location { name } } } } }');
    expect(deeper.status).toBe(400);
    expect(deeper.body.errors?.[0]?.message).toBe('The query is 5 fields deep; the limit is 4.');
    const directives = await graphql(
      app,
      '{ a: __typename @skip(if: false) b: __typename @skip(if: false) c: __typename @skip(if: false) }',
    );
    expect(directives.body.errors?.[0]?.message).toBe('The query uses 3 directives; the limit is 2.');
    const fields = await graphql(app, '{ packages { count results { id title price category } } }');
    expect(fields.body.errors?.[0]?.message).toBe(
      'The query selects 7 fields once its fragments are expanded; the limit is 6.',
    );
  });

  it('cost counts each field once per item of the page asked for', async () => {
    const app = appWith({ limits: { ...DEFAULT_LIMITS, cost: 300 } });
    expect((await graphql(app, '{ packages(limit: 99) { results { id title } } }')).status).toBe(200);
    const over = await graphql(app, '{ packages(limit: 100) { results { id title } } }');
    expect(over.status).toBe(400);
    expect(over.body.errors?.[0]?.extensions).toMatchObject({
      code: 'QUERY_LIMIT_EXCEEDED',
      limit: 'cost',
      max: 300,
      actual: 301,
    });
  });
});

describe('the operation deadline', () => {
  it('answers TIMEOUT (504) on GraphQL and 503 on v2 when the database does not answer in time', async () => {
    const app = appWith({ requestTimeoutMs: 300 });
    let release = () => {};
    let locked = () => {};
    const held = new Promise<void>((resolve) => (release = resolve));
    const isLocked = new Promise<void>((resolve) => (locked = resolve));
    // Another session holds the listing: reads of it wait (on PGlite, the whole database waits).
    const locking = db.prisma.$transaction(
      async (tx) => {
        await tx.$executeRawUnsafe('LOCK TABLE listing_entry IN ACCESS EXCLUSIVE MODE');
        locked();
        await held;
      },
      { timeout: 20_000 },
    );
    await isLocked;
    try {
      const started = performance.now();
      const { status, body } = await graphql(app, '{ packages(limit: 1) { count } }');
      expect(performance.now() - started).toBeLessThan(1500);
      expect(status).toBe(504);
      expect(body.errors?.[0]?.extensions?.code).toBe('TIMEOUT');
      expect(body.errors?.[0]?.message).toBe('The operation took longer than 0.3 s and was stopped.');
      const v2 = await app.fetch(`${ORIGIN}/v2/local-package-list/?limit=1`);
      expect(v2.status).toBe(503);
      expect(v2.headers.get('retry-after')).toBeTruthy();
      expect(await v2.text()).toBe('{"detail":"Service temporarily unavailable."}');
    } finally {
      release();
      await locking;
    }
  });
});

describe('rate limits', () => {
  const limited = (extra: Partial<AppSettings> = {}) =>
    appWith({ rateLimit: { requests: 3, windowMs: 60_000 }, ...extra });

  it("answer 429 with Retry-After past the budget, on both doors, in each door's words", async () => {
    const app = limited();
    for (let i = 0; i < 3; i++) expect((await graphql(app, '{ __typename }')).status).toBe(200);
    const refused = await graphql(app, '{ __typename }');
    expect(refused.status).toBe(429);
    expect(refused.body.errors?.[0]?.extensions?.code).toBe('RATE_LIMITED');
    const v2 = await app.fetch(`${ORIGIN}/v2/local-package-list/?limit=1`);
    expect(v2.status).toBe(429);
    const wait = Number(v2.headers.get('retry-after'));
    expect(wait).toBeGreaterThan(0);
    expect(await v2.text()).toBe(`{"detail":"Request was throttled. Expected available in ${wait} seconds."}`);
    expect(v2.headers.get('vary')).toBe('Accept, Accept-Encoding');
    // Health checks and metrics are not counted.
    expect((await app.fetch(`${ORIGIN}/healthz`)).status).toBe(200);
  });

  it('count per API key apart from the address', async () => {
    const key = 'lgw_rate-test';
    const app = limited({ apiKeys: [keyNamed('rate-test', key)] });
    for (let i = 0; i < 3; i++) await graphql(app, '{ __typename }');
    expect((await graphql(app, '{ __typename }')).status).toBe(429);
    expect((await graphql(app, '{ __typename }', {}, { key })).status).toBe(200);
  });

  it('share one budget between instances through Redis', async () => {
    const key = `lgw_${randomBytes(8).toString('hex')}`;
    const keys = [keyNamed(`shared-${randomBytes(6).toString('hex')}`, key)];
    const settings = {
      rateLimit: { requests: 4, windowMs: 60_000 },
      redisUrl: 'redis://127.0.0.1:6379',
      apiKeys: keys,
    };
    const [a, b] = [appWith(settings), appWith(settings)];
    // Until its connection is up, an instance counts in memory: wait until both say Redis is ok (a few ms on a
    // quiet machine; a fixed 300 ms wait was not always enough on a loaded CI).
    const redisOk = async (app: typeof a) =>
      ((await (await app.fetch(`${ORIGIN}/healthz`)).json()) as { redis?: string }).redis === 'ok';
    for (let i = 0; i < 100 && !((await redisOk(a)) && (await redisOk(b))); i++) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    try {
      const statuses = [];
      for (const app of [a, b, a, b, a]) statuses.push((await graphql(app, '{ __typename }', {}, { key })).status);
      expect(statuses).toEqual([200, 200, 200, 200, 429]);
      expect((await graphql(b, '{ __typename }', {}, { key })).status).toBe(429);
    } finally {
      await Promise.all([a.dispose(), b.dispose()]);
    }
  });

  it('keep counting in memory when Redis cannot be reached', async () => {
    const app = limited({ redisUrl: 'redis://127.0.0.1:1' });
    try {
      const statuses = [];
      for (let i = 0; i < 4; i++) statuses.push((await graphql(app, '{ __typename }')).status);
      expect(statuses).toEqual([200, 200, 200, 429]);
    } finally {
      await app.dispose();
    }
  });
});
