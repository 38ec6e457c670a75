// `categories`: every category with listed packages, by code, each with its count, as a walk of every listed
// package counts them; read once per listing version (later requests only read the version), and changed by an
// import at once.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../src/app.js';
import { generatePackages } from '../../src/demo/generate.js';
import { importSource } from '../../src/import/importer.js';
import { CATEGORIES } from '../../src/listing/categories.js';
import type { V2Package } from '../../src/v2/records.js';
import { createTestDatabase, engineName, type TestDatabase } from '../helpers/database.js';
import { graphql } from '../helpers/graphql.js';
import { memorySource } from '../import/helpers.js';

let db: TestDatabase;
let app: ReturnType<typeof createApp>;
const records = [...generatePackages({ count: 60, seed: 12 })].map((r, i) => ({
  ...r,
  status: i % 7 === 0 ? 2 : 1, // some not listed: they count nowhere
})) as V2Package[];

beforeAll(async () => {
  db = await createTestDatabase();
  await importSource(db, memorySource(records));
  // The cache would answer the repeated request itself: here the store's own keeping is under test.
  app = createApp({ db, settings: { responseCacheBytes: 0, rateLimit: { requests: 0, windowMs: 60_000 } } });
});
afterAll(async () => {
  await app?.dispose();
  await db?.destroy();
});

type Category = { code: number; name: string; packageCount: number };
const QUERY = '{ categories { code name packageCount } }';

/** The categories as a walk of every listed package through the API counts them. */
async function walked(): Promise<Category[]> {
  const counts = new Map<number, Category>();
  for (let offset = 0; ; offset += 100) {
    const { body } = await graphql<{ packages: { results: { category: number; categoryName: string }[] } }>(
      app,
      `{ packages(limit: 100, offset: ${offset}, seed: 1) { results { category categoryName } } }`,
    );
    const results = body.data?.packages.results ?? [];
    for (const { category, categoryName } of results) {
      const entry = counts.get(category) ?? { code: category, name: categoryName, packageCount: 0 };
      entry.packageCount++;
      counts.set(category, entry);
    }
    if (results.length < 100) break;
  }
  return [...counts.values()].sort((a, b) => a.code - b.code);
}

describe(`categories on ${engineName}`, () => {
  it('lists every category with listed packages, by code, with the count a walk of the listing finds', async () => {
    const { body } = await graphql<{ categories: Category[] }>(app, QUERY);
    expect(body.errors).toBeUndefined();
    const categories = body.data?.categories ?? [];
    expect(categories.length).toBeGreaterThan(1);
    expect(categories).toEqual(await walked());
    expect(categories.reduce((sum, c) => sum + c.packageCount, 0)).toBe(records.filter((r) => r.status === 1).length);
  });

  it('reads them once per listing version, and an import changes them at once', async () => {
    const again = await db.statements.record(() => graphql(app, QUERY));
    expect(again.statements.filter((sql) => sql === CATEGORIES.text)).toEqual([]);

    // A listed package moves to a category of its own.
    const moved = { ...structuredClone(records[1] as V2Package), category: 99, category_name: 'Underwater' };
    await importSource(db, memorySource([moved]));
    const after = await db.statements.record(() => graphql<{ categories: Category[] }>(app, QUERY));
    expect(after.statements.filter((sql) => sql === CATEGORIES.text)).toHaveLength(1);
    const categories = after.result.body.data?.categories ?? [];
    expect(categories.at(-1)).toEqual({ code: 99, name: 'Underwater', packageCount: 1 });
    expect(categories).toEqual(await walked());
  });
});
