// Storefront inputs as frontends send them: a browser's coordinates as numbers or with many decimals, an empty
// category list, a sort by relevance kept after the search is cleared, and a package page's "other packages by
// this photographer"; each gives what the plain form gives, under the same cache key and cursors.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../src/app.js';
import { createListingTestDatabase, engineName, type TestDatabase } from '../helpers/database.js';
import { graphql } from '../helpers/graphql.js';

let db: TestDatabase;
let app: ReturnType<typeof createApp>;

beforeAll(async () => {
  db = await createListingTestDatabase(200);
  app = createApp({ db, settings: { responseCacheBytes: 0 } });
});
afterAll(async () => {
  await app?.dispose();
  await db?.destroy();
});

interface Connection {
  totalCount: number;
  edges: { node: { id: string } }[];
  pageInfo: { hasNextPage: boolean; endCursor: string | null };
}

const CONNECTION = `query ($first: Int, $after: String, $seed: Int, $filter: PackageFilter, $sort: PackageSort) {
  packagesConnection(first: $first, after: $after, seed: $seed, filter: $filter, sort: $sort) {
    totalCount edges { node { id } } pageInfo { hasNextPage endCursor } } }`;

async function answer(text: string, variables: Record<string, unknown>) {
  return (await graphql<Record<string, Connection>>(app, text, variables)).body;
}

async function connection(variables: Record<string, unknown>): Promise<Connection> {
  const body = await answer(CONNECTION, variables);
  expect(body.errors, JSON.stringify(body.errors)).toBeUndefined();
  return body.data?.packagesConnection as Connection;
}

async function refusal(text: string, variables: Record<string, unknown>): Promise<string> {
  const body = await answer(text, variables);
  expect(body.errors?.[0]?.extensions?.code, JSON.stringify(body)).toBe('BAD_USER_INPUT');
  return body.errors?.[0]?.message ?? '';
}

const ids = (page: Connection) => page.edges.map((edge) => edge.node.id);

/** The first page of `variables` and the page after it continued with `next`'s arguments instead. */
async function continued(variables: Record<string, unknown>, next: Record<string, unknown>) {
  const first = await connection({ first: 5, seed: 3, ...variables });
  expect(first.pageInfo.hasNextPage).toBe(true);
  const asked = { first: 5, after: first.pageInfo.endCursor, ...next };
  return { first, asked, second: await connection(asked) };
}

describe(`filter.near on ${engineName}: coordinates as numbers or with any precision`, () => {
  const asText = { latitude: '40.712800', longitude: '-74.006000', radiusKm: 500 };

  it('finds the same packages for numbers (lat, lng), a browser position and a 6-decimal text', async () => {
    const expected = await connection({ first: 100, seed: 3, filter: { near: asText } });
    expect(expected.totalCount).toBeGreaterThan(1);
    for (const near of [
      { lat: 40.7128, lng: -74.006, radiusKm: 500 },
      { lat: 40.71280004, longitude: '-74.00599996', radiusKm: 500 },
      { latitude: '40.7128000412345678', lng: -74.006, radiusKm: 500 },
    ]) {
      expect(await connection({ first: 100, seed: 3, filter: { near } })).toEqual(expected);
    }
  });

  it('is one filter whatever the spelling: a cursor of one pages on with the other', async () => {
    const { first, second } = await continued(
      { filter: { near: asText } },
      { filter: { near: { lat: 40.71280001, lng: -74.006, radiusKm: 500 } } },
    );
    const whole = await connection({ first: 10, seed: 3, filter: { near: asText } });
    expect([...ids(first), ...ids(second)]).toEqual(ids(whole));
  });

  it.each([
    [
      { latitude: '40.7', lat: 40.7, longitude: '-74', radiusKm: 5 },
      'filter.near takes one of latitude and lat, got both',
    ],
    [{ longitude: '-74', radiusKm: 5 }, 'filter.near needs latitude (a Decimal text) or lat (a number)'],
    [{ lat: 40.7, radiusKm: 5 }, 'filter.near needs longitude (a Decimal text) or lng (a number)'],
    [
      { lat: 90.0000006, lng: 0, radiusKm: 5 },
      'filter.near.latitude must be a decimal from -90 to 90 (a number, or a decimal text of at most 32 characters), got 90.0000006',
    ],
    [
      { lat: 0, lng: -180.5, radiusKm: 5 },
      'filter.near.longitude must be a decimal from -180 to 180 (a number, or a decimal text of at most 32 characters), got -180.5',
    ],
    [
      { latitude: `1.${'0'.repeat(40)}`, lng: 0, radiusKm: 5 },
      `filter.near.latitude must be a decimal from -90 to 90 (a number, or a decimal text of at most 32 characters), got "1.${'0'.repeat(38)}..."`,
    ],
  ])('refuses %j', async (near, message) => {
    expect(await refusal(CONNECTION, { first: 1, filter: { near } })).toBe(message);
  });
});

describe(`filter.categories: [] on ${engineName}`, () => {
  it('is no category filter: every package, and the cursors of no filter', async () => {
    const all = await connection({ first: 10, seed: 3 });
    expect(all.totalCount).toBeGreaterThan(100);
    expect(await connection({ first: 10, seed: 3, filter: { categories: [] } })).toEqual(all);
    const { first, second } = await continued({ filter: { categories: [] } }, {});
    expect([...ids(first), ...ids(second)]).toEqual(ids(all));
  });
});

describe(`sort: RELEVANCE without a search on ${engineName}`, () => {
  it('is the default order, SEEDED, with its cursors, whether the search is absent or blank', async () => {
    const seeded = await connection({ first: 10, seed: 3, filter: { featured: true } });
    for (const filter of [{ featured: true }, { featured: true, search: '   ' }]) {
      expect(await connection({ first: 10, seed: 3, filter, sort: 'RELEVANCE' })).toEqual(seeded);
    }
    const { first, second } = await continued(
      { filter: { featured: true }, sort: 'RELEVANCE' },
      {
        filter: { featured: true },
      },
    );
    expect([...ids(first), ...ids(second)]).toEqual(ids(seeded));
  });
});

describe(`Photographer.packages(excludeId) on ${engineName}`, () => {
  const PACKAGES = `query ($id: ID!, $excludeId: ID, $first: Int, $after: String) { package(id: $id) {
    photographer { packages(first: $first, after: $after, excludeId: $excludeId) {
      totalCount edges { node { id } } pageInfo { hasNextPage endCursor } } } } }`;
  type Answer = { package: { photographer: { packages: Connection } } };
  let busiest: string[] = [];

  beforeAll(async () => {
    // The photographer with the most packages, so that the list pages.
    const rows = await db.read.single<{ ids: string[] }>({
      text: `SELECT array_agg(p.id::text ORDER BY p.id) AS ids FROM listing_entry e JOIN package p ON p.id = e.package_id
        GROUP BY p.photographer_id ORDER BY count(*) DESC, p.photographer_id LIMIT 1`,
    });
    busiest = rows[0]?.ids ?? [];
    expect(busiest.length).toBeGreaterThan(3);
  });

  async function packagesOf(variables: Record<string, unknown>): Promise<Connection> {
    const body = (await graphql<Answer>(app, PACKAGES, variables)).body;
    expect(body.errors, JSON.stringify(body.errors)).toBeUndefined();
    return (body.data as Answer).package.photographer.packages;
  }

  it("leaves the package out of its photographer's packages, in pages with their own cursors", async () => {
    const shown = busiest[1] as string;
    const others = busiest.filter((id) => id !== shown);
    const all = await packagesOf({ id: shown, excludeId: shown, first: 100 });
    expect(all.totalCount).toBe(others.length);
    expect(ids(all)).toEqual(others);
    const first = await packagesOf({ id: shown, excludeId: shown, first: 2 });
    const second = await packagesOf({ id: shown, excludeId: shown, first: 2, after: first.pageInfo.endCursor });
    expect([...ids(first), ...ids(second)]).toEqual(others.slice(0, 4));
    // A cursor of the whole list is not one of this shorter list.
    const whole = await packagesOf({ id: shown, first: 2 });
    expect(ids(whole)).toEqual(busiest.slice(0, 2));
    expect(await refusal(PACKAGES, { id: shown, excludeId: shown, first: 2, after: whole.pageInfo.endCursor })).toBe(
      'after is a cursor of another filter or sort; page on with the ones it was made for',
    );
  });

  it('leaves none out for an id that is not one of them, and refuses one that is no UUID', async () => {
    const all = await packagesOf({ id: busiest[0], excludeId: '3f2504e0-4f89-41d3-9a0c-0305e82c3301', first: 100 });
    expect(ids(all)).toEqual(busiest);
    expect(await refusal(PACKAGES, { id: busiest[0], excludeId: 'nope' })).toBe(
      'excludeId must be a UUID such as "3f2504e0-4f89-41d3-9a0c-0305e82c3301"',
    );
  });
});
