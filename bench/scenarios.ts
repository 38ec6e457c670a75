// What the bench sends: the product's scenarios and the floor's, all with the same fixed seed.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { hashKey } from '../src/api-keys.js';
import { type Request, ROOT } from './harness.js';

export const SEED = 7;
export const PAGE = 50;
export const DEEP_OFFSET = 90_000;

export type ScenarioId =
  | 'rest-first'
  | 'rest-deep'
  | 'graphql-full'
  | 'graphql-slim'
  | 'graphql-filter-10'
  | 'graphql-filter-90'
  | 'graphql-price-sort'
  | 'graphql-one'
  | 'graphql-cards-24'
  | 'graphql-facets-24'
  | 'graphql-categories'
  | 'graphql-search'
  | 'graphql-search-prefix'
  | 'graphiql'
  | 'rest-br'
  | 'rest-cached'
  | 'rest-cached-br'
  | 'rest-304'
  | 'graphql-cached'
  | 'rest-redis'
  | 'pg-slim'
  | 'pg-full'
  | 'limit-slim'
  | 'limit-kept'
  | `limit-hit-${CachedId}`;

/** The scenarios of a server with the response cache on; each has a hit limit beside it (bench/cached.ts). */
export type CachedId = 'rest-cached' | 'rest-cached-br' | 'rest-304' | 'graphql-cached';

export interface Scenario {
  id: ScenarioId;
  label: string;
  request: Request;
}

const documents = join(ROOT, 'test/graphql/documents');
const document = (...files: string[]) => files.map((file) => readFileSync(join(documents, file), 'utf8')).join('\n');

export const restPage = (offset: number, limit = PAGE): Request => ({
  method: 'GET',
  path: `/v2/local-package-list/?limit=${limit}&offset=${offset}&seed=${SEED}`,
  headers: { accept: 'application/json' },
  verify: (body) => body.startsWith('{"count"'),
});

export function graphqlRequest(query: string, variables: Record<string, unknown>, operationName?: string): Request {
  return {
    method: 'POST',
    path: '/graphql',
    headers: { 'content-type': 'application/json', accept: 'application/json' },
    body: JSON.stringify({ query, variables, ...(operationName ? { operationName } : {}) }),
    // graphql-js puts `errors` first when there are any, so a clean answer starts with `data`.
    verify: (body) => body.startsWith('{"data":{'),
  };
}

export const FULL_PAGE_QUERY = document('full-page.graphql', 'generated/full-package.graphql');

/** The bench's API key, of the private scope, and the server's API_KEYS entry for it. */
const BENCH_KEY = 'lgw_bench-key-of-the-private-scope';
export const BENCH_KEY_ENTRY = `bench:private:${hashKey(BENCH_KEY).toString('hex')}`;

/** The page with every field, its private ones included (with the bench's key, as PostGraphile shows them). */
export function fullPageRequest(limit = PAGE): Request {
  const request = graphqlRequest(FULL_PAGE_QUERY, { limit, offset: 0, seed: SEED }, 'FullPage');
  return {
    ...request,
    headers: { ...request.headers, authorization: `Bearer ${BENCH_KEY}` },
    verify: (body) => body.startsWith('{"data":{') && !body.includes('"errors"'),
  };
}
export const SLIM_PAGE_QUERY = `{ packages(limit: ${PAGE}, seed: ${SEED}) { results { id title price } } }`;
const ONE_PACKAGE_QUERY = document('one-package.graphql', 'generated/full-package.graphql');

/** A page of cards under a filter (seeded order unless `sort` is given). */
const CARDS_QUERY = `query Cards($filter: PackageFilter, $sort: PackageSort) {
  packages(limit: ${PAGE}, offset: ${PAGE * 10}, seed: ${SEED}, filter: $filter, sort: $sort) {
    count results { id title urlSlug price landscapeImage }
  }
}`;
/** About 10% of the demo packages are weddings (category 1), the other 11 categories the remaining 90%. */
export const FILTER_10 = { categories: [1] };
export const FILTER_90 = { categories: [2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12] };
export const cardsRequest = (filter: object, sort?: string) =>
  graphqlRequest(CARDS_QUERY, { filter, ...(sort ? { sort } : {}) }, 'Cards');

/** A listing page's 24 cards, with the sidebar's five facets when `facets` (a storefront's listing page). */
const sidebarQuery = (facets: boolean) => `query Sidebar($filter: PackageFilter) {
  packages(limit: 24, seed: ${SEED}, filter: $filter) {
    count results { id title urlSlug price landscapeImage }
    ${
      facets
        ? `facets {
      category { values { id label count input } }
      price { min max values { label count input } }
      instantBooking { values { id count input } }
      featured { values { id count input } }
      photographer { values { id label count input } }
    }`
        : ''
    }
  }
}`;
const sidebarRequest = (facets: boolean) => graphqlRequest(sidebarQuery(facets), { filter: FILTER_90 }, 'Sidebar');

/** A GraphQL request sent as GET, as a storefront sends its queries (so that caches between can keep them). */
export function asGet(request: Request): Request {
  const { query, variables, operationName } = JSON.parse(request.body as string) as Record<string, unknown>;
  const params = new URLSearchParams({ query: String(query), variables: JSON.stringify(variables) });
  if (operationName) params.set('operationName', String(operationName));
  return {
    method: 'GET',
    path: `${request.path}?${params}`,
    headers: { accept: 'application/json' },
    verify: request.verify,
  };
}

/** Storefront discovery: the sidebar with and without facets, the category list, a search and one as typed. */
export const discoveryScenarios = (): Scenario[] => [
  { id: 'graphql-cards-24', label: 'GraphQL 24 cards, filter matching ~90%', request: sidebarRequest(false) },
  {
    id: 'graphql-facets-24',
    label: 'GraphQL 24 cards and all five facets, filter matching ~90%',
    request: sidebarRequest(true),
  },
  {
    id: 'graphql-categories',
    label: 'GraphQL categories with counts',
    request: graphqlRequest('{ categories { code name packageCount } }', {}),
  },
  {
    id: 'graphql-search',
    label: 'GraphQL cards, search "golden hour"',
    request: cardsRequest({ search: 'golden hour' }),
  },
  {
    id: 'graphql-search-prefix',
    label: 'GraphQL cards, search as typed "golden ho"',
    request: cardsRequest({ search: 'golden ho' }),
  },
];

/** The floor's page: the same v2 page as `rest-first`, served by bench/floor.ts. */
export const FLOOR_REQUEST = restPage(0);

/** The product's scenarios; `packageId` is a listed package (taken from the first page). */
export function scenarios(packageId: string): Scenario[] {
  return [
    { id: 'rest-first', label: `REST v2 first page (limit ${PAGE})`, request: restPage(0) },
    { id: 'rest-deep', label: `REST v2 offset ${DEEP_OFFSET.toLocaleString('en')}`, request: restPage(DEEP_OFFSET) },
    { id: 'graphql-full', label: `GraphQL page of ${PAGE}, every field`, request: fullPageRequest() },
    {
      id: 'graphql-slim',
      label: `GraphQL page of ${PAGE}, id/title/price`,
      request: graphqlRequest(SLIM_PAGE_QUERY, {}),
    },
    {
      id: 'graphql-filter-10',
      label: `GraphQL cards, filter matching ~10%, seeded, offset ${PAGE * 10}`,
      request: cardsRequest(FILTER_10),
    },
    {
      id: 'graphql-filter-90',
      label: `GraphQL cards, filter matching ~90%, seeded, offset ${PAGE * 10}`,
      request: cardsRequest(FILTER_90),
    },
    {
      id: 'graphql-price-sort',
      label: `GraphQL cards, filter matching ~90%, by price, offset ${PAGE * 10}`,
      request: cardsRequest(FILTER_90, 'PRICE_ASC'),
    },
    {
      id: 'graphql-one',
      label: 'GraphQL package by id, every field',
      request: graphqlRequest(ONE_PACKAGE_QUERY, { id: packageId }, 'OnePackage'),
    },
    ...discoveryScenarios(),
    {
      id: 'rest-br',
      label: 'REST v2 first page, brotli (compressed per request)',
      request: compressed(restPage(0)),
    },
    {
      id: 'graphiql',
      label: 'GraphiQL page load',
      request: {
        method: 'GET',
        path: '/graphql',
        headers: { accept: 'text/html' },
        verify: (body) => body.trimStart().slice(0, 15).toLowerCase() === '<!doctype html>',
      },
    },
  ];
}

/** The request asking for brotli: the body autocannon sees is compressed, so only its presence is checked. */
const compressed = (request: Request): Request => ({
  ...request,
  headers: { ...request.headers, 'accept-encoding': 'br' },
  verify: (body) => body.length > 0,
});

/** Scenarios for a server with the response cache on; `etag` is the first page's, for the 304. */
export function cachedScenarios(etag: string): (Scenario & { id: CachedId })[] {
  return [
    { id: 'rest-cached', label: 'REST v2 first page, from the cache', request: restPage(0) },
    { id: 'rest-cached-br', label: 'REST v2 first page, from the cache, brotli', request: compressed(restPage(0)) },
    {
      id: 'rest-304',
      label: 'REST v2 first page, If-None-Match: 304',
      request: {
        ...restPage(0),
        headers: { ...restPage(0).headers, 'if-none-match': etag },
        verify: (body) => body === '',
        notModified: true,
      },
    },
    // A listing page's 24 cards, asked with GET as storefronts do. Not the every-field page: anonymously its
    // private fields are withheld with an error, and such answers are not kept.
    {
      id: 'graphql-cached',
      label: 'GraphQL GET 24 cards, filter matching ~90%, from the cache',
      request: asGet(sidebarRequest(false)),
    },
  ];
}
