// Money: every price of a package (price, deposit, add-ons) with its currency, the photographer's override where
// set, else the photographer's own; the bare amounts kept, deprecated; price filters and price orders never compare
// two currencies (a price bound needs filter.currency, a price order without one goes currency by currency); on
// both engines.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../src/app.js';
import { createListingTestDatabase, engineName, type TestDatabase } from '../helpers/database.js';
import { graphql } from '../helpers/graphql.js';

interface Money {
  amount: string;
  currencyCode: string;
  symbol: string;
}
interface Card {
  id: string;
  price: string;
  deposit: string;
  priceMoney: Money;
  depositMoney: Money;
  location: { latitude: string; longitude: string };
  linkedAddOns: { packageAddOnTemplate: { id: string; price: string; priceMoney: Money } }[];
  photographer: {
    currencyCode: string;
    currencySymbol: string;
    overrideCurrencyCode: string | null;
    overrideCurrencySymbol: string | null;
  };
}

const CARD = `id price deposit priceMoney { amount currencyCode symbol } depositMoney { amount currencyCode symbol }
  location { latitude longitude }
  linkedAddOns { packageAddOnTemplate { id price priceMoney { amount currencyCode symbol } } }
  photographer { currencyCode currencySymbol overrideCurrencyCode overrideCurrencySymbol }`;

const PAGE = `query ($offset: Int, $filter: PackageFilter, $sort: PackageSort) {
  packages(limit: 100, offset: $offset, seed: 1, filter: $filter, sort: $sort) { count results { ${CARD} } } }`;

let db: TestDatabase;
let app: ReturnType<typeof createApp>;
let listed: Card[];

beforeAll(async () => {
  db = await createListingTestDatabase(200);
  app = createApp({ db, settings: { rateLimit: { requests: 0, windowMs: 60_000 }, responseCacheBytes: 0 } });
  listed = await walk({});
});
afterAll(async () => {
  await app?.dispose();
  await db?.destroy();
});

/** Every page of an order, in order. */
async function walk(variables: Record<string, unknown>): Promise<Card[]> {
  const all: Card[] = [];
  for (let offset = 0; ; offset += 100) {
    const { body } = await graphql<{ packages: { count: number; results: Card[] } }>(app, PAGE, {
      ...variables,
      offset,
    });
    expect(body.errors, JSON.stringify(body.errors)).toBeUndefined();
    const page = body.data?.packages as { count: number; results: Card[] };
    all.push(...page.results);
    if (offset + 100 >= page.count) return all;
  }
}

/** The currency as the spec's fields give it: the override when set, else the photographer's own, upper case. */
function expectedCurrency({ photographer: ph }: Card): { currencyCode: string; symbol: string } {
  if (ph.overrideCurrencyCode) {
    return {
      currencyCode: ph.overrideCurrencyCode.toUpperCase(),
      symbol: ph.overrideCurrencySymbol || ph.overrideCurrencyCode.toUpperCase(),
    };
  }
  return { currencyCode: ph.currencyCode.toUpperCase(), symbol: ph.currencySymbol };
}

const currencyOf = (card: Card) => card.priceMoney.currencyCode;
const cents = (amount: string) => Math.round(Number(amount) * 100);
const byId = (a: Card, b: Card) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

describe(`money on ${engineName}`, () => {
  it("gives every price as Money in the package's currency: the override where set, else the photographer's", async () => {
    expect(new Set(listed.map(currencyOf)).size).toBeGreaterThanOrEqual(5);
    expect(listed.some((card) => card.photographer.overrideCurrencyCode)).toBe(true);
    for (const card of listed) {
      const currency = expectedCurrency(card);
      expect(card.priceMoney, card.id).toEqual({ amount: card.price, ...currency });
      expect(card.depositMoney, card.id).toEqual({ amount: card.deposit, ...currency });
      for (const { packageAddOnTemplate: addOn } of card.linkedAddOns) {
        expect(addOn.priceMoney, addOn.id).toEqual({ amount: addOn.price, ...currency });
      }
    }
    expect(listed.some((card) => card.linkedAddOns.length > 0)).toBe(true);
  });

  it('reads the currency on every path a package comes by, whatever else the selection names', async () => {
    const card = listed.find((c) => c.photographer.overrideCurrencyCode) as Card;
    const money = `priceMoney { amount currencyCode symbol }`;
    const paths = [
      `{ package(id: "${card.id}") { ${money} } }`,
      `{ node(id: "${card.id}") { ... on Package { ${money} } } }`,
      `{ packagesConnection(first: 100) { edges { node { id ${money} } } } }`,
      `{ packages(limit: 100, sort: NEWEST) { results { id ${money} } } }`,
      `{ package(id: "${card.id}") { photographer { packages(first: 50) { edges { node { id ${money} } } } } } }`,
      `{ package(id: "${card.id}") { linkedAddOns { packageAddOnTemplate { priceMoney { currencyCode } } } } }`,
    ];
    for (const query of paths) {
      const { body } = await graphql(app, query);
      expect(body.errors, query).toBeUndefined();
      const found = JSON.stringify(body.data).match(/"currencyCode":"[A-Z]{3}"/g) ?? [];
      expect(found.length, query).toBeGreaterThan(0);
    }
    const { body } = await graphql<{ package: { priceMoney: Money } }>(
      app,
      `{ package(id: "${card.id}") { ${money} } }`,
    );
    expect(body.data?.package.priceMoney).toEqual(card.priceMoney);
  });

  it('keeps the bare amounts, deprecated with a reason naming the Money field', async () => {
    const { body } = await graphql<{
      [type: string]: { fields: { name: string; isDeprecated: boolean; deprecationReason: string | null }[] };
    }>(
      app,
      `{ package: __type(name: "Package") { fields(includeDeprecated: true) { name isDeprecated deprecationReason } }
         addOn: __type(name: "AddOnTemplate") { fields(includeDeprecated: true) { name isDeprecated deprecationReason } }
         facet: __type(name: "Facet") { fields(includeDeprecated: true) { name isDeprecated deprecationReason } } }`,
    );
    const reason = (type: string, field: string) =>
      body.data?.[type]?.fields.find((f) => f.name === field)?.deprecationReason ?? '';
    expect(reason('package', 'price')).toMatch(/^Use priceMoney/);
    expect(reason('package', 'deposit')).toMatch(/^Use depositMoney/);
    expect(reason('addOn', 'price')).toMatch(/^Use priceMoney/);
    expect(reason('facet', 'min')).toMatch(/^Use minPrice/);
    expect(reason('facet', 'max')).toMatch(/^Use maxPrice/);
  });
});

describe(`price filters and orders never mix currencies, on ${engineName}`, () => {
  it.each([
    [{ priceMax: '500.00' }, 'filter.priceMax needs filter.currency, the currency the price is in'],
    [{ priceMin: '1', categories: [1] }, 'filter.priceMin needs filter.currency, the currency the price is in'],
    [
      { currency: 'US', priceMin: '1' },
      'filter.currency must be a 3-letter ISO 4217 currency code, e.g. "USD", got "US"',
    ],
    [{ currency: 'U$D' }, 'filter.currency must be a 3-letter ISO 4217 currency code, e.g. "USD", got "U$D"'],
    [{ currency: '' }, 'filter.currency must be a 3-letter ISO 4217 currency code, e.g. "USD", got ""'],
    [{ currency: 'x'.repeat(100_000) }, `got "${'x'.repeat(16)}..."`],
  ])('refuses %j with BAD_USER_INPUT 400 naming the fix', async (filter, message) => {
    const { status, body } = await graphql(app, 'query ($f: PackageFilter) { packages(filter: $f) { count } }', {
      f: filter,
    });
    expect(status).toBe(400);
    expect(body.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
    expect(body.errors?.[0]?.message).toContain(message);
  });

  it('a price range holds packages of its currency only, in any order and on any read path', async () => {
    for (const currency of new Set(listed.map(currencyOf))) {
      const prices = listed.filter((c) => currencyOf(c) === currency).map((c) => cents(c.price));
      const low = prices.sort((a, b) => a - b)[Math.floor(prices.length / 4)] as number;
      const priceMin = (low / 100).toFixed(2);
      const expected = listed.filter((c) => currencyOf(c) === currency && cents(c.price) >= low).map((c) => c.id);
      const anywhere = listed[0] as Card;
      // In the facet columns (seeded), in SQL (sorted), and in SQL with a part the columns cannot tell (near).
      for (const variables of [
        { filter: { currency: currency.toLowerCase(), priceMin } },
        { filter: { currency, priceMin }, sort: 'PRICE_DESC' },
        { filter: { currency, priceMin, near: { ...anywhere.location, radiusKm: 500 } } },
      ]) {
        const found = await walk(variables);
        expect(found.every((c) => currencyOf(c) === currency)).toBe(true);
        if (!variables.filter.near) expect(found.map((c) => c.id).sort()).toEqual(expected.sort());
      }
    }
  });

  it.each(['PRICE_ASC', 'PRICE_DESC'])(
    '%s without a currency: currency by currency (A to Z), then by amount',
    async (sort) => {
      const walked = await walk({ sort });
      expect(walked.map((c) => c.id).sort()).toEqual(listed.map((c) => c.id).sort());
      const sign = sort === 'PRICE_ASC' ? 1 : -1;
      const expected = [...listed].sort(
        (a, b) =>
          (currencyOf(a) < currencyOf(b) ? -1 : currencyOf(a) > currencyOf(b) ? 1 : 0) ||
          sign * (cents(a.price) - cents(b.price)) ||
          byId(a, b),
      );
      expect(walked.map((c) => c.id)).toEqual(expected.map((c) => c.id));
      // Each currency's packages together: a currency once left never comes back.
      const runs = walked.map(currencyOf).filter((code, i, all) => code !== all[i - 1]);
      expect(runs).toEqual([...new Set(runs)].sort());
    },
  );

  it.each(['PRICE_ASC', 'PRICE_DESC'])('%s within filter.currency: that currency only, by amount', async (sort) => {
    const currency = 'JPY';
    const walked = await walk({ sort, filter: { currency } });
    const sign = sort === 'PRICE_ASC' ? 1 : -1;
    const expected = listed
      .filter((c) => currencyOf(c) === currency)
      .sort((a, b) => sign * (cents(a.price) - cents(b.price)) || byId(a, b));
    expect(expected.length).toBeGreaterThan(3);
    expect(walked.map((c) => c.id)).toEqual(expected.map((c) => c.id));
  });
});
