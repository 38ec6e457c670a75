// GraphQL queries answered at the Node edge (src/graphql/edge-operations.ts) are the answers yoga gives: two
// servers on one database and the same settings, one answering plain queries at the edge and one leaving every
// request to yoga, are asked the same requests in the same order and must give the same status, headers (but Date
// and the request id) and bytes. Every Accept and Content-Type a client sends, GET and POST, variables and
// operation names, codings, CORS, API keys and private fields, errors of every kind (most of which the edge leaves
// to yoga), the response cache's misses and hits, and the request budget.
import { createHash } from 'node:crypto';
import { connect } from 'node:net';
import { describe, expect, it } from 'vitest';
import { engineName } from '../helpers/database.js';
import { type Ask, ask, comparable, same } from '../helpers/edge-compare.js';
import { edgeAndApp } from '../helpers/edge-pair.js';
import { PRIVATE_KEY } from '../helpers/graphql.js';

const SHOP = 'https://shop.example';
const { pair } = edgeAndApp({ count: 40, seed: 43, publicUrl: 'http://listing.example' });

const json = (query: string, extra: Record<string, unknown> = {}) => JSON.stringify({ query, ...extra });
/** A POST with its length, as clients send it (`chunked`: without, its body read by the edge before the app). */
const post = (body: string, headers: Record<string, string> = {}, chunked = false): Ask => ({
  body,
  headers: {
    'content-type': 'application/json',
    ...(chunked ? {} : { 'content-length': String(Buffer.byteLength(body)) }),
    ...headers,
  },
});
const get = (params: Record<string, string>, headers: Record<string, string> = {}): Ask => ({
  method: 'GET',
  path: `/graphql?${new URLSearchParams(params)}`,
  headers,
});

const SLIM = '{ packages(limit: 30, seed: 7) { results { id title price } } }';
const SMALL = '{ packages(limit: 2, seed: 7) { count results { id } } }';
const NAMED = 'query A { packages(limit: 3, seed: 1) { results { id } } } query B { categories { code name } }';
const PRIVATE = '{ packages(limit: 2, seed: 7) { results { id photographerEmail photographer { name phone } } } }';
const VARIABLES =
  'query Page($limit: Int!, $seed: Int) { packages(limit: $limit, seed: $seed) { results { id title } } }';

/** Requests of every kind, each as a POST and where it can be as a GET. */
function requests(): Ask[] {
  const asks: Ask[] = [];
  for (const accept of [
    undefined,
    '*/*',
    'application/json',
    'application/graphql-response+json',
    'application/graphql-response+json, application/json',
    'application/json, application/graphql-response+json;q=0.9',
    'text/event-stream',
    'multipart/mixed',
    'text/event-stream, application/json;q=0.9',
    'application/json; charset=iso-8859-1',
    'text/html',
    'text/html, application/json',
  ]) {
    const headers: Record<string, string> = accept === undefined ? {} : { accept };
    asks.push(post(json(SLIM), headers), get({ query: SLIM }, headers));
  }
  for (const encoding of ['br', 'gzip', 'identity', 'br;q=0, gzip']) {
    asks.push(post(json(SLIM), { 'accept-encoding': encoding }), post(json(SMALL), { 'accept-encoding': encoding }));
    asks.push(get({ query: SLIM }, { 'accept-encoding': encoding }));
  }
  for (const type of [
    'application/json; charset=utf-8',
    'application/graphql+json',
    'application/graphql-response+json',
    'Application/JSON',
    'application/json, text/plain',
    'text/plain',
  ]) {
    asks.push(post(json(SMALL), { 'content-type': type }));
  }
  asks.push(
    post(json(VARIABLES, { variables: { limit: 4, seed: 9 } })),
    post(json(VARIABLES, { variables: { limit: 4, seed: 9 } }), {}, true),
    { ...post(json(VARIABLES, { variables: { limit: 4 }, operationName: 'Page' })), drawn: true },
    post(json(VARIABLES, { variables: { limit: 'four' } })),
    post(json(VARIABLES)),
    get({ query: VARIABLES, variables: JSON.stringify({ limit: 5, seed: 2 }) }),
    get({ query: VARIABLES, variables: '{not json' }),
    get({ query: VARIABLES, variables: '5' }),
    post(json(NAMED, { operationName: 'A' })),
    post(json(NAMED, { operationName: 'B' })),
    post(json(NAMED, { operationName: 'C' })),
    post(json(NAMED)),
    post(json(PRIVATE)),
    post(json(PRIVATE), { authorization: `Bearer ${PRIVATE_KEY}` }),
    post(json(SLIM), { authorization: 'Bearer lgw_not-ours' }),
    get({ query: PRIVATE }, { authorization: `Bearer ${PRIVATE_KEY}` }),
    post(json('{ packages(limit: 2, seed: 1) { results { id nope } } }')),
    post(json('{ packages(limit: 2, seed: 1 { results { id } } }')),
    post(json('mutation { packages }')),
    get({ query: 'mutation { packages }' }),
    // Asked as JSON: as an event stream it would never end.
    post(json('subscription { listingChanged { version } }'), { accept: 'application/json' }),
    post(
      json(
        '{ a: packages(limit: 100, seed: 1) { results { id title images { thumbnail } } } b: packages(limit: 100, seed: 1) { results { id } } }',
      ),
    ),
    post(json('{ __typename }')),
    post(json('{ __schema { queryType { name } } }')),
    post(json(SMALL, { extensions: { persistedQuery: { version: 1, sha256Hash: sha256(SMALL) } } })),
    post(json(SMALL, { unexpected: 1 })),
    post(JSON.stringify([{ query: SMALL }, { query: SMALL }])),
    post('{"query": '),
    post('null'),
    post(JSON.stringify({ query: 5 })),
    post(JSON.stringify({ query: '' })),
    post(json(SMALL, { variables: [1] })),
    get({}),
    get({ query: SMALL, operationName: '' }),
  );
  return asks;
}

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

describe(`GraphQL queries answered at the Node edge, on ${engineName}`, () => {
  it('are the answers yoga gives, with the response cache off', async () => {
    const both = await pair({ responseCacheBytes: 0 });
    for (const request of requests()) await same(both, request);
    // The plain ones were the edge's own.
    expect(both.edge.edgeAnswered()).toBeGreaterThan(40);
    expect(both.app.edgeAnswered()).toBe(0);
  });

  it('are the answers yoga gives with the cache on, misses and hits, and CORS with a list of origins', async () => {
    const both = await pair({ corsOrigins: [SHOP] });
    const cached = [
      post(json(SLIM)),
      post(json(SLIM), { origin: SHOP, 'accept-encoding': 'br' }),
      post(json(SLIM), { origin: 'https://elsewhere.example', 'accept-encoding': 'gzip' }),
      get({ query: SLIM }, { origin: SHOP }),
      { ...get({ query: VARIABLES, variables: JSON.stringify({ limit: 3 }) }), drawn: true },
      post(json(PRIVATE)),
      post(json(PRIVATE), { authorization: `Bearer ${PRIVATE_KEY}` }),
      { ...post(json('{ packages(limit: 3) { results { id } } }')), drawn: true },
      { ...get({ query: '{ packages(limit: 3) { results { id } } }' }), drawn: true },
    ];
    // Asked three times: a miss made and kept, then hits (and a 304 for the GETs that name the ETag).
    for (let round = 0; round < 3; round++) {
      for (const request of cached) await same(both, request);
    }
    const etag = (await ask(both.edge, get({ query: SLIM }, { origin: SHOP }))).headers.etag as string;
    expect(etag).toBeTruthy();
    await ask(both.app, get({ query: SLIM }, { origin: SHOP }));
    const revalidated = await same(both, get({ query: SLIM }, { origin: SHOP, 'if-none-match': etag }));
    expect(revalidated.status).toBe(304);
    for (const request of requests().slice(0, 40)) await same(both, request);
  });

  it('costs nothing when a client leaves before its body is sent: the next requests are answered', async () => {
    const both = await pair({ responseCacheBytes: 0 });
    const { port } = new URL(both.edge.url);
    await new Promise<void>((resolve, reject) => {
      const socket = connect(Number(port), '127.0.0.1', () => {
        socket.write(
          'POST /graphql HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"query":',
        );
        setTimeout(() => {
          socket.destroy();
          resolve();
        }, 200);
      });
      socket.on('error', reject);
    });
    for (let i = 0; i < 3; i++) expect((await same(both, post(json(SMALL)))).status).toBe(200);
  });

  it('count each request against its caller once, and refuse past the budget as yoga does', async () => {
    const both = await pair({ rateLimit: { requests: 4, windowMs: 60_000 } });
    const statuses: Record<'edge' | 'app', number[]> = { edge: [], app: [] };
    const refusals: Record<'edge' | 'app', ReturnType<typeof comparable>[]> = { edge: [], app: [] };
    for (const side of ['edge', 'app'] as const) {
      for (const request of [
        post(json(SLIM)),
        get({ query: SLIM }),
        post('null'),
        post(json(SMALL)),
        post(json(SMALL)),
      ]) {
        const answer = await ask(both[side], request);
        statuses[side].push(answer.status);
        if (answer.status === 429) refusals[side].push(comparable(answer));
      }
    }
    expect(statuses.edge).toEqual([200, 200, 400, 200, 429]);
    expect(statuses.app).toEqual(statuses.edge);
    expect(refusals.edge).toEqual(refusals.app);
  });
});
