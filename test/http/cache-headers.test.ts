// What every answer tells the caches on its way, over real HTTP with the Node edge in front: an answer the gateway
// keeps for anyone is `public` with its Surrogate headers; one it keeps for an API key is `private, no-cache`;
// every other answer of every route (errors, refusals, redirects, streams, pages drawn at random, operators'
// routes, the edge's own 404 and 413) is `private, no-store` with no Surrogate header, so no CDN keeps what no
// purge would reach. Vary names what each door's answers depend on, and CORS answers are the same for every
// caller or say `Vary: Origin`.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ApiKey, hashKey } from '../../src/api-keys.js';
import type { AppSettings } from '../../src/app.js';
import { createListingTestDatabase, engineName, type TestDatabase } from '../helpers/database.js';
import { subscribe } from '../helpers/event-stream.js';
import { PRIVATE_KEY, TEST_KEYS } from '../helpers/graphql.js';
import { type Exchange, type ServedApp, send, serveApp } from '../helpers/http-server.js';

const PUBLIC = 'public, max-age=5, stale-while-revalidate=30';
const NOT_SHARED = 'private, no-store';
const V2_KEY = 'lgw_v2-client-key';

let db: TestDatabase;
const served: ServedApp[] = [];
beforeAll(async () => {
  db = await createListingTestDatabase(30);
});
afterAll(async () => {
  await Promise.all(served.map((s) => s.close()));
  await db?.destroy();
});

async function serve(settings: Partial<AppSettings> = {}): Promise<string> {
  const app = await serveApp(db, { apiKeys: TEST_KEYS, rateLimit: { requests: 0, windowMs: 60_000 }, ...settings });
  served.push(app);
  return app.url;
}

interface Ask {
  name: string;
  method?: string;
  path: string;
  headers?: Record<string, string>;
  body?: string;
}

const gql = (query: string) => `/graphql?query=${encodeURIComponent(query)}`;
const PAGE = gql('{ packages(limit: 3, seed: 5) { results { id title } } }');

function ask(url: string, { method = 'GET', path, headers = {}, body }: Ask): Promise<Exchange> {
  return send(url, { method, path, headers, ...(body !== undefined && { body }) });
}

const vary = (answer: Exchange) => (answer.headers.vary ?? '').split(',').map((v) => v.trim().toLowerCase());
const SURROGATE = ['surrogate-key', 'surrogate-control', 'cache-tag'];

function expectNotShared(answer: Exchange, name: string): void {
  expect(answer.headers['cache-control'], name).toMatch(/(^|,\s*)no-store(\s*,|$)/);
  expect(answer.headers['cache-control'], name).not.toMatch(/public/);
  for (const header of SURROGATE) expect(answer.headers[header], `${name}: ${header}`).toBeUndefined();
}

describe(`Cache-Control and Vary on every answer, ${engineName}`, () => {
  it('shares only the anonymous answers it keeps, each with its Surrogate headers, a 304 like its 200', async () => {
    const url = await serve();
    const shared: Ask[] = [
      { name: 'v2 page', path: '/v2/local-package-list/?limit=3&seed=4' },
      { name: 'v2 page, HEAD', method: 'HEAD', path: '/v2/local-package-list/?limit=3&seed=4' },
      { name: 'GraphQL GET', path: PAGE },
      { name: 'GraphQL GET, multipart', path: PAGE, headers: { accept: 'multipart/mixed' } },
    ];
    for (const request of shared) {
      for (const round of ['first', 'again']) {
        const answer = await ask(url, request);
        expect(answer.status, request.name).toBe(200);
        if (round === 'again') expect(answer.headers['x-cache'], request.name).toBe('hit');
        expect(answer.headers['cache-control'], request.name).toBe(PUBLIC);
        expect(answer.headers['surrogate-control'], request.name).toMatch(/^max-age=\d+$/);
        expect(answer.headers['surrogate-key'], request.name).toMatch(/^listing-\d+ /);
      }
    }
    const page = await ask(url, shared[0] as Ask);
    const unchanged = await ask(url, { ...(shared[0] as Ask), headers: { 'if-none-match': page.headers.etag ?? '' } });
    expect(unchanged.status).toBe(304);
    expect(unchanged.headers['cache-control']).toBe(PUBLIC);
    expect(unchanged.headers.vary).toBe(page.headers.vary);
  });

  it('an answer kept for an API key is private to it, filed nowhere', async () => {
    const url = await serve();
    for (const round of ['miss', 'hit']) {
      const answer = await ask(url, { name: 'keyed', path: PAGE, headers: { authorization: `Bearer ${PRIVATE_KEY}` } });
      expect(answer.headers['x-cache']).toBe(round);
      expect(answer.headers['cache-control']).toBe('private, no-cache');
      for (const header of SURROGATE) expect(answer.headers[header], header).toBeUndefined();
    }
  });

  it('every answer it does not keep is private, no-store, on every route', async () => {
    const url = await serve({ seedPool: 0 });
    const big = JSON.stringify({ query: `{ __typename } #${'x'.repeat(200 * 1024)}` });
    const notKept: Ask[] = [
      {
        name: 'private field, anonymous',
        path: gql('{ packages(limit: 2, seed: 5) { results { id photographerEmail } } }'),
      },
      { name: 'GraphQL validation error', path: gql('{ packages(limit: 2, seed: 5) { results { nope } } }') },
      { name: 'GraphQL syntax error', path: gql('{ packages(') },
      { name: 'GraphQL unknown key', path: PAGE, headers: { authorization: 'Bearer lgw_not-a-key' } },
      { name: 'GraphQL HEAD', method: 'HEAD', path: PAGE },
      { name: 'GraphQL mutation', path: gql('mutation { x }') },
      { name: 'GraphQL page drawn at random', path: gql('{ packages(limit: 2) { results { id } } }') },
      {
        name: 'GraphQL POST with errors',
        method: 'POST',
        path: '/graphql',
        headers: { 'content-type': 'application/json' },
        body: '{"query":"{ nope }"}',
      },
      {
        name: 'GraphQL form POST',
        method: 'POST',
        path: '/graphql',
        headers: { 'content-type': 'text/plain' },
        body: 'x',
      },
      { name: 'GraphiQL page', path: '/graphql', headers: { accept: 'text/html' } },
      {
        name: 'CORS preflight',
        method: 'OPTIONS',
        path: '/graphql',
        headers: { origin: 'https://a.example', 'access-control-request-method': 'POST' },
      },
      { name: 'v2 page drawn at random', path: '/v2/local-package-list/?limit=2' },
      { name: 'v2 bad parameter', path: '/v2/local-package-list/?limit=2&seed=abc' },
      { name: 'v2 not acceptable', path: '/v2/local-package-list/?seed=1', headers: { accept: 'text/html' } },
      { name: 'v2 redirect', path: '/v2/local-package-list?seed=1' },
      { name: 'v2 OPTIONS', method: 'OPTIONS', path: '/v2/local-package-list/' },
      {
        name: 'v2 POST',
        method: 'POST',
        path: '/v2/local-package-list/',
        headers: { 'content-type': 'application/json' },
        body: '{}',
      },
      { name: 'OpenAPI', path: '/v2/openapi.json' },
      { name: 'health', path: '/healthz' },
      { name: 'liveness', path: '/livez' },
      { name: 'metrics', path: '/metrics' },
      { name: 'unknown path (the edge)', path: '/nope' },
      { name: 'malformed Host (the edge)', path: '/graphql', headers: { host: 'a b' } },
      {
        name: 'body too large (the edge)',
        method: 'POST',
        path: '/graphql',
        headers: { 'content-type': 'application/json' },
        body: big,
      },
    ];
    for (const request of notKept) {
      const answer = await ask(url, request);
      expect(answer.headers['x-cache'], request.name).not.toBe('hit');
      expectNotShared(answer, `${request.name} (${answer.status})`);
    }
    // A persisted-query hash not known yet is answered as Apollo Server answers it (src/graphql/apq.ts): private
    // and revalidated, never kept, so the client's registration that follows is what the next request gets.
    const unknownHash = JSON.stringify({ persistedQuery: { version: 1, sha256Hash: 'a'.repeat(64) } });
    for (let round = 0; round < 2; round++) {
      const answer = await ask(url, {
        name: 'APQ hash not known',
        path: `/graphql?extensions=${encodeURIComponent(unknownHash)}`,
      });
      expect(answer.headers['cache-control']).toBe('private, no-cache, must-revalidate');
      expect(answer.headers['x-cache']).toBeUndefined();
      for (const header of SURROGATE) expect(answer.headers[header], header).toBeUndefined();
    }
  });

  it('past the rate limit, and on an event stream, the answer is private, no-store', async () => {
    const url = await serve({ rateLimit: { requests: 1, windowMs: 60_000 } });
    await ask(url, { name: 'first', path: PAGE });
    const limited = await ask(url, { name: 'limited', path: PAGE });
    expect(limited.status).toBe(429);
    expectNotShared(limited, 'rate limited');
    const stream = await subscribe(await serve());
    stream.close();
    expect(stream.headers['content-type']).toMatch(/^text\/event-stream/);
    expect(stream.headers['cache-control']).toBe(NOT_SHARED);
  });

  it('Vary names Accept and Authorization on GraphQL; Accept on v2, and Authorization where v2 takes keys', async () => {
    const url = await serve();
    for (const request of [
      { name: 'page', path: PAGE },
      { name: 'page as graphql-response+json', path: PAGE, headers: { accept: 'application/graphql-response+json' } },
      { name: 'error', path: gql('{ nope }') },
    ]) {
      const answer = await ask(url, request);
      expect(vary(answer), request.name).toEqual(expect.arrayContaining(['accept', 'authorization']));
    }
    const v2 = await ask(url, { name: 'v2', path: '/v2/local-package-list/?limit=2&seed=1' });
    expect(vary(v2)).toContain('accept');
    expect(vary(v2)).not.toContain('authorization');
    const v2Key: ApiKey = { name: 'v2-client', scopes: new Set(), hash: hashKey(V2_KEY) };
    const keyed = await serve({ v2ApiKeys: [v2Key] });
    for (const authorization of [undefined, `Bearer ${V2_KEY}`]) {
      const answer = await ask(keyed, {
        name: 'v2 with keys',
        path: '/v2/local-package-list/?limit=2&seed=1',
        headers: authorization ? { authorization } : {},
      });
      expect(vary(answer), String(answer.status)).toEqual(expect.arrayContaining(['accept', 'authorization']));
    }
  });

  it('CORS: `*` is on every GraphQL answer, asked from a site or not; a list of origins says Vary: Origin', async () => {
    const anyOrigin = await serve();
    for (const headers of [{}, { origin: 'https://a.example' }] as Record<string, string>[]) {
      const answer = await ask(anyOrigin, { name: 'any', path: PAGE, headers });
      expect(answer.headers['access-control-allow-origin']).toBe('*');
      expect(vary(answer)).not.toContain('origin');
    }
    const listed = await serve({ corsOrigins: ['https://shop.example'] });
    for (const headers of [{}, { origin: 'https://shop.example' }, { origin: 'https://evil.example' }] as Record<
      string,
      string
    >[]) {
      const answer = await ask(listed, { name: 'listed', path: PAGE, headers });
      expect(vary(answer), JSON.stringify(headers)).toContain('origin');
    }
  });
});
