// The answers as the real clients read them, through their own caches, against the server over HTTP: Apollo
// Client 3 (its HttpLink and default InMemoryCache) and urql (its fetchExchange, and graphcache, its normalized
// cache). A partial answer is a 200 whose fields and errors both clients read; the storefront's facet queries,
// asked under one filter and then another, read back from each normalized cache exactly what the server sent for
// each (a cache keeps one object per type and id: two facet values of one id under two filters would be one).
// The clients are ecosystem tools, installed on first need (test/helpers/ecosystem.ts); type-checked by
// test/ecosystem/tsconfig.json.
import { readFileSync } from 'node:fs';
import { type DocumentNode, Kind, parse } from 'graphql';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { createListingTestDatabase, engineName, type TestDatabase } from '../helpers/database.js';
import { ecosystemTools } from '../helpers/ecosystem.js';
import { type ServedApp, serveApp } from '../helpers/http-server.js';

const tools = await ecosystemTools('the client cache test with Apollo Client and urql');
// Apollo Client 3's ESM entry points by file: it maps no subpath to them.
const { ApolloClient, ApolloError, gql, HttpLink, InMemoryCache } =
  await tools.load<typeof import('@apollo/client/core')>('@apollo/client/core/index.js');
const { Client, fetchExchange } = await tools.load<typeof import('@urql/core')>('@urql/core');
const { cacheExchange } = await tools.load<typeof import('@urql/exchange-graphcache')>('@urql/exchange-graphcache');

const STOREFRONT = new URL('../../examples/storefront/', import.meta.url);

/** A storefront operation with the fragments it spreads (and those they spread), as one document a client sends. */
function storefrontOperation(text: string, name: string): string {
  const definitions = parse(text).definitions;
  const source = (d: (typeof definitions)[number]) => text.slice(d.loc?.start, d.loc?.end);
  const operation = definitions.find((d) => d.kind === Kind.OPERATION_DEFINITION && d.name?.value === name);
  if (!operation) throw new Error(`no operation ${name} in the storefront's documents`);
  const fragments = new Map(
    definitions.flatMap((d) => (d.kind === Kind.FRAGMENT_DEFINITION ? [[d.name.value, source(d)] as const] : [])),
  );
  const used = new Map<string, string>();
  const pending = [source(operation)];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    for (const [, spread = ''] of next.matchAll(/\.\.\.\s*(\w+)/g)) {
      const fragment = fragments.get(spread);
      if (fragment === undefined || used.has(spread)) continue;
      used.set(spread, fragment);
      pending.push(fragment);
    }
  }
  return [source(operation), ...used.values()].join('\n');
}

/** The storefront's queries that ask for facets: the web page's first page and the typed sidebar query. */
function facetQueries(): { name: string; text: string }[] {
  const web = readFileSync(new URL('web/documents.graphql', STOREFRONT), 'utf8');
  const typed = readFileSync(new URL('queries.ts', STOREFRONT), 'utf8');
  const sidebar = /graphql\(`(\s*query CardsWithSidebar[\s\S]*?)`\)/.exec(typed)?.[1] as string;
  return [
    { name: 'StorefrontFirstPage', text: storefrontOperation(web, 'StorefrontFirstPage') },
    { name: 'CardsWithSidebar', text: sidebar },
  ];
}

let db: TestDatabase;
let server: ServedApp;
let slug: string;
/** Two filters whose facets count differently: none, and one category of packages that book at once. */
let filters: Record<string, unknown>[];

/** Each answer the server sent to the clients (through the global fetch), by the variables asked. */
let answers: { variables: unknown; data: unknown }[] = [];
beforeEach(() => {
  answers = [];
  const original = globalThis.fetch;
  vi.spyOn(globalThis, 'fetch').mockImplementation(async (input, init) => {
    const response = await original(input, init);
    // Asked by POST (Apollo Client) or by GET (urql, for a query that fits in a URL).
    const overGet = new URL(new Request(input, init).url).searchParams.get('variables');
    const body = typeof init?.body === 'string' ? (JSON.parse(init.body) as { variables?: unknown }) : {};
    const variables = overGet === null ? body.variables : JSON.parse(overGet);
    const sent = (await response.clone().json()) as { data: unknown };
    answers.push({ variables: variables ?? {}, data: sent.data });
    return response;
  });
});
afterEach(() => {
  vi.restoreAllMocks();
});

async function ask(query: string, variables: object = {}) {
  const response = await fetch(`${server.url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ query, variables }),
  });
  return ((await response.json()) as { data: unknown }).data;
}

beforeAll(async () => {
  if (!tools.available) return;
  db = await createListingTestDatabase(40);
  server = await serveApp(db, { responseCacheBytes: 0, rateLimit: { requests: 0, windowMs: 60_000 } });
  const found = (await ask('{ packages(limit: 1, seed: 1) { results { urlSlug category } } }')) as {
    packages: { results: { urlSlug: string; category: number }[] };
  };
  const first = found.packages.results[0] as { urlSlug: string; category: number };
  slug = first.urlSlug;
  filters = [{}, { categories: [first.category], instantBooking: true }];
}, 60_000);
afterAll(async () => {
  await server?.close();
  await db?.destroy();
});

/** The fields the query asked for (the clients add `__typename`, which urql's graphcache leaves out of its results). */
const plain = (value: unknown) =>
  JSON.parse(JSON.stringify(value), (key, field) => (key === '__typename' ? undefined : field)) as unknown;
/** What the server sent for these variables: the last answer to them. */
const sentFor = (variables: object) =>
  answers.findLast((a) => JSON.stringify(a.variables) === JSON.stringify(variables))?.data;

const PARTIAL =
  'query Partial($slug: String!) { a: package(urlSlug: $slug) { id title } b: package(id: "123") { id } }';

describe.skipIf(!tools.available)(`the real clients and their caches, on ${engineName}`, () => {
  it("Apollo Client reads a partial answer's data and errors (errorPolicy all), and its errors by default", async () => {
    const client = new ApolloClient({
      cache: new InMemoryCache(),
      link: new HttpLink({ uri: `${server.url}/graphql` }),
    });
    const query = gql(PARTIAL);
    const result = await client.query({ query, variables: { slug }, errorPolicy: 'all', fetchPolicy: 'network-only' });
    expect(plain(result.data)).toEqual({ a: { id: expect.any(String), title: expect.any(String) }, b: null });
    expect(result.errors?.map((e) => [e.path, e.extensions?.code])).toEqual([[['b'], 'BAD_USER_INPUT']]);
    // Without errorPolicy: an ApolloError carrying the GraphQL errors, not a failed request.
    const thrown = await client.query({ query, variables: { slug }, fetchPolicy: 'network-only' }).catch((e) => e);
    expect(thrown).toBeInstanceOf(ApolloError);
    expect([thrown.networkError, thrown.graphQLErrors.map((e: Error) => e.message)]).toEqual([
      null,
      ['id must be a UUID such as "3f2504e0-4f89-41d3-9a0c-0305e82c3301"'],
    ]);
  });

  it("urql reads a partial answer's data and errors", async () => {
    const client = new Client({
      url: `${server.url}/graphql`,
      exchanges: [fetchExchange],
      requestPolicy: 'network-only',
    });
    const result = await client.query(PARTIAL, { slug }).toPromise();
    expect(plain(result.data)).toEqual({ a: { id: expect.any(String), title: expect.any(String) }, b: null });
    expect(result.error?.networkError).toBeUndefined();
    expect(result.error?.graphQLErrors.map((e) => [e.path, e.extensions?.code])).toEqual([[['b'], 'BAD_USER_INPUT']]);
  });

  it.each(facetQueries())(
    "Apollo Client's InMemoryCache keeps what the server sent for $name under each filter",
    async ({ text }) => {
      const client = new ApolloClient({
        cache: new InMemoryCache(),
        link: new HttpLink({ uri: `${server.url}/graphql` }),
      });
      const query: DocumentNode = gql(text);
      for (const filter of filters) {
        const result = await client.query({ query, variables: { filter }, fetchPolicy: 'network-only' });
        expect(plain(result.data)).toEqual(plain(sentFor({ filter })));
      }
      for (const filter of filters) {
        expect(plain(client.readQuery({ query, variables: { filter } }))).toEqual(plain(sentFor({ filter })));
      }
    },
  );

  it.each(facetQueries())(
    "urql's graphcache keeps what the server sent for $name under each filter",
    async ({ text }) => {
      // graphcache warns of each object it cannot key (no id: a price, an image, a page of facets) and keeps it
      // inside its parent, as a storefront without `keys` configured has it.
      vi.spyOn(console, 'warn').mockImplementation(() => {});
      const client = new Client({
        url: `${server.url}/graphql`,
        exchanges: [cacheExchange({}), fetchExchange],
        requestPolicy: 'network-only',
      });
      for (const filter of filters) {
        const result = await client.query(text, { filter }).toPromise();
        expect(result.error).toBeUndefined();
        expect(plain(result.data)).toEqual(plain(sentFor({ filter })));
      }
      for (const filter of filters) {
        const kept = await client.query(text, { filter }, { requestPolicy: 'cache-only' }).toPromise();
        expect(plain(kept.data)).toEqual(plain(sentFor({ filter })));
      }
    },
  );
});
