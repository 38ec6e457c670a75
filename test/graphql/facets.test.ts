// Facet counts beside a filter, held against brute force: for ten filters, every count of every facet is what a
// walk of all listed packages finds, counting disjunctively (a facet ignores the filter's own part for it); each
// value's `input`, merged into the filter, gives exactly its count; on both engines.

import { parse } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../src/app.js';
import { DEFAULT_LIMITS } from '../../src/config.js';
import { measureOperation } from '../../src/graphql/limits.js';
import { schema } from '../../src/graphql/schema.js';
import { FACET_COST } from '../../src/graphql/types/facets.js';
import { PRICE_EDGES_CENTS } from '../../src/listing/facets.js';
import { createListingTestDatabase, engineName, type TestDatabase } from '../helpers/database.js';
import { graphql } from '../helpers/graphql.js';

interface Card {
  id: string;
  category: number;
  categoryName: string;
  price: string;
  instantBooking: boolean;
  featured: boolean;
  photographer: { id: string; name: string };
}
interface Filter {
  categories?: number[];
  priceMin?: string;
  priceMax?: string;
  instantBooking?: boolean;
  featured?: boolean;
  photographerId?: string;
}
interface Value {
  id: string;
  label: string;
  count: number;
  input: string;
}
interface Facet {
  id: string;
  type: string;
  values: Value[];
  min?: string | null;
  max?: string | null;
}
type Facets = Record<'category' | 'price' | 'instantBooking' | 'featured' | 'photographer', Facet>;

let db: TestDatabase;
let app: ReturnType<typeof createApp>;
const listed: Card[] = [];

beforeAll(async () => {
  db = await createListingTestDatabase(150);
  app = createApp({ db, settings: { rateLimit: { requests: 0, windowMs: 60_000 } } });
  for (let offset = 0; ; offset += 100) {
    const { body } = await graphql<{ packages: { results: Card[] } }>(
      app,
      `{ packages(limit: 100, offset: ${offset}, seed: 1) {
          results { id category categoryName price instantBooking featured photographer { id name } } } }`,
    );
    const results = body.data?.packages.results ?? [];
    listed.push(...results);
    if (results.length < 100) break;
  }
});
afterAll(async () => {
  await app?.dispose();
  await db?.destroy();
});

const cents = (price: string) => Math.round(Number(price) * 100);
const money = (c: number) => `${Math.floor(c / 100)}.${String(c % 100).padStart(2, '0')}`;

function matches(card: Card, filter: Filter): boolean {
  if (filter.categories && !filter.categories.includes(card.category)) return false;
  if (filter.priceMin && cents(card.price) < cents(filter.priceMin)) return false;
  if (filter.priceMax && cents(card.price) > cents(filter.priceMax)) return false;
  if (filter.instantBooking !== undefined && card.instantBooking !== filter.instantBooking) return false;
  if (filter.featured !== undefined && card.featured !== filter.featured) return false;
  if (filter.photographerId && card.photographer.id !== filter.photographerId) return false;
  return true;
}

function without(filter: Filter, ...parts: (keyof Filter)[]): Filter {
  const rest = { ...filter };
  for (const part of parts) delete rest[part];
  return rest;
}

/** Every facet as brute force counts it. */
function bruteForce(filter: Filter) {
  const counted = (parts: (keyof Filter)[]) => listed.filter((card) => matches(card, without(filter, ...parts)));
  const codes = [...new Set(listed.map((c) => c.category))].sort((a, b) => a - b);
  const inCategories = counted(['categories']);
  const category = codes.map((code) => [String(code), inCategories.filter((c) => c.category === code).length]);
  const inPrice = counted(['priceMin', 'priceMax']);
  const price = PRICE_EDGES_CENTS.map((from, i) => {
    const next = PRICE_EDGES_CENTS[i + 1] ?? Number.POSITIVE_INFINITY;
    return inPrice.filter((c) => cents(c.price) >= from && cents(c.price) < next).length;
  });
  const prices = inPrice.map((c) => cents(c.price));
  const flag = (part: 'instantBooking' | 'featured') => {
    const pool = counted([part]);
    return [pool.filter((c) => c[part]).length, pool.filter((c) => !c[part]).length];
  };
  const byPhotographer = new Map<string, { name: string; count: number }>();
  for (const card of counted(['photographerId'])) {
    const entry = byPhotographer.get(card.photographer.id) ?? { name: card.photographer.name, count: 0 };
    entry.count++;
    byPhotographer.set(card.photographer.id, entry);
  }
  const byText = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
  const photographer = [...byPhotographer.entries()]
    .sort(([a, x], [b, y]) => y.count - x.count || byText(x.name, y.name) || byText(a, b))
    .slice(0, 20)
    .map(([id, { count }]) => [id, count]);
  return {
    category,
    price,
    min: prices.length ? money(Math.min(...prices)) : null,
    max: prices.length ? money(Math.max(...prices)) : null,
    instantBooking: flag('instantBooking'),
    featured: flag('featured'),
    photographer,
  };
}

const FACETS = `facets {
  category { id type values { id label count input } }
  price { id type min max values { id label count input } }
  instantBooking { id type values { id count input } }
  featured { id type values { id count input } }
  photographer { id type values { id label count input } } }`;

async function facetsOf(filter: Filter): Promise<{ count: number; facets: Facets }> {
  const { body } = await graphql<{ packages: { count: number; facets: Facets } }>(
    app,
    `query($filter: PackageFilter) { packages(limit: 1, seed: 1, filter: $filter) { count ${FACETS} } }`,
    { filter },
  );
  expect(body.errors).toBeUndefined();
  return body.data?.packages as { count: number; facets: Facets };
}

describe(`facets on ${engineName}`, () => {
  const someone = () => listed[3]?.photographer.id as string;
  const filters: [string, () => Filter][] = [
    ['no filter', () => ({})],
    ['one category', () => ({ categories: [1] })],
    ['two categories under 500.00', () => ({ categories: [1, 3], priceMax: '500.00' })],
    ['a price range', () => ({ priceMin: '100.00', priceMax: '999.99' })],
    ['instant booking', () => ({ instantBooking: true })],
    ['not featured in category 2', () => ({ featured: false, categories: [2] })],
    ['one photographer', () => ({ photographerId: someone() })],
    ['no instant booking from 250.00', () => ({ instantBooking: false, priceMin: '250.00' })],
    ['featured in three categories', () => ({ categories: [1, 2, 3], featured: true })],
    ['a category nobody lists', () => ({ categories: [999] })],
  ];

  it.each(filters)('%s: every count is what a walk of the listing finds', async (_name, filterOf) => {
    const filter = filterOf();
    const { count, facets } = await facetsOf(filter);
    const expected = bruteForce(filter);
    expect(count).toBe(listed.filter((card) => matches(card, filter)).length);
    expect(facets.category.values.map((v) => [v.id, v.count])).toEqual(expected.category);
    expect(facets.price.values.map((v) => v.count)).toEqual(expected.price);
    expect([facets.price.min, facets.price.max]).toEqual([expected.min, expected.max]);
    expect(facets.instantBooking.values.map((v) => v.count)).toEqual(expected.instantBooking);
    expect(facets.featured.values.map((v) => v.count)).toEqual(expected.featured);
    expect(facets.photographer.values.map((v) => [v.id, v.count])).toEqual(expected.photographer);
    expect(facets.category.type).toBe('LIST');
    expect(facets.price.type).toBe('PRICE_RANGE');
    expect(facets.featured.type).toBe('BOOLEAN');
  });

  it("gives each value an input that, merged into the filter, selects exactly the value's count", async () => {
    const filter: Filter = { categories: [1, 3], instantBooking: true };
    const { facets } = await facetsOf(filter);
    const values = Object.entries(facets).flatMap(([id, facet]) =>
      facet.values.filter((v) => v.count > 0).map((value) => ({ id, value })),
    );
    expect(values.length).toBeGreaterThan(5);
    for (const { id, value } of values) {
      const part = JSON.parse(value.input) as Filter;
      const own = id === 'price' ? ['priceMin', 'priceMax'] : [id === 'category' ? 'categories' : id];
      const merged = { ...without(filter, ...(own as (keyof Filter)[])), ...part };
      const { count } = await facetsOf(merged);
      expect(count, `${id} ${value.id}`).toBe(value.count);
    }
  });

  it('counts facets on a connection as on a page', async () => {
    const filter: Filter = { priceMax: '800.00' };
    const { body } = await graphql<{ packagesConnection: { facets: Facets } }>(
      app,
      `query($filter: PackageFilter) { packagesConnection(first: 2, filter: $filter) { ${FACETS} } }`,
      { filter },
    );
    expect(body.errors).toBeUndefined();
    expect(body.data?.packagesConnection.facets).toEqual((await facetsOf(filter)).facets);
  });

  it('prices each facet asked for in the query cost, and refuses past the limit before counting', async () => {
    const NAMES = ['category', 'price', 'instantBooking', 'featured', 'photographer'];
    const withFacets = (n: number) =>
      `{ packages(limit: 24) { count facets { ${NAMES.slice(0, n)
        .map((name) => `${name} { values { count } }`)
        .join(' ')} } } }`;
    const cost = (n: number) => measureOperation({ schema, document: parse(withFacets(n)) }, null, {})?.cost ?? 0;
    for (const n of [2, 3, 4, 5]) expect(cost(n) - cost(n - 1)).toBeGreaterThanOrEqual(FACET_COST);
    const limited = createApp({ db, settings: { limits: { ...DEFAULT_LIMITS, cost: cost(4) } } });
    expect((await graphql(limited, withFacets(4))).body.errors).toBeUndefined();
    const refused = await graphql(limited, withFacets(5));
    expect(refused.status).toBe(400);
    expect(refused.body.errors?.[0]?.extensions).toMatchObject({ code: 'QUERY_LIMIT_EXCEEDED', limit: 'cost' });
  });
});
