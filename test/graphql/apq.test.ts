// Automatic persisted queries with the real clients, unchanged: Apollo Client 3's persisted-queries link and
// urql's persistedExchange, both asked to send hashed queries over GET, against the server as a process. Each
// gets the answers a plain query gets; the first time after one PersistedQueryNotFound (a 200 no cache keeps, as
// Apollo Server answers it) and one registration, with no error surfaced, the second time by its hash alone, in
// one GET that carries no query text. Apollo Client by POST too, its link's default. The clients are ecosystem tools,
// installed on first need (test/helpers/ecosystem.ts); type-checked by test/ecosystem/tsconfig.json.
import { createHash } from 'node:crypto';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { createPostgresDatabaseUrl, engineName, onPostgres } from '../helpers/database.js';
import { ecosystemTools } from '../helpers/ecosystem.js';
import { type ServerProcess, startServer } from '../helpers/server-process.js';
import { copyOfTemplate } from '../helpers/templates.js';

const tools = await ecosystemTools('the persisted-query test with Apollo Client and urql');
// Apollo Client 3's ESM entry points by file: it maps no subpath to them (a bundler finds them by each folder's
// package.json, Node does not).
const { ApolloClient, gql, HttpLink, InMemoryCache } =
  await tools.load<typeof import('@apollo/client/core')>('@apollo/client/core/index.js');
const { createPersistedQueryLink } = await tools.load<typeof import('@apollo/client/link/persisted-queries')>(
  '@apollo/client/link/persisted-queries/index.js',
);
const { Client, fetchExchange } = await tools.load<typeof import('@urql/core')>('@urql/core');
const { persistedExchange } = await tools.load<typeof import('@urql/exchange-persisted')>('@urql/exchange-persisted');

const cleanup: (() => unknown)[] = [];
let server: ServerProcess;

beforeAll(async () => {
  if (!tools.available) return;
  let env: Record<string, string> = { DATA_DIR: copyOfTemplate() };
  if (onPostgres) {
    const database = await createPostgresDatabaseUrl();
    cleanup.push(database.drop);
    env = { DATABASE_URL: database.url };
  }
  server = await startServer({ ...env, SEED_PACKAGES: '40' });
  cleanup.push(() => server.stop());
}, 60_000);
afterAll(async () => {
  for (const step of cleanup.reverse()) await step();
});

/** What went over the wire: each request the clients made through the global fetch, and its answer's status. */
interface Sent {
  method: string;
  url: URL;
  body: string | undefined;
  status: number;
  cache: string | null;
  cacheControl: string | null;
}
let sent: Sent[] = [];
beforeEach(() => {
  sent = [];
  const original = globalThis.fetch;
  vi.spyOn(globalThis, 'fetch').mockImplementation(async (input, init) => {
    const request = new Request(input, init);
    const response = await original(input, init);
    const body = typeof init?.body === 'string' ? init.body : undefined;
    const { status, headers } = response;
    const [cache, cacheControl] = [headers.get('x-cache'), headers.get('cache-control')];
    sent.push({ method: request.method, url: new URL(request.url), body, status, cache, cacheControl });
    return response;
  });
});
afterEach(() => {
  vi.restoreAllMocks();
});

const CARDS = `query ApqCards($limit: Int!, $seed: Int) {
  packages(limit: $limit, seed: $seed) { count results { id title price } }
}`;
const VARIABLES = { limit: 4, seed: 11 };

/** The answer without any persisted query: the query itself, POSTed. */
async function plainAnswer(query: string, variables: object): Promise<unknown> {
  const response = await fetch(`${server.url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json' },
    body: JSON.stringify({ query, variables }),
  });
  expect(response.status).toBe(200);
  return ((await response.json()) as { data: unknown }).data;
}

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
const carriesQuery = (request: Sent) => request.url.searchParams.has('query') || /"query"/.test(request.body ?? '');
/** The miss: a 200 that names no cache (the gateway's, a CDN's) and that the browser may not reuse unasked. */
const MISSED = [200, 'private, no-cache, must-revalidate', null];
const missed = (request: Sent | undefined) => [request?.status, request?.cacheControl, request?.cache];
function hashOf(request: Sent): unknown {
  const overGet = request.url.searchParams.get('extensions');
  const extensions = overGet ? JSON.parse(overGet) : JSON.parse(request.body ?? '{}').extensions;
  return extensions?.persistedQuery?.sha256Hash;
}

describe.skipIf(!tools.available)(`automatic persisted queries with the real clients on ${engineName}`, () => {
  it('Apollo Client 3: a miss, a registration, then the hash alone over GET, with the same answers', async () => {
    const makeClient = () =>
      new ApolloClient({
        cache: new InMemoryCache(),
        link: createPersistedQueryLink({ sha256, useGETForHashedQueries: true }).concat(
          new HttpLink({ uri: `${server.url}/graphql` }),
        ),
      });
    const query = gql(CARDS);
    const first = await makeClient().query({ query, variables: VARIABLES, fetchPolicy: 'network-only' });
    expect([first.errors, first.error]).toEqual([undefined, undefined]);
    expect(sent.map((r) => [r.method, r.status, carriesQuery(r)])).toEqual([
      ['GET', 200, false], // PersistedQueryNotFound
      ['POST', 200, true], // the query with its hash: registered
    ]);
    expect(missed(sent[0])).toEqual(MISSED);
    // The document as Apollo sends it (its cache adds __typename), without any persisted query.
    const registration = JSON.parse(sent[1]?.body ?? '{}') as { query: string; extensions: object };
    expect(registration.extensions).toEqual({ persistedQuery: { version: 1, sha256Hash: sha256(registration.query) } });
    const expected = await plainAnswer(registration.query, VARIABLES);
    expect(JSON.parse(JSON.stringify(first.data))).toEqual(expected);

    sent = [];
    // Another client (a new page load): it knows nothing, the server knows the hash.
    const second = await makeClient().query({ query, variables: VARIABLES, fetchPolicy: 'network-only' });
    expect(JSON.parse(JSON.stringify(second.data))).toEqual(expected);
    expect(sent).toHaveLength(1);
    const [byHash] = sent as [Sent];
    expect([byHash.method, byHash.status, carriesQuery(byHash)]).toEqual(['GET', 200, false]);
    expect(hashOf(byHash)).toMatch(/^[0-9a-f]{64}$/);

    sent = [];
    await makeClient().query({ query, variables: VARIABLES, fetchPolicy: 'network-only' });
    expect(sent.map((r) => [r.method, r.status, r.cache])).toEqual([['GET', 200, 'hit']]);
  });

  it('urql: a miss, a registration, then the hash alone over GET, with the same answers', async () => {
    const document = CARDS.replace('ApqCards', 'ApqCardsUrql');
    const expected = await plainAnswer(document, VARIABLES);
    sent = [];
    const makeClient = () =>
      new Client({
        url: `${server.url}/graphql`,
        exchanges: [persistedExchange({ preferGetForPersistedQueries: true }), fetchExchange],
        requestPolicy: 'network-only',
      });
    const first = await makeClient().query(document, VARIABLES).toPromise();
    expect(first.error).toBeUndefined();
    expect(first.data).toEqual(expected);
    expect(sent.map((r) => [r.method, r.status, carriesQuery(r)])).toEqual([
      ['GET', 200, false], // PersistedQueryNotFound
      ['GET', 200, true], // the query with its hash: registered
    ]);
    expect(missed(sent[0])).toEqual(MISSED);

    sent = [];
    const second = await makeClient().query(document, VARIABLES).toPromise();
    expect(second.data).toEqual(expected);
    expect(sent.map((r) => [r.method, r.status, carriesQuery(r)])).toEqual([['GET', 200, false]]);

    sent = [];
    await makeClient().query(document, VARIABLES).toPromise();
    expect(sent.map((r) => [r.method, r.status, r.cache])).toEqual([['GET', 200, 'hit']]);
  });

  it('Apollo Client 3 by POST (its default): a miss, a registration, then the hash alone', async () => {
    const makeClient = () =>
      new ApolloClient({
        cache: new InMemoryCache(),
        link: createPersistedQueryLink({ sha256 }).concat(new HttpLink({ uri: `${server.url}/graphql` })),
      });
    const query = gql(CARDS.replace('ApqCards', 'ApqCardsPost'));
    const first = await makeClient().query({ query, variables: VARIABLES, fetchPolicy: 'network-only' });
    expect([first.errors, first.error]).toEqual([undefined, undefined]);
    expect(sent.map((r) => [r.method, r.status, carriesQuery(r)])).toEqual([
      ['POST', 200, false], // PersistedQueryNotFound
      ['POST', 200, true], // the query with its hash: registered
    ]);
    expect(missed(sent[0])).toEqual(MISSED);
    const registration = JSON.parse(sent[1]?.body ?? '{}') as { query: string };
    const expected = await plainAnswer(registration.query, VARIABLES);
    expect(JSON.parse(JSON.stringify(first.data))).toEqual(expected);

    sent = [];
    const second = await makeClient().query({ query, variables: VARIABLES, fetchPolicy: 'network-only' });
    expect(JSON.parse(JSON.stringify(second.data))).toEqual(expected);
    expect(sent.map((r) => [r.method, r.status, carriesQuery(r)])).toEqual([['POST', 200, false]]);
  });
});
