// Kept answers sent at the Node edge (src/cache/edge-hits.ts) are the answers the app's path gives: two servers on
// one database and the same settings, one answering hits at the edge and one leaving every request to the app,
// are asked the same requests (each twice, so the second is a hit) and must give the same status, headers (but
// Date and the request id) and bytes: both doors, every content coding, 304s, CORS with a list of origins and
// with any, the request budget and its refusals, persisted queries by hash, and the requests the edge leaves to
// the app (HEAD, a key that is not ours, GraphiQL's page). The edge must answer the hits itself, and log and
// count them as the app does. (A GraphQL query the edge runs itself is test/graphql/edge-operations.test.ts's.)
import { createHash } from 'node:crypto';
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createLogger } from '../../src/logger.js';
import { engineName } from '../helpers/database.js';
import { comparable } from '../helpers/edge-compare.js';
import { edgeAndApp } from '../helpers/edge-pair.js';
import { type Exchange, type ServedApp, send } from '../helpers/http-server.js';

const PUBLIC_URL = 'http://listing.example';
const SHOP = 'https://shop.example';
const { serve, pair } = edgeAndApp({ count: 30, seed: 41, publicUrl: PUBLIC_URL });

interface Ask {
  method?: string;
  path: string;
  headers?: Record<string, string>;
}

const ask = (server: ServedApp, { method = 'GET', path, headers = {} }: Ask) =>
  send(server.url, { method, path, headers });

const cards = '{ packages(limit: 24, seed: 7) { count results { id title urlSlug price } } }';
const graphqlGet = (query: string) => `/graphql?query=${encodeURIComponent(query)}`;
const V2 = '/v2/local-package-list/?limit=20&seed=5';
const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

/** Asks both twice and compares the second answers (the first fills each one's cache); returns the edge's. */
async function same(servers: { edge: ServedApp; app: ServedApp }, request: Ask): Promise<Exchange> {
  await ask(servers.edge, request);
  await ask(servers.app, request);
  const fromEdge = await ask(servers.edge, request);
  const fromApp = await ask(servers.app, request);
  expect(comparable(fromEdge), `${request.method ?? 'GET'} ${request.path} ${JSON.stringify(request.headers)}`).toEqual(
    comparable(fromApp),
  );
  return fromEdge;
}

describe(`kept answers sent at the Node edge, on ${engineName}`, () => {
  it('are the answers the app gives: both doors, every coding, 304s and CORS with a list of origins', async () => {
    const both = await pair({ corsOrigins: [SHOP] });
    const before = both.edge.edgeAnswered();
    let hits = 0;
    for (const path of [graphqlGet(cards), V2]) {
      for (const encoding of [undefined, 'br', 'gzip', 'identity', 'br;q=0, gzip;q=0.5', '*']) {
        for (const origin of [undefined, SHOP, 'https://elsewhere.example']) {
          const headers: Record<string, string> = { accept: 'application/json' };
          if (encoding) headers['accept-encoding'] = encoding;
          if (origin) headers.origin = origin;
          const answer = await same(both, { path, headers });
          expect(answer.status).toBe(200);
          expect(answer.headers['x-cache']).toBe('hit');
          hits += 1;
          // Revalidated with the representation's own tag, a list holding it, any tag, and a tag of nothing.
          const etag = answer.headers.etag as string;
          for (const tag of [etag, `"other", ${etag}`, '*']) {
            expect((await same(both, { path, headers: { ...headers, 'if-none-match': tag } })).status).toBe(304);
            hits += 1;
          }
          expect((await same(both, { path, headers: { ...headers, 'if-none-match': '"other"' } })).status).toBe(200);
          hits += 1;
        }
      }
    }
    // Every second ask of the edge server was a hit sent at the edge (a coding made the first time aside).
    expect(both.edge.edgeAnswered() - before).toBeGreaterThanOrEqual(hits - 4);
  });

  it('are the answers the app gives with any origin, a trusted proxy, and a persisted query asked by hash', async () => {
    const both = await pair({ corsOrigins: ['*'], trustProxy: true });
    const variants: Record<string, string>[] = [
      { origin: SHOP },
      { 'x-forwarded-host': 'shop.example', 'x-forwarded-proto': 'https' },
      { accept: 'application/graphql-response+json' },
      { accept: 'text/event-stream, application/json;q=0.9' },
    ];
    for (const headers of variants) {
      await same(both, { path: graphqlGet(cards), headers });
      await same(both, { path: V2, headers });
    }
    const query = '{ categories { code name packageCount } }';
    const extensions = encodeURIComponent(
      JSON.stringify({ persistedQuery: { version: 1, sha256Hash: sha256(query) } }),
    );
    const register = `/graphql?query=${encodeURIComponent(query)}&extensions=${extensions}`;
    for (const server of [both.edge, both.app]) expect((await ask(server, { path: register })).status).toBe(200);
    const answered = both.edge.edgeAnswered();
    const byHash = await same(both, { path: `/graphql?extensions=${extensions}` });
    expect(byHash.headers['x-cache']).toBe('hit');
    expect(both.edge.edgeAnswered()).toBe(answered + 1);
  });

  it('leave to the app what they do not answer: HEAD, a key not ours, GraphiQL, a cache off', async () => {
    const both = await pair({});
    const answered = both.edge.edgeAnswered();
    await same(both, { method: 'HEAD', path: V2 });
    await same(both, { path: graphqlGet(cards), headers: { authorization: 'Bearer lgw_not-a-key' } });
    await same(both, { path: '/graphql', headers: { accept: 'text/html' } });
    await same(both, { path: `${graphqlGet(cards)}`, headers: { accept: 'text/html' } });
    await same(both, { path: '/v2/local-package-list?limit=20&seed=5' });
    expect(both.edge.edgeAnswered()).toBe(answered);
    const uncached = await serve({ responseCacheBytes: 0 }, PUBLIC_URL);
    await ask(uncached, { path: V2 });
    expect((await ask(uncached, { path: V2 })).headers['x-cache']).toBeUndefined();
    expect(uncached.edgeAnswered()).toBe(0);
  });

  it('count a hit against its client once, and refuse past the budget as the app does', async () => {
    const both = await pair({ rateLimit: { requests: 5, windowMs: 60_000 } });
    const statuses = { edge: [] as number[], app: [] as number[] };
    const refusals: Record<'edge' | 'app', ReturnType<typeof comparable>[]> = { edge: [], app: [] };
    for (const side of ['edge', 'app'] as const) {
      for (let i = 0; i < 7; i++) {
        const answer = await ask(both[side], { path: i % 2 ? V2 : graphqlGet(cards) });
        statuses[side].push(answer.status);
        if (answer.status === 429) refusals[side].push(comparable(answer));
      }
    }
    expect(statuses.edge).toEqual([200, 200, 200, 200, 200, 429, 429]);
    expect(statuses.app).toEqual(statuses.edge);
    expect(refusals.edge).toEqual(refusals.app);
    expect(both.edge.edgeAnswered()).toBeGreaterThanOrEqual(3);
  });

  it('log a line and count the answer in the metrics, as the app does for its hits', async () => {
    const lines: Record<string, unknown>[] = [];
    const destination = new Writable({
      write(chunk, _encoding, done) {
        for (const line of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(line));
        done();
      },
    });
    const logger = createLogger({ level: 'info', destination });
    const server = await serve({ rateLimit: { requests: 0, windowMs: 60_000 } }, PUBLIC_URL, undefined, { logger });
    await ask(server, { path: V2 });
    const hit = await ask(server, { path: V2 });
    expect(server.edgeAnswered()).toBe(1);
    const line = lines.find((l) => l.requestId === hit.headers['x-request-id']);
    expect(line).toMatchObject({ level: 'info', msg: 'request', method: 'GET', path: '/v2/local-package-list/' });
    expect(line?.status).toBe(200);
    expect(typeof line?.durationMs).toBe('number');
    const metrics = (await ask(server, { path: '/metrics' })).body.toString();
    expect(metrics).toMatch(/response_cache_answers_total\{route="\/v2\/local-package-list\/",result="hit"\} 1\b/);
    expect(metrics).toMatch(
      /http_request_duration_seconds_count\{method="GET",route="\/v2\/local-package-list\/",status="200"\} 2\b/,
    );
  });
});
