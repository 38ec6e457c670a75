// The packages query as frontends use it: argument rules, the seeded order, nested data equal to what the
// database holds, and a constant number of SQL statements per page.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../src/app.js';
import {
  FullPageDocument,
  OnePackageDocument,
  SlimPageDocument,
  type SlimPageQuery,
  type SlimPageQueryVariables,
} from '../../src/generated/graphql/graphql.js';
import { edgePackages } from '../fixtures/edge-records.js';
import { createListingTestDatabase, engineName, type TestDatabase } from '../helpers/database.js';
import { graphql, PRIVATE_KEY, TEST_KEYS } from '../helpers/graphql.js';

type Page = SlimPageQuery;

let db: TestDatabase;
let app: ReturnType<typeof createApp>;
const DEMO = 230;
const LISTED_EDGES = edgePackages.filter((p) => p.status === 1).length;
const COUNT = DEMO + LISTED_EDGES;

beforeAll(async () => {
  db = await createListingTestDatabase(DEMO);
  // The cache off: these tests are about how pages are made (statements, snapshots), not how they are kept.
  app = createApp({ db, settings: { apiKeys: TEST_KEYS, responseCacheBytes: 0 } });
});
afterAll(() => db?.destroy());

const ids = (page: Page) => page.packages.results.map((p) => p.id);

async function page(variables: SlimPageQueryVariables) {
  const { body } = await graphql(app, SlimPageDocument, variables);
  expect(body.errors).toBeUndefined();
  return body.data as Page;
}

describe(`packages(limit, offset, seed) on ${engineName}`, () => {
  it('defaults to 50 records from offset 0, counts only listed packages, and returns the seed it chose', async () => {
    const first = await page({});
    expect(first.packages.count).toBe(COUNT);
    expect(first.packages.results).toHaveLength(50);
    expect(Number.isInteger(first.packages.seed)).toBe(true);
    const replay = await page({ seed: first.packages.seed });
    expect(ids(replay)).toEqual(ids(first));
  });

  it.each([
    [{ limit: 0 }, 'limit must be from 1 to 100, got 0'],
    [{ limit: 101 }, 'limit must be from 1 to 100, got 101'],
    [{ limit: -5 }, 'limit must be from 1 to 100, got -5'],
    [{ offset: -1 }, 'offset must be 0 or more, got -1'],
  ])('rejects %j with BAD_USER_INPUT and the allowed range', async (variables, message) => {
    const { body } = await graphql(app, SlimPageDocument, variables);
    expect(body.data).toBeNull();
    expect(body.errors?.[0]?.message).toBe(message);
    expect(body.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
  });

  it('accepts the bounds: limit 1 and 100', async () => {
    expect((await page({ limit: 1, seed: 1 })).packages.results).toHaveLength(1);
    expect((await page({ limit: 100, seed: 1 })).packages.results).toHaveLength(100);
  });

  it('gives every listed package exactly once across the pages of one seed', async () => {
    const seen: string[] = [];
    for (let offset = 0; offset < COUNT; offset += 37) seen.push(...ids(await page({ limit: 37, offset, seed: 99 })));
    expect(seen).toHaveLength(COUNT);
    expect(new Set(seen).size).toBe(COUNT);
    const listed = await db.prisma.package.findMany({ where: { status: 1 }, select: { id: true } });
    expect(new Set(seen)).toEqual(new Set(listed.map((p) => p.id)));
  });

  it('pages are slices of one order: offset 10 limit 5 is items 10..14 of the first 100', async () => {
    const hundred = ids(await page({ limit: 100, seed: 5 }));
    expect(ids(await page({ limit: 5, offset: 10, seed: 5 }))).toEqual(hundred.slice(10, 15));
  });

  it('another seed gives a genuinely different order, not a rotation of the same one', async () => {
    const all = async (seed: number) => {
      const result: string[] = [];
      for (let offset = 0; offset < COUNT; offset += 100) result.push(...ids(await page({ limit: 100, offset, seed })));
      return result;
    };
    const a = await all(1);
    const b = await all(2);
    expect(b).not.toEqual(a);
    const shift = b.indexOf(a[0] as string);
    const rotated = [...a.slice(a.length - shift), ...a.slice(0, a.length - shift)];
    expect(b).not.toEqual(rotated);
    // Successors differ for most packages: not one order with a few swaps either.
    const next = (order: string[]) => new Map(order.map((id, i) => [id, order[(i + 1) % order.length]]));
    const na = next(a);
    const nb = next(b);
    const sameSuccessor = a.filter((id) => na.get(id) === nb.get(id)).length;
    expect(sameSuccessor).toBeLessThan(COUNT / 10);
  });

  it('returns an empty page past the end', async () => {
    const past = await page({ offset: COUNT + 10, seed: 3 });
    expect(past.packages.results).toEqual([]);
    expect(past.packages.count).toBe(COUNT);
  });
});

describe('nested data equals what the database holds', () => {
  const byId = OnePackageDocument;
  type Full = Record<string, unknown> & { photographer: Record<string, unknown> };

  it('renders every field of the edge package as stored', async () => {
    const edge = edgePackages[0];
    if (!edge) throw new Error('fixture');
    const { body } = await graphql(app, byId, { id: edge.identifier }, { key: PRIVATE_KEY });
    expect(body.errors).toBeUndefined();
    const p = body.data?.package as unknown as Full;
    expect(p.title).toBe(edge.title);
    expect(p.price).toBe('999999999999.99');
    expect(p.hoursOfCoverage).toBe('123456789.125');
    expect(p.depositFraction).toBe('0.000000000');
    expect(p.paymentSchedule).toBeNull();
    expect(p.description).toBe(edge.description);
    expect(p.whatToExpect).toBe(edge.what_to_expect);
    expect(p.faqs).toEqual(edge.faqs);
    expect(p.paymentSchedulePolicy).toBe('');
    expect(p.location).toEqual({ latitude: '90.000000', longitude: '-180.000000', name: 'Zürich' });
    expect(p.priorityTags).toEqual(
      edge.priority_tags.map((t) => ({ id: t.identifier, tag: t.tag, priority: t.priority })),
    );
    expect(p.linkedAddOns).toEqual(
      edge.linked_add_ons
        .map((l) => ({
          id: l.identifier,
          packageAddOnTemplate: {
            ...l.package_add_on_template,
            id: l.package_add_on_template.identifier,
            identifier: undefined,
            // In the package's currency: its photographer's, no override set.
            priceMoney: {
              amount: l.package_add_on_template.price,
              currencyCode: edge.photographer.currency_code.toUpperCase(),
              symbol: edge.photographer.currency_symbol,
            },
          },
        }))
        .map((l) => JSON.parse(JSON.stringify(l))),
    );
    expect((p.images as { id: string }[]).map((i) => i.id)).toEqual(edge.images.map((i) => i.identifier));
    const owner = p.photographer;
    expect(owner.createdAt).toBe('2019-07-04T09:08:07.000001Z');
    expect(owner.startWorkTimeJson).toBe('{"hour": 9, "minute": 0}');
    expect(owner.startWorkTime).toEqual({ hour: 9, minute: 0 });
    expect(owner.endWorkTime).toEqual({ hour: 24, minute: 0 });
    expect(owner.calendars).toEqual([]);
    expect(owner.taxRate).toBe('0.0000');
    expect(owner.review).toEqual({
      id: edge.photographer.review?.identifier,
      rating: '4.9',
      url: 'https://reviews.example.com/zoe',
      number: 2147483647,
    });
    expect((owner.coverImages as { id: string }[]).map((i) => i.id)).toEqual(
      edge.photographer.cover_image.map((i) => i.identifier),
    );
    const days = owner.calendarWorkDays as { day: string; workTimesJson: string; workTimes: unknown }[];
    expect(days.map((d) => d.day)).toEqual(edge.photographer.calendar_work_days.map((d) => d.day));
    expect(days[1]?.workTimesJson).toBe(edge.photographer.calendar_work_days[1]?.work_times);
    expect(days[1]?.workTimes).toEqual([
      { start: { hour: 9, minute: 0 }, end: { hour: 17, minute: 0 } },
      { start: { hour: 18, minute: 0 }, end: { hour: 24, minute: 0 } },
    ]);
  });

  it('keeps nulls apart from empty strings and renders a timestamp without microseconds', async () => {
    const bare = edgePackages.find((p) => p.photographer.review === null);
    const { body } = await graphql(app, byId, { id: bare?.identifier ?? '' }, { key: PRIVATE_KEY });
    const owner = body.data?.package?.photographer as unknown as Record<string, unknown>;
    expect(owner.review).toBeNull();
    expect(owner.login).toBeNull();
    expect(owner.name).toBe('');
    expect(owner.createdAt).toBe('2020-01-01T00:00:00Z');
    expect(owner.calendarsJson).toBeNull();
    expect(owner.socials).toEqual([]);
  });

  it('package(id) and photographer(id) answer null for unknown or unlisted ids, and refuse a non-UUID', async () => {
    const unlisted = edgePackages.find((p) => p.status !== 1);
    const one = /* GraphQL */ 'query($id: ID!) { package(id: $id) { id } }';
    expect((await graphql(app, one, { id: unlisted?.identifier })).body.data).toEqual({ package: null });
    expect((await graphql(app, one, { id: '00000000-0000-4000-8000-00000000ffff' })).body.data).toEqual({
      package: null,
    });
    const bad = await graphql(app, one, { id: 'nope' });
    expect(bad.body.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
    const who = /* GraphQL */ 'query($id: ID!) { photographer(id: $id) { name socials { socialSite { name } } } }';
    const found = await graphql(app, who, { id: edgePackages[0]?.photographer.identifier });
    expect(found.body.data).toEqual({
      photographer: { name: 'Zoë Łukasiewicz 📸', socials: [{ socialSite: { name: 'Instagram' } }] },
    });
  });
});

describe('SQL statements per request', () => {
  async function statementsFor(
    query: typeof FullPageDocument | typeof SlimPageDocument,
    variables: SlimPageQueryVariables,
  ) {
    const { result, statements } = await db.statements.record(() =>
      graphql(app, query as typeof FullPageDocument, variables, { key: PRIVATE_KEY }),
    );
    expect(result.body.errors).toBeUndefined();
    return statements;
  }

  it('a page with every field is one statement for limit 1, 50 and 100: the page with its lists and photographers', async () => {
    for (const limit of [1, 50, 100]) {
      const statements = await statementsFor(FullPageDocument, { limit, seed: 11 });
      expect(statements).toHaveLength(1);
      // The nested lists and the photographers come from the read model with the page, never from their tables.
      expect(statements[0]).not.toMatch(/\bFROM (package_image|social|calendar_work_day)\b/);
      expect(statements[0]).toMatch(/\bphotographer_document\b/);
    }
  });

  it('a v2 page is one statement whatever its size: the records prepared, the count with them', async () => {
    for (const limit of [1, 50, 100]) {
      const { result, statements } = await db.statements.record(
        async () => await app.fetch(`http://localhost/v2/local-package-list/?limit=${limit}&seed=11`),
      );
      expect(result.status).toBe(200);
      expect(statements).toHaveLength(1);
      expect(statements[0]).toMatch(/\bphotographer_document\b/);
    }
  });

  it('a page with every field runs these statements (a change to the SQL shows here)', async () => {
    const statements = await statementsFor(FullPageDocument, { limit: 5, seed: 11 });
    // PostgreSQL's reads take prepared text as bytes, the embedded engine's as text (src/listing/store.ts): the
    // statement is otherwise the same on both.
    const asText = statements.map((sql) => sql.replace(/convert_to\((.+?), 'UTF8'\)/g, '$1'));
    await expect(asText.join(';\n\n')).toMatchFileSnapshot('./__snapshots__/full-page.sql');
  });

  it('a page of scalar package fields is one statement, the count with it, no nested read', async () => {
    const statements = await statementsFor(SlimPageDocument, { limit: 100, seed: 11 });
    expect(statements).toHaveLength(1);
    // The tables the statements read, as FROM and JOIN name them: the listing and the packages, nothing nested.
    const tables = statements.flatMap((sql) => [...sql.matchAll(/\b(?:FROM|JOIN)\s+"?(\w+)"?/gi)].map((m) => m[1]));
    expect(new Set(tables)).toEqual(new Set(['listing_entry', 'package']));
  });
});

describe('errors', () => {
  it('a field that does not exist gets the standard validation error, not a 500', async () => {
    const { status, body } = await graphql(app, '{ packages { results { nope } } }');
    expect(status).toBeLessThan(500);
    expect(body.errors?.[0]?.message).toBe('Cannot query field "nope" on type "Package".');
  });
});
