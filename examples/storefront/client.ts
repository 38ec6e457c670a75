// A minimal typed client over fetch, and the storefront's queries run against a server:
//   npx tsx examples/storefront/client.ts http://127.0.0.1:4000
// With --watch, a page of cards that fetches itself again each time the listing changes (until Ctrl-C):
//   npx tsx examples/storefront/client.ts http://127.0.0.1:4000 --watch
import type { TypedDocumentString } from './generated/graphql.js';
import { CardsPage, CardsWithSidebar, ListingChanged, PackageBySlug, ScrollPackages } from './queries.js';

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

/**
 * Runs a typed subscription over Server-Sent Events (fetch and the response's stream: no library needed) and
 * calls `onEvent` with each result's data. Resolves when the server ends the stream (`event: complete`, e.g. it
 * is stopping: subscribe again) or `signal` aborts; throws on a refusal (503 past the server's bound, 429).
 */
export async function subscribe<Result, Variables>(
  endpoint: string,
  document: TypedDocumentString<Result, Variables>,
  variables: Variables,
  onEvent: (data: Result) => void,
  signal?: AbortSignal,
): Promise<void> {
  const query = new URLSearchParams({ query: document.toString(), variables: JSON.stringify(variables) });
  const response = await fetch(`${endpoint}/graphql?${query}`, { headers: { accept: 'text/event-stream' }, signal });
  if (!response.ok || !response.body) {
    const body = (await response.json().catch(() => ({}))) as { errors?: GraphQLRequestError['errors'] };
    throw new GraphQLRequestError(body.errors ?? [{ message: `HTTP ${response.status}` }]);
  }
  const decoder = new TextDecoder();
  let buffered = '';
  try {
    for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
      buffered += decoder.decode(chunk, { stream: true });
      // Events end with a blank line; a line starting with ":" is the heartbeat, and says nothing.
      for (let end = buffered.indexOf('\n\n'); end >= 0; end = buffered.indexOf('\n\n')) {
        const lines = buffered.slice(0, end).split('\n');
        buffered = buffered.slice(end + 2);
        const field = (name: string) =>
          lines
            .find((l) => l.startsWith(`${name}:`))
            ?.slice(name.length + 1)
            .trim();
        if (field('event') === 'complete') return;
        const data = field('data');
        if (field('event') !== 'next' || !data) continue;
        const result = JSON.parse(data) as { data?: Result | null; errors?: GraphQLRequestError['errors'] };
        if (result.errors?.length) throw new GraphQLRequestError(result.errors);
        onEvent(result.data as Result);
      }
    }
  } catch (error) {
    if (signal?.aborted) return;
    throw error;
  }
}

/** An amount in its currency as a shopper reads it ("$295.00", "¥32,000", with the currency's own decimals). */
export function formatMoney(money: { amount: string; currencyCode: string }, locale = 'en-US'): string {
  return new Intl.NumberFormat(locale, { style: 'currency', currency: money.currencyCode }).format(
    Number(money.amount),
  );
}

/** A page of cards kept fresh: shown once, then fetched again on each change, until `signal` aborts. */
async function watchCards(endpoint: string, signal: AbortSignal) {
  const show = async () => {
    const { packages } = await request(endpoint, CardsPage, { limit: 5, seed: 1 });
    console.log(`${packages.count} packages; the first: ${packages.results.map((c) => c.title).join(' | ')}`);
  };
  await show();
  while (!signal.aborted) {
    let wait = 1000;
    await subscribe(
      endpoint,
      ListingChanged,
      {},
      ({ listingChanged }) => {
        console.log(`listing changed at ${listingChanged.changedAt} (${listingChanged.count} packages): fetching`);
        void show();
      },
      signal,
    ).catch((error: Error) => {
      console.log(`subscription refused (${error.message}); again in 5 s`);
      wait = 5000;
    });
    // The server ended the stream (it is stopping) or refused it: subscribe again, to whichever instance
    // answers, and fetch once, since a change may have come meanwhile.
    await new Promise((resolve) => setTimeout(resolve, wait));
    if (!signal.aborted) await show();
  }
}

async function main(endpoint: string) {
  // Weddings and portraits (categories 1 and 3) under 500.00 US dollars, cheapest first.
  const cheap = await request(endpoint, CardsPage, {
    limit: 5,
    filter: { categories: [1, 3], currency: 'USD', priceMax: '500.00' },
    sort: 'PRICE_ASC',
  });
  console.log(`${cheap.packages.count} packages under USD 500.00; the cheapest:`);
  for (const card of cheap.packages.results) {
    // A card's image is sized for a card: its width and height reserve the space before it loads.
    const image = card.cardImage ? `${card.cardImage.width ?? '?'}x${card.cardImage.height ?? '?'}` : 'no image';
    console.log(`  ${formatMoney(card.priceMoney)}  ${card.title}  (${image})`);
  }

  const first = cheap.packages.results[0];
  if (first) {
    const { package: found } = await request(endpoint, PackageBySlug, { slug: first.urlSlug });
    if (found) {
      console.log(`\n${found.title} by ${found.photographer.name}, ${found.photographer.packages.totalCount} packages`);
      console.log(`  ${formatMoney(found.priceMoney)}, deposit ${formatMoney(found.depositMoney)}`);
    }
  }

  // A sidebar with counts beside the filter: each category counts as if no category were chosen, and a value's
  // input, merged into the filter, chooses it.
  const filter = { categories: [1] };
  const { packages: page } = await request(endpoint, CardsWithSidebar, { filter });
  console.log(`\n${page.count} packages in category 1. Sidebar:`);
  for (const value of page.facets.category.values) console.log(`  ${value.label} (${value.count})`);
  for (const value of page.facets.currency.values) console.log(`  ${value.value} (${value.count})`);
  // Price ranges come currency by currency; a range's input chooses its currency too.
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

if (import.meta.url === `file://${process.argv[1]}`) {
  const endpoint = process.argv[2] ?? 'http://127.0.0.1:4000';
  if (process.argv.includes('--watch')) {
    const stop = new AbortController();
    process.once('SIGINT', () => stop.abort());
    await watchCards(endpoint, stop.signal);
  } else await main(endpoint);
}
