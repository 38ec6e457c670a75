// The storefront API as a frontend uses it: a package by slug, filters, sorts, distances, a photographer's
// packages and cursor pagination, each checked against the listing itself; and the argument rules.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../src/app.js';
import { distanceKm } from '../../src/listing/filter.js';
import { createListingTestDatabase, engineName, type TestDatabase } from '../helpers/database.js';
import { graphql } from '../helpers/graphql.js';
import { searchableWords, searchFinds } from '../helpers/search-rule.js';

interface Card {
  id: string;
  title: string;
  price: string;
  priceMoney: { currencyCode: string };
  category: number;
  categoryName: string;
  tagKeywords: string;
  featured: boolean;
  instantBooking: boolean;
  urlSlug: string;
  location: { latitude: string; longitude: string };
  photographer: { id: string; createdAt: string };
  distanceKm: number | null;
}

const CARD = `id title price priceMoney { currencyCode } category categoryName tagKeywords featured instantBooking urlSlug
  location { latitude longitude } photographer { id createdAt } distanceKm`;

let db: TestDatabase;
let app: ReturnType<typeof createApp>;
/** Every listed package, read through the unfiltered listing. */
let listed: Card[];

beforeAll(async () => {
  db = await createListingTestDatabase(300);
  // The cache off: these tests are about how pages are made, not how they are kept (test/cache/).
  app = createApp({ db, settings: { responseCacheBytes: 0 } });
  listed = await walkPages({});
});
afterAll(() => db?.destroy());

async function query<T>(text: string, variables: Record<string, unknown> = {}): Promise<T> {
  const { body } = await graphql<T>(app, text, variables);
  expect(body.errors, JSON.stringify(body.errors)).toBeUndefined();
  return body.data as T;
}

async function refusal(text: string, variables: Record<string, unknown> = {}): Promise<string> {
  const { body } = await graphql(app, text, variables);
  expect(body.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
  return body.errors?.[0]?.message ?? '';
}

const PAGE = `query ($offset: Int, $seed: Int, $filter: PackageFilter, $sort: PackageSort) {
  packages(limit: 100, offset: $offset, seed: $seed, filter: $filter, sort: $sort) { count results { ${CARD} } }
}`;

/** Every page of an order, in order. */
async function walkPages(variables: Record<string, unknown>): Promise<Card[]> {
  const all: Card[] = [];
  for (let offset = 0; ; offset += 100) {
    const data = await query<{ packages: { count: number; results: Card[] } }>(PAGE, { seed: 5, ...variables, offset });
    all.push(...data.packages.results);
    if (offset + 100 >= data.packages.count) {
      expect(all).toHaveLength(data.packages.count);
      return all;
    }
  }
}

const ids = (cards: Card[]) => cards.map((card) => card.id);
const sortedIds = (cards: Card[]) => ids(cards).sort();
const words = (card: Card) =>
  `${card.title} ${card.tagKeywords} ${card.categoryName}`.toLowerCase().split(/[^\p{L}\p{N}]+/u);
/** Whether the search finds the card by the search's rule, applied here to the card's own texts. */
const finds = (search: string) => (card: Card) =>
  searchFinds(search, searchableWords(card.title, card.tagKeywords, card.categoryName));

describe(`package(id, urlSlug) on ${engineName}`, () => {
  it('finds a listed package by its slug or its id, and nothing for an unknown slug', async () => {
    const sample = listed[7] as Card;
    const bySlug = await query<{ package: { id: string } }>('query ($s: String) { package(urlSlug: $s) { id } }', {
      s: sample.urlSlug,
    });
    expect(bySlug.package.id).toBe(sample.id);
    const byId = await query<{ package: { urlSlug: string } }>('query ($id: ID) { package(id: $id) { urlSlug } }', {
      id: sample.id,
    });
    expect(byId.package.urlSlug).toBe(sample.urlSlug);
    expect(await query('{ package(urlSlug: "no-such-package") { id } }')).toEqual({ package: null });
  });

  it('refuses a slug with a NUL character or longer than 200 characters', async () => {
    const slug = 'query ($s: String) { package(urlSlug: $s) { id } }';
    expect(await refusal(slug, { s: 'a\u0000' })).toBe('urlSlug may not hold the NUL character, got "a\\u0000"');
    expect(await refusal(slug, { s: 'a'.repeat(201) })).toBe('urlSlug may be at most 200 characters long, got 201');
  });

  it('takes exactly one of id and urlSlug', async () => {
    expect(await refusal('{ package { id } }')).toBe('package takes exactly one of id and urlSlug');
    expect(await refusal(`{ package(id: "${listed[0]?.id}", urlSlug: "x") { id } }`)).toBe(
      'package takes exactly one of id and urlSlug',
    );
  });
});

describe(`filters on ${engineName}: the seeded order of a filter is a permutation of exactly the matches`, () => {
  const paris = { latitude: '48.856600', longitude: '2.352200' };
  const cases: [string, Record<string, unknown>, (card: Card) => boolean][] = [
    [
      'categories 1 and 3 under 500.00 USD',
      { categories: [1, 3], currency: 'USD', priceMax: '500.00' },
      (c) => [1, 3].includes(c.category) && c.priceMoney.currencyCode === 'USD' && Number(c.price) <= 500,
    ],
    [
      'a price range in euros',
      { currency: 'eur', priceMin: '300.00', priceMax: '900.00' },
      (c) => c.priceMoney.currencyCode === 'EUR' && Number(c.price) >= 300 && Number(c.price) <= 900,
    ],
    ['instant booking', { instantBooking: true }, (c) => c.instantBooking],
    ['not featured', { featured: false }, (c) => !c.featured],
    // The search's rule, written again in test/helpers/search-rule.ts: every word as itself or folded, the last
    // one also as the start of a word, as people type; words split at anything but letters and digits.
    ['a text search', { search: 'Wedding' }, finds('Wedding')],
    ['the start of a word', { search: 'wed' }, finds('wed')],
    ['two search words', { search: '  golden   hour ' }, finds('golden hour')],
    ['a word and the start of the next', { search: 'GOLDEN hou' }, finds('GOLDEN hou')],
    ['a plural', { search: 'weddings' }, finds('weddings')],
    ['a plural before another word', { search: 'portraits session' }, finds('portraits session')],
    ['a singular before another word', { search: 'engagement session' }, finds('engagement session')],
    ['an -ing form', { search: 'shooting' }, finds('shooting')],
    ['words joined by a hyphen', { search: 'real-estate' }, finds('real-estate')],
    ['a folded typo', { search: 'weding' }, finds('weding')], // "weding" folds as "wedding" does
    // A word the listing lacks is read as the closest it has (typos.ts), the last still the start of a word.
    ['a typo in the first word', { search: 'goldn hour' }, finds('golden hour')],
    ['two letters swapped', { search: 'newbron' }, finds('newborn')],
    [
      'within 300 km of Paris',
      { near: { ...paris, radiusKm: 300 } },
      (c) => distanceKm(48.8566, 2.3522, Number(c.location.latitude), Number(c.location.longitude)) <= 300,
    ],
  ];

  it.each(cases)('%s', async (_name, filter, matches) => {
    const expected = listed.filter(matches);
    expect(expected.length).toBeGreaterThan(0);
    expect(expected.length).toBeLessThan(listed.length);
    const walked = await walkPages({ filter });
    expect(sortedIds(walked)).toEqual(sortedIds(expected));
    expect(new Set(ids(walked)).size).toBe(walked.length);
    const again = await walkPages({ filter });
    expect(ids(again)).toEqual(ids(walked));
    const otherSeed = await walkPages({ filter, seed: 6 });
    expect(sortedIds(otherSeed)).toEqual(sortedIds(walked));
    if (walked.length > 5) expect(ids(otherSeed)).not.toEqual(ids(walked));
  });

  it('a typo corrected is a search that finds nothing as typed', () => {
    for (const typo of ['goldn hour', 'newbron']) expect(listed.filter(finds(typo))).toEqual([]);
  });

  it('a plural finds what its singular finds, a hyphen what a space finds', async () => {
    const count = async (search: string) =>
      (await query<{ packages: { count: number } }>(PAGE, { filter: { search } })).packages.count;
    for (const [one, other] of [
      ['wedding', 'weddings'],
      ['portrait session', 'portraits sessions'],
      ['real estate', 'real-estate'],
      ['newborn', 'newborns'],
    ]) {
      expect(await count(other as string)).toBe(await count(one as string));
      expect(await count(one as string)).toBeGreaterThan(0);
    }
  });

  it("a photographer's packages, by filter and on the photographer", async () => {
    const photographerId = (listed[3] as Card).photographer.id;
    const expected = listed.filter((card) => card.photographer.id === photographerId);
    const walked = await walkPages({ filter: { photographerId } });
    expect(sortedIds(walked)).toEqual(sortedIds(expected));
    const data = await query<{
      package: { photographer: { packages: { totalCount: number; edges: { node: { id: string } }[] } } };
    }>(
      `{ package(id: "${listed[3]?.id}") { photographer { packages(first: 100) { totalCount edges { node { id } } } } } }`,
    );
    const connection = data.package.photographer.packages;
    expect(connection.totalCount).toBe(expected.length);
    expect(connection.edges.map((edge) => edge.node.id)).toEqual(sortedIds(expected));
  });

  it('distanceKm is the distance from near to the metre, as distanceMetres is, and null without near', async () => {
    const near = { latitude: '48.856600', longitude: '2.352200', radiusKm: 300 };
    const walked = await walkPages({ filter: { near } });
    const { packages } = await query<{ packages: { results: { id: string; distanceMetres: number }[] } }>(
      'query ($f: PackageFilter) { packages(limit: 100, seed: 5, filter: $f) { results { id distanceMetres } } }',
      { f: { near } },
    );
    const metres = new Map(packages.results.map((p) => [p.id, p.distanceMetres]));
    expect(metres.size).toBe(walked.length);
    for (const card of walked) {
      const expected = distanceKm(48.8566, 2.3522, Number(card.location.latitude), Number(card.location.longitude));
      expect(metres.get(card.id)).toBe(Math.round(expected * 1000));
      expect(card.distanceKm).toBe((metres.get(card.id) as number) / 1000);
      expect(String(card.distanceKm)).toMatch(/^\d+(\.\d{1,3})?$/);
    }
    expect(listed.every((card) => card.distanceKm === null)).toBe(true);
  });
});

describe(`sorts on ${engineName}`, () => {
  const byIdWithin = (key: (card: Card) => number) => (a: Card, b: Card) =>
    key(a) - key(b) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

  it('PRICE_ASC and PRICE_DESC order by price within a currency, then by id', async () => {
    const filter = { categories: [1, 3], currency: 'USD' };
    const ascending = await walkPages({ filter, sort: 'PRICE_ASC' });
    const expected = listed.filter((c) => [1, 3].includes(c.category) && c.priceMoney.currencyCode === 'USD');
    expect(ids(ascending)).toEqual(ids([...expected].sort(byIdWithin((c) => Number(c.price)))));
    const descending = await walkPages({ filter, sort: 'PRICE_DESC' });
    expect(ids(descending)).toEqual(ids([...expected].sort(byIdWithin((c) => -Number(c.price)))));
  });

  it('NEWEST orders by the photographer joining, newest first, then by id', async () => {
    const newest = await walkPages({ sort: 'NEWEST' });
    expect(ids(newest)).toEqual(ids([...listed].sort(byIdWithin((c) => -Date.parse(c.photographer.createdAt)))));
  });

  it('RELEVANCE ranks a title match above a tag match above a category match, every match once', async () => {
    const filter = { search: 'pet' };
    const starts = (text: string) =>
      text
        .toLowerCase()
        .split(/[^\p{L}\p{N}]+/u)
        .some((w) => w.startsWith('pet'));
    const tier = (c: Card) => (starts(c.title) ? 0 : starts(c.tagKeywords) ? 1 : 2);
    const ranked = await walkPages({ filter, sort: 'RELEVANCE' });
    expect(sortedIds(ranked)).toEqual(sortedIds(await walkPages({ filter })));
    const tiers = ranked.map(tier);
    expect(tiers).toEqual([...tiers].sort((a, b) => a - b));
    expect(new Set(tiers)).toEqual(new Set([0, 1, 2])); // all three kinds of match are there to be ranked
  });

  it('a search with a typo is sorted over the corrected matches', async () => {
    const typo = { search: 'portrat' };
    const corrected = listed.filter((c) => words(c).some((w) => w.startsWith('portrait')));
    expect(corrected.length).toBeGreaterThan(1);
    for (const sort of ['PRICE_ASC', 'RELEVANCE']) {
      expect(sortedIds(await walkPages({ filter: typo, sort }))).toEqual(sortedIds(corrected));
    }
  });

  it('DISTANCE orders by distance from near, all within the radius, and needs near', async () => {
    const near = { latitude: '40.712800', longitude: '-74.006000', radiusKm: 500 };
    const nearest = await walkPages({ filter: { near }, sort: 'DISTANCE' });
    expect(nearest.length).toBeGreaterThan(1);
    const distances = nearest.map((card) => card.distanceKm as number);
    expect(distances).toEqual([...distances].sort((a, b) => a - b));
    expect(Math.max(...distances)).toBeLessThanOrEqual(500);
    expect(await refusal(PAGE, { sort: 'DISTANCE' })).toBe(
      'sort DISTANCE needs filter.near, the point to measure from',
    );
  });
});

const CONNECTION = `query ($first: Int, $after: String, $last: Int, $before: String, $seed: Int, $filter: PackageFilter, $sort: PackageSort) {
  packagesConnection(first: $first, after: $after, last: $last, before: $before, seed: $seed, filter: $filter, sort: $sort) {
    totalCount edges { cursor node { id } } pageInfo { hasNextPage hasPreviousPage startCursor endCursor }
  }
}`;

interface Connection {
  totalCount: number;
  edges: { cursor: string; node: { id: string } }[];
  pageInfo: { hasNextPage: boolean; hasPreviousPage: boolean; startCursor: string | null; endCursor: string | null };
}

async function connection(variables: Record<string, unknown>): Promise<Connection> {
  return (await query<{ packagesConnection: Connection }>(CONNECTION, variables)).packagesConnection;
}

describe(`packagesConnection on ${engineName}`, () => {
  const categories = { categories: [1, 2, 3] };

  it.each(['SEEDED', 'PRICE_ASC', 'RELEVANCE'])(
    'walks a filter forward and back, %s: each match exactly once',
    async (sort) => {
      const filter = sort === 'RELEVANCE' ? { search: 'pet' } : categories;
      const seeded = await walkPages({ filter, sort, seed: 9 });
      const forward: string[] = [];
      let page = await connection({ first: 7, filter, sort, seed: 9 });
      expect(page.pageInfo.hasPreviousPage).toBe(false);
      for (;;) {
        expect(page.totalCount).toBe(seeded.length);
        forward.push(...page.edges.map((edge) => edge.node.id));
        if (!page.pageInfo.hasNextPage) break;
        page = await connection({ first: 7, after: page.pageInfo.endCursor, filter, sort });
      }
      expect(forward).toEqual(ids(seeded));

      const backward: string[] = [];
      page = await connection({ last: 6, filter, sort, seed: 9 });
      expect(page.pageInfo.hasNextPage).toBe(false);
      for (;;) {
        backward.unshift(...page.edges.map((edge) => edge.node.id));
        if (!page.pageInfo.hasPreviousPage) break;
        page = await connection({ last: 6, before: page.pageInfo.startCursor, filter, sort });
      }
      expect(backward).toEqual(ids(seeded));
    },
  );

  it('refuses a cursor of another filter, sort or seed, and a made-up one', async () => {
    const filter = categories;
    const page = await connection({ first: 3, filter, seed: 4 });
    const cursor = page.pageInfo.endCursor;
    const another = 'after is a cursor of another filter or sort; page on with the ones it was made for';
    expect(await refusal(CONNECTION, { first: 3, after: cursor, filter: { categories: [1] } })).toBe(another);
    expect(await refusal(CONNECTION, { first: 3, after: cursor, filter, sort: 'PRICE_ASC' })).toBe(another);
    expect(await refusal(CONNECTION, { first: 3, after: cursor, filter, seed: 5 })).toBe(
      'seed 5 differs from the seed 4 the cursor was made with',
    );
    expect(await refusal(CONNECTION, { first: 3, after: 'bm9wZQ' })).toBe(
      'after must be a cursor from this listing, got "bm9wZQ"',
    );
  });
});

describe('input rules: BAD_USER_INPUT naming the argument, the rule and the value', () => {
  it.each([
    [
      { filter: { near: { latitude: '48.1', longitude: '2.1', radiusKm: 0 } } },
      'filter.near.radiusKm must be more than 0 and at most 500, got 0',
    ],
    [
      { filter: { near: { latitude: '48.1', longitude: '2.1', radiusKm: 501 } } },
      'filter.near.radiusKm must be more than 0 and at most 500, got 501',
    ],
    [
      { filter: { near: { latitude: '91', longitude: '2.1', radiusKm: 5 } } },
      'filter.near.latitude must be a decimal from -90 to 90 (a number, or a decimal text of at most 32 characters), got "91"',
    ],
    [
      { filter: { currency: 'USD', priceMin: '900.00', priceMax: '100.00' } },
      'filter.priceMin must not exceed priceMax (100.00), got "900.00"',
    ],
    [
      { filter: { priceMax: '-1' } },
      'filter.priceMax must be a non-negative price with at most 12 digits and 2 decimals, e.g. "500.00", got "-1"',
    ],
    [
      { filter: { categories: Array.from({ length: 51 }, (_, i) => i) } },
      'filter.categories may hold at most 50 codes, got 51',
    ],
    [{ filter: { search: 'x'.repeat(201) } }, 'filter.search may be at most 200 characters long, got 201'],
    [{ filter: { search: 'a\u0000b' } }, 'filter.search may not hold the NUL character, got "a\\u0000b"'],
    [
      { filter: { photographerId: 'nope' } },
      'filter.photographerId must be a UUID such as "3f2504e0-4f89-41d3-9a0c-0305e82c3301"',
    ],
  ])('%j', async (variables, message) => {
    expect(await refusal(PAGE, variables)).toBe(message);
  });

  it.each([
    [{ first: 0 }, 'first must be from 1 to 100, got 0'],
    [{ last: 101 }, 'last must be from 1 to 100, got 101'],
    [{ first: 2, last: 2 }, 'first and last cannot be given together'],
  ])('connection %j', async (variables, message) => {
    expect(await refusal(CONNECTION, variables)).toBe(message);
  });
});

describe('statements per page', () => {
  it('a filtered page in the seeded order: the matches are read once, then one statement a page', async () => {
    // A search is read from the database (a filter of categories, prices and flags alone is matched in memory).
    const filter = { featured: true, search: 'golden' };
    const run = () =>
      db.statements.record(() =>
        graphql(
          app,
          `query ($f: PackageFilter) { packages(limit: 20, filter: $f, seed: 3) { count results { id title price } } }`,
          { f: filter },
        ),
      );
    const first = await run();
    expect(first.statements).toHaveLength(3); // the listing's version, the matching positions, the page
    const second = await run();
    // The page alone: it brings the listing's version, which says the kept positions still hold.
    expect(second.statements).toHaveLength(1);
    expect(second.result.body).toEqual(first.result.body);
    // Only the columns asked for, and the photographer's id its surrogate keys name: no HTML, no policies.
    const page = second.statements[0] as string;
    expect(page).toContain('"title"');
    expect(page).toContain('"price"');
    expect(page).toContain('"photographer_id"');
    for (const column of ['description', 'whats_included', 'cancellation_policy']) {
      expect(page).not.toContain(`"${column}"`);
    }
  });
});
