// Rules the Node edge once answered otherwise than yoga, each asked as a user found it: introspection turned off
// (one instance, and two sharing Redis), and a listing version slow to come (the edge then leaves a GraphQL query
// to the app, as it leaves a kept v2 page's request, instead of running it uncached itself). The settings matrix
// (settings-matrix.test.ts) compares the doors everywhere; these are the findings themselves.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { engineName } from '../helpers/database.js';
import { edgeAndApp } from '../helpers/edge-pair.js';
import { send } from '../helpers/http-server.js';

const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

/** How long each listing version read waits first (0: not at all). */
const slow = vi.hoisted(() => ({ ms: 0 }));
vi.mock('../../src/listing/version.js', async (original) =>
  (await import('../helpers/version-reads.js')).versionReadsWith(await original(), async () => {
    if (slow.ms > 0) await new Promise((resolve) => setTimeout(resolve, slow.ms));
  }),
);
afterEach(() => {
  slow.ms = 0;
});

const { serve } = edgeAndApp({ count: 8, seed: 19, publicUrl: 'http://listing.example' });

const SCHEMA = '{ __schema { queryType { name } } }';
const TYPE = '{ __type(name: "Package") { name } }';
const getQuery = (query: string) => ({
  method: 'GET',
  path: `/graphql?query=${encodeURIComponent(query)}`,
  headers: { accept: 'application/json' },
});
const postQuery = (query: string) => ({
  method: 'POST',
  path: '/graphql',
  headers: { 'content-type': 'application/json', accept: 'application/json' },
  body: JSON.stringify({ query }),
});

describe(`the Node edge under settings off their defaults, on ${engineName}`, () => {
  it('refuses introspection when it is off, by GET and POST, every time, and nothing is kept', async () => {
    const server = await serve({ introspection: false });
    for (const request of [getQuery(SCHEMA), postQuery(TYPE), getQuery(SCHEMA), postQuery(TYPE)]) {
      const answer = await send(server.url, request);
      expect(answer.status, request.path).toBe(400);
      expect(answer.body.toString()).toMatch(/GraphQL introspection has been disabled/);
      expect(answer.headers['cache-control']).toBe('private, no-store');
      expect(answer.headers['x-cache']).toBeUndefined();
    }
  });

  it('refuses introspection on the instance that has it off, when another with it on shares Redis', async () => {
    const open = await serve({ redisUrl: REDIS_URL });
    const closed = await serve({ introspection: false, redisUrl: REDIS_URL });
    for (let round = 0; round < 2; round++) {
      expect((await send(open.url, getQuery(SCHEMA))).status).toBe(200);
      const refused = await send(closed.url, getQuery(SCHEMA));
      expect(refused.status).toBe(400);
      expect(JSON.parse(refused.body.toString()).data).toBeUndefined();
    }
  });

  it('leaves a query to the app when the listing version is slow to come, which keeps its answer', async () => {
    const server = await serve({});
    const cards = getQuery('{ packages(limit: 3, seed: 4) { results { id title } } }');
    // Past the edge's 250 ms wait, within the app's own.
    slow.ms = 400;
    const first = await send(server.url, cards);
    expect(first.status).toBe(200);
    expect(first.headers['cache-control']).toMatch(/^public/);
    expect(first.headers.etag).toBeTruthy();
    expect(server.edgeAnswered()).toBe(0);
    slow.ms = 0;
    const again = await send(server.url, cards);
    expect(again.headers['x-cache']).toBe('hit');
    expect(again.body.equals(first.body)).toBe(true);
    expect(server.edgeAnswered()).toBe(1);
  });
});
