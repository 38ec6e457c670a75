// A minimal typed client over fetch, and the storefront's queries run against a server:
//   npx tsx examples/storefront/client.ts http://127.0.0.1:4000
import type { TypedDocumentString } from './generated/graphql.js';
import { CardsPage, CardsWithSidebar, PackageBySlug, ScrollPackages } from './queries.js';

export class GraphQLRequestError extends Error {
  constructor(readonly errors: { message: string; extensions?: { code?: string } }[]) {
    super(errors.map((e) => `${e.extensions?.code ?? 'ERROR'}: ${e.message}`).join('; '));
  }
}

/** Runs a typed document: its result type and variables type come from codegen. */
export async function request<Result, Variables>(
  endpoint: string,
  document: TypedDocumentString<Result, Variables>,
  variables: Variables,
): Promise<Result> {
  const response = await fetch(`${endpoint}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/graphql-response+json' },
    body: JSON.stringify({ query: document.toString(), variables }),
  });
  const body = (await response.json()) as { data?: Result | null; errors?: GraphQLRequestError['errors'] };
  if (body.errors?.length) throw new GraphQLRequestError(body.errors);
  return body.data as Result;
}

/**
 * Runs a typed document by its hash over GET (a short URL a CDN can cache): the server must have the manifest
 * codegen wrote (examples/storefront/generated/persisted-documents.json) in PERSISTED_OPERATIONS.
 */
export async function requestPersisted<Result, Variables>(
  endpoint: string,
  document: TypedDocumentString<Result, Variables>,
  variables: Variables,
): Promise<Result> {
  const hash = String(document.__meta__?.hash ?? '').replace(/^sha256:/, '');
  const query = new URLSearchParams({
    extensions: JSON.stringify({ persistedQuery: { version: 1, sha256Hash: hash } }),
    variables: JSON.stringify(variables),
  });
  const response = await fetch(`${endpoint}/graphql?${query}`, { headers: { accept: 'application/json' } });
  const body = (await response.json()) as { data?: Result | null; errors?: GraphQLRequestError['errors'] };
  if (body.errors?.length) throw new GraphQLRequestError(body.errors);
  return body.data as Result;
}

async function main(endpoint: string) {
  // Weddings and portraits (categories 1 and 3) under 500.00, cheapest first.
  const cheap = await request(endpoint, CardsPage, {
    limit: 5,
    filter: { categories: [1, 3], priceMax: '500.00' },
    sort: 'PRICE_ASC',
  });
  console.log(`${cheap.packages.count} packages under 500.00; the cheapest:`);
  for (const card of cheap.packages.results) console.log(`  ${card.price}  ${card.title}`);

  const first = cheap.packages.results[0];
  if (first) {
    const { package: found } = await request(endpoint, PackageBySlug, { slug: first.urlSlug });
    console.log(
      `\n${found?.title} by ${found?.photographer.name}, ${found?.photographer.packages.totalCount} packages`,
    );
  }

  // A sidebar with counts beside the filter: each category counts as if no category were chosen, and a value's
  // input, merged into the filter, chooses it.
  const filter = { categories: [1] };
  const { packages: page } = await request(endpoint, CardsWithSidebar, { filter });
  console.log(`\n${page.count} packages in category 1. Sidebar:`);
  for (const value of page.facets.category.values) console.log(`  ${value.label} (${value.count})`);
  for (const value of page.facets.price.values) console.log(`  ${value.label} (${value.count})`);
  const portraits = { ...filter, ...(JSON.parse(page.facets.category.values[2]?.input ?? '{}') as object) };
  const { packages: chosen } = await request(endpoint, CardsWithSidebar, { filter: portraits });
  console.log(`chosen ${JSON.stringify(portraits)}: ${chosen.count} packages`);

  // Within 25 km of Paris, nearest first.
  const near = await request(endpoint, CardsPage, {
    limit: 3,
    filter: { near: { latitude: '48.856600', longitude: '2.352200', radiusKm: 25 } },
    sort: 'DISTANCE',
  });
  console.log('\nNear Paris:');
  for (const card of near.packages.results) console.log(`  ${card.distanceKm?.toFixed(1)} km  ${card.title}`);

  // Infinite scroll through a text search: every match exactly once.
  let after: string | null | undefined;
  let seen = 0;
  for (;;) {
    const { packagesConnection: window } = await request(endpoint, ScrollPackages, {
      first: 50,
      after,
      filter: { search: 'wedding' },
    });
    seen += window.edges.length;
    if (!window.pageInfo.hasNextPage) break;
    after = window.pageInfo.endCursor;
  }
  console.log(`\n"wedding": scrolled through ${seen} packages`);
}

if (import.meta.url === `file://${process.argv[1]}`) await main(process.argv[2] ?? 'http://127.0.0.1:4000');
