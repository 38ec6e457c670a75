// Facet counts beside a filter, held against brute force: for a dozen filters and for every currency of the
// listing (alone and with a price range), every count of every facet is what a walk of all listed packages finds,
// counting disjunctively (a facet ignores the filter's own part for it), price ranges per currency at edges from
// the currency's median; each value's `input`, merged into the filter, gives exactly its count; ids are scoped by
// the filter a count holds to, so a normalized cache never mixes two counts; on both engines.

import { parse } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../src/app.js';
import { DEFAULT_LIMITS } from '../../src/config.js';
import { measureOperation } from '../../src/graphql/limits.js';
import { schema } from '../../src/graphql/schema.js';
import { FACET_COST } from '../../src/graphql/types/facets.js';
import { createListingTestDatabase, engineName, type TestDatabase } from '../helpers/database.js';
import { graphql } from '../helpers/graphql.js';

interface Card {
  id: string;
  category: number;
  categoryName: string;
  priceMoney: { amount: string; currencyCode: string };
  instantBooking: boolean;
  featured: boolean;
  photographer: { id: string; name: string };
}
interface Filter {
  categories?: number[];
  currency?: string;
  priceMin?: string;
  priceMax?: string;
  instantBooking?: boolean;
  featured?: boolean;
  photographerId?: string;
}
interface Value {
  id: string;
  value: string;
  label: string;
  count: number;
  input: string;
}
interface Facet {
  id: string;
  name: string;
  type: string;
  values: Value[];
  min?: string | null;
  max?: string | null;
  minPrice?: { amount: string; currencyCode: string } | null;
  maxPrice?: { amount: string; currencyCode: string } | null;
}
type Facets = Record<'category' | 'price' | 'currency' | 'instantBooking' | 'featured' | 'photographer', Facet>;

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
          results { id category categoryName priceMoney { amount currencyCode } instantBooking featured
            photographer { id name } } } }`,
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
const priceOf = (card: Card) => cents(card.priceMoney.amount);
const currencyOf = (card: Card) => card.priceMoney.currencyCode;
const currencies = () => [...new Set(listed.map(currencyOf))].sort();

/** A currency's range edges in cents, as documented: 0, 1, 2.5, 5, 10, 25 units, from its median listed price. */
function edgesOf(currency: string): number[] {
  const prices = listed.filter((c) => currencyOf(c) === currency).map(priceOf);
  prices.sort((a, b) => a - b);
  const median = prices[Math.floor((prices.length - 1) / 2)] ?? 0;
  const unit = median > 0 ? Math.max(100, 10 ** Math.round(Math.log10(median / 5))) : 100;
  return [0, 1, 2.5, 5, 10, 25].map((units) => units * unit);
}
const money = (c: number) => `${Math.floor(c / 100)}.${String(c % 100).padStart(2, '0')}`;

function matches(card: Card, filter: Filter): boolean {
  if (filter.categories && !filter.categories.includes(card.category)) return false;
  if (filter.currency && currencyOf(card) !== filter.currency.toUpperCase()) return false;
  if (filter.priceMin && priceOf(card) < cents(filter.priceMin)) return false;
  if (filter.priceMax && priceOf(card) > cents(filter.priceMax)) return false;
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
  const inCurrencies = counted(['currency', 'priceMin', 'priceMax']);
  const currency = currencies().map((code) => [code, inCurrencies.filter((c) => currencyOf(c) === code).length]);
  const inPrice = counted(['priceMin', 'priceMax']);
  const one = filter.currency?.toUpperCase();
  const price = currencies()
    .filter((code) => one === undefined || code === one)
    .flatMap((code) =>
      edgesOf(code).map((from, i, edges) => {
        const next = edges[i + 1];
        const value = `${code}:${money(from)}-${next === undefined ? '' : money(next - 1)}`;
        const inRange = (c: Card) => currencyOf(c) === code && priceOf(c) >= from && priceOf(c) < (next ?? Infinity);
        return [value, inPrice.filter(inRange).length];
      }),
    );
  const prices = one === undefined ? [] : inPrice.map(priceOf);
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
    currency,
    price,
    min: prices.length ? money(Math.min(...prices)) : null,
    max: prices.length ? money(Math.max(...prices)) : null,
    instantBooking: flag('instantBooking'),
    featured: flag('featured'),
    photographer,
  };
}

const FACETS = `facets {
  category { id name type values { id value label count input } }
  price { id name type min max minPrice { amount currencyCode } maxPrice { amount currencyCode }
    values { id value label count input } }
  currency { id name type values { id value label count input } }
  instantBooking { id name type values { id value count input } }
  featured { id name type values { id value count input } }
  photographer { id name type values { id value label count input } } }`;

async function facetsOf(filter: Filter): Promise<{ count: number; facets: Facets }> {
  const { body } = await graphql<{ packages: { count: number; facets: Facets } }>(
    app,
    `query($filter: PackageFilter) { packages(limit: 1, seed: 1, filter: $filter) { count ${FACETS} } }`,
    { filter },
  );
  expect(body.errors).toBeUndefined();
  return body.data?.packages as { count: number; facets: Facets };
}

/** The filter's own parts of each facet: what its counts ignore. */
const OWN: Record<string, (keyof Filter)[]> = {
  category: ['categories'],
  price: ['priceMin', 'priceMax'],
  currency: ['currency', 'priceMin', 'priceMax'],
  instantBooking: ['instantBooking'],
  featured: ['featured'],
  photographer: ['photographerId'],
};

/** Every facet of `filter` against brute force. */
async function expectBruteForce(filter: Filter): Promise<void> {
  const { count, facets } = await facetsOf(filter);
  const expected = bruteForce(filter);
  const name = JSON.stringify(filter);
  expect(count, name).toBe(listed.filter((card) => matches(card, filter)).length);
  expect(
    facets.category.values.map((v) => [v.value, v.count]),
    name,
  ).toEqual(expected.category);
  expect(
    facets.currency.values.map((v) => [v.value, v.count]),
    name,
  ).toEqual(expected.currency);
  expect(
    facets.price.values.map((v) => [v.value, v.count]),
    name,
  ).toEqual(expected.price);
  expect([facets.price.min, facets.price.max], name).toEqual([expected.min, expected.max]);
  const one = filter.currency?.toUpperCase() ?? null;
  const bound = (amount: string | null) => (amount === null ? null : { amount, currencyCode: one });
  expect([facets.price.minPrice, facets.price.maxPrice], name).toEqual([bound(expected.min), bound(expected.max)]);
  expect(
    facets.instantBooking.values.map((v) => v.count),
    name,
  ).toEqual(expected.instantBooking);
  expect(
    facets.featured.values.map((v) => v.count),
    name,
  ).toEqual(expected.featured);
  expect(
    facets.photographer.values.map((v) => [v.value, v.count]),
    name,
  ).toEqual(expected.photographer);
  for (const [key, facet] of Object.entries(facets)) expect(facet.name).toBe(key);
}

describe(`facets on ${engineName}`, () => {
  const someone = () => listed[3]?.photographer.id as string;
  const filters: [string, () => Filter][] = [
    ['no filter', () => ({})],
    ['one category', () => ({ categories: [1] })],
    ['two categories under 500.00 USD', () => ({ categories: [1, 3], currency: 'USD', priceMax: '500.00' })],
    ['a price range in euros', () => ({ currency: 'EUR', priceMin: '100.00', priceMax: '999.99' })],
    ['instant booking', () => ({ instantBooking: true })],
    ['not featured in category 2', () => ({ featured: false, categories: [2] })],
    ['one photographer', () => ({ photographerId: someone() })],
    ['no instant booking from 250.00 USD', () => ({ instantBooking: false, currency: 'usd', priceMin: '250.00' })],
    ['featured in three categories', () => ({ categories: [1, 2, 3], featured: true })],
    ['a category nobody lists', () => ({ categories: [999] })],
    ['a currency nobody prices in', () => ({ currency: 'XAU' })],
  ];

  it.each(filters)('%s: every count is what a walk of the listing finds', async (_name, filterOf) => {
    const filter = filterOf();
    await expectBruteForce(filter);
    const { facets } = await facetsOf(filter);
    expect(facets.category.type).toBe('LIST');
    expect(facets.currency.type).toBe('LIST');
    expect(facets.price.type).toBe('PRICE_RANGE');
    expect(facets.featured.type).toBe('BOOLEAN');
  });

  it('every currency of the listing, alone, with a price range and in a category: counts are brute force', async () => {
    expect(currencies().length).toBeGreaterThanOrEqual(5);
    for (const currency of currencies()) {
      const [, low, high] = edgesOf(currency);
      await expectBruteForce({ currency });
      await expectBruteForce({ currency, priceMin: money(low as number), priceMax: money((high as number) - 1) });
      await expectBruteForce({ currency: currency.toLowerCase(), categories: [1, 2], instantBooking: true });
    }
  });

  it('never puts two currencies in one price range, and gives min and max only within a currency', async () => {
    const { facets } = await facetsOf({});
    for (const value of facets.price.values) {
      const part = JSON.parse(value.input) as Filter;
      expect(value.value.startsWith(`${part.currency}:`)).toBe(true);
      expect(value.label.startsWith(`${part.currency} `)).toBe(true);
    }
    expect(new Set(facets.price.values.map((v) => v.value.split(':')[0]))).toEqual(new Set(currencies()));
    expect([facets.price.min, facets.price.max, facets.price.minPrice]).toEqual([null, null, null]);
    // The largest yen price is not the facet's maximum of another currency's packages.
    const usd = (await facetsOf({ currency: 'USD' })).facets.price;
    const largestUsd = Math.max(...listed.filter((c) => currencyOf(c) === 'USD').map(priceOf));
    expect(usd.max).toBe(money(largestUsd));
  });

  it("gives each value an input that, merged into the filter, selects exactly the value's count", async () => {
    const filter: Filter = { categories: [1, 2, 3], currency: 'USD', priceMax: '2499.99' };
    const { facets } = await facetsOf(filter);
    const values = Object.entries(facets).flatMap(([name, facet]) =>
      facet.values.filter((v) => v.count > 0).map((value) => ({ name, value })),
    );
    expect(new Set(values.map((v) => v.name)).size).toBe(6);
    for (const { name, value } of values) {
      const part = JSON.parse(value.input) as Filter;
      const merged = { ...without(filter, ...(OWN[name] as (keyof Filter)[])), ...part };
      const { body } = await graphql<{ packages: { count: number } }>(
        app,
        'query($filter: PackageFilter) { packages(limit: 1, filter: $filter) { count } }',
        { filter: merged },
      );
      expect(body.data?.packages.count, `${name} ${value.value}`).toBe(value.count);
    }
  });

  it('scopes ids by facet, value and the filter the counts hold to: a normalized cache never mixes two counts', async () => {
    // What Apollo's InMemoryCache does: one object per __typename:id, the last answer's fields merged into it.
    const cache = new Map<string, string>();
    let entries = 0;
    const filterSets: Filter[] = [{}, { categories: [1] }, { featured: true }, { instantBooking: false }];
    for (const currency of currencies().slice(0, 3)) filterSets.push({ currency }, { currency, categories: [2] });
    for (const filter of filterSets) {
      const { facets } = await facetsOf(filter);
      const objects = Object.values(facets).flatMap((facet) => [
        { key: `Facet:${facet.id}`, data: JSON.stringify({ ...facet, values: facet.values.map((v) => v.id) }) },
        ...facet.values.map((v) => ({ key: `FacetValue:${v.id}`, data: JSON.stringify(v) })),
      ]);
      // Unique within one answer: "true" of instantBooking is not "true" of featured.
      expect(new Set(objects.map((o) => o.key)).size).toBe(objects.length);
      for (const { key, data } of objects) {
        const known = cache.get(key);
        if (known !== undefined) expect(data, `${key} under ${JSON.stringify(filter)}`).toBe(known);
        cache.set(key, data);
        entries++;
      }
    }
    // Filters that differ only in a facet's own part share that facet's entries (its counts are the same).
    expect(cache.size).toBeLessThan(entries);
    const [a, b] = await Promise.all([facetsOf({ categories: [1] }), facetsOf({ categories: [2] })]);
    expect(a.facets.category.id).toBe(b.facets.category.id);
    expect(a.facets.featured.id).not.toBe(b.facets.featured.id);
  });

  it('counts facets on a connection as on a page', async () => {
    const filter: Filter = { currency: 'USD', priceMax: '800.00' };
    const { body } = await graphql<{ packagesConnection: { facets: Facets } }>(
      app,
      `query($filter: PackageFilter) { packagesConnection(first: 2, filter: $filter) { ${FACETS} } }`,
      { filter },
    );
    expect(body.errors).toBeUndefined();
    expect(body.data?.packagesConnection.facets).toEqual((await facetsOf(filter)).facets);
  });

  it('prices each facet asked for in the query cost, and refuses past the limit before counting', async () => {
    const NAMES = ['category', 'price', 'currency', 'instantBooking', 'featured', 'photographer'];
    const withFacets = (n: number) =>
      `{ packages(limit: 24) { count facets { ${NAMES.slice(0, n)
        .map((name) => `${name} { values { count } }`)
        .join(' ')} } } }`;
    const cost = (n: number) => measureOperation({ schema, document: parse(withFacets(n)) }, null, {})?.cost ?? 0;
    for (const n of [2, 3, 4, 5, 6]) expect(cost(n) - cost(n - 1)).toBeGreaterThanOrEqual(FACET_COST);
    const limited = createApp({ db, settings: { limits: { ...DEFAULT_LIMITS, cost: cost(5) } } });
    expect((await graphql(limited, withFacets(5))).body.errors).toBeUndefined();
    const refused = await graphql(limited, withFacets(6));
    expect(refused.status).toBe(400);
    expect(refused.body.errors?.[0]?.extensions).toMatchObject({ code: 'QUERY_LIMIT_EXCEEDED', limit: 'cost' });
  });
});
