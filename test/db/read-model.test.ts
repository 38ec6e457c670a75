// The read model is derived data: after every write of a listing version (a seed, an import, a re-import that
// changes records) it is what the tables give when it is built again, record by record, stamped with the version;
// and each prepared v2 text is byte for byte the record the GraphQL fields render (V2ListingPageFromFields). The
// listing summary, read as the server reads it, is what the tables give: the facet columns in listing order, the
// search vocabulary, the categories.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createApp } from '../../src/app.js';
import { DEFAULT_LIMITS } from '../../src/config.js';
import { PACKAGE_DOCUMENTS, PHOTOGRAPHER_DOCUMENTS } from '../../src/db/write/read-model.js';
import { READ_MODEL_CURRENT } from '../../src/db/write/read-model-rebuild.js';
import { seedDemoData } from '../../src/demo/seed.js';
import { V2ListingPageFromFieldsDocument } from '../../src/generated/graphql/graphql.js';
import { importSource } from '../../src/import/importer.js';
import { CATEGORIES, type CategoriesRow } from '../../src/listing/categories.js';
import { FACET_COLUMNS, type FacetColumnsRow, facetColumns } from '../../src/listing/facets.js';
import { VOCABULARY, type VocabularyRow } from '../../src/listing/typos.js';
import { renderJson } from '../../src/rest/render.js';
import type { V2Package } from '../../src/v2/records.js';
import { importEdgePackages } from '../fixtures/import-edge-records.js';
import { createTestDatabase, engineName, type TestDatabase } from '../helpers/database.js';
import { graphql, PRIVATE_KEY, TEST_KEYS } from '../helpers/graphql.js';
import { memorySource } from '../import/helpers.js';

let db: TestDatabase;
beforeEach(async () => {
  db = await createTestDatabase();
});
afterEach(() => db?.destroy());

const query = <Row>(text: string) => db.read.single<Row>({ text });

/** The stored documents and the ones the tables give now, each as comparable text by key. */
async function storedAndRebuilt() {
  const packages = (from: string) =>
    query<{ id: string; doc: string }>(
      `SELECT package_id::text AS id, v2_rest || ' ' || lists::text AS doc FROM (${from}) x ORDER BY 1`,
    );
  const photographers = (from: string) =>
    query<{ id: string; doc: string }>(
      `SELECT photographer_id::text AS id, v2 || ' ' || graphql || ' ' || graphql_part_lengths::text AS doc FROM (${from}) x ORDER BY 1`,
    );
  return {
    stored: {
      packages: await packages('SELECT * FROM package_document'),
      photographers: await photographers('SELECT * FROM photographer_document'),
    },
    rebuilt: {
      packages: await packages(PACKAGE_DOCUMENTS),
      photographers: await photographers(PHOTOGRAPHER_DOCUMENTS),
    },
  };
}

/** The listing summary, as the server reads it, against what the tables give now. */
async function expectSummaryAgrees(): Promise<void> {
  const [version] = await query<{ version: string }>(`SELECT version::text FROM listing_version WHERE id = 1`);
  const [facetRow] = await db.read.single<FacetColumnsRow>(FACET_COLUMNS);
  const [vocabularyRow] = await db.read.single<VocabularyRow>(VOCABULARY);
  const [categoriesRow] = await db.read.single<CategoriesRow>(CATEGORIES);
  for (const row of [facetRow, vocabularyRow, categoriesRow]) expect(row?.version).toBe(version?.version);

  const listed = await query<{ category: number; cents: number; instant: boolean; featured: boolean; owner: string }>(
    `SELECT p.category, (p.price * 100)::float8 AS cents, p.instant_booking AS instant, p.featured,
      p.photographer_id::text AS owner FROM listing_entry e JOIN package p ON p.id = e.package_id ORDER BY e.position`,
  );
  const columns = facetColumns(facetRow);
  expect(Array.from(columns.category)).toEqual(listed.map((p) => p.category));
  expect(Array.from(columns.priceCents)).toEqual(listed.map((p) => p.cents));
  expect(Array.from(columns.instantBooking)).toEqual(listed.map((p) => (p.instant ? 1 : 0)));
  expect(Array.from(columns.featured)).toEqual(listed.map((p) => (p.featured ? 1 : 0)));
  expect(Array.from(columns.photographer, (i) => columns.photographerIds[i])).toEqual(listed.map((p) => p.owner));

  const words = await query<{ word: string; ndoc: number }>(
    // The words of the listed packages' search documents as their texts give them (the migration search_word_forms).
    `SELECT word, ndoc FROM ts_stat($$SELECT d.document FROM (SELECT array_agg(id) AS ids, array_agg(title) AS titles,
        array_agg(tag_keywords) AS tags, array_agg(category_name) AS names FROM package WHERE status = 1) p,
      package_search_documents(p.ids, p.titles, p.tags, p.names) d$$) ORDER BY word`,
  );
  expect(words.length).toBeGreaterThan(0);
  expect(vocabularyRow?.words).toEqual(words.map((w) => w.word));
  expect(vocabularyRow?.wordPackages).toEqual(words.map((w) => w.ndoc));

  const categories = await query<{ code: number; packageCount: number }>(
    `SELECT category AS code, count(*)::int AS "packageCount" FROM package WHERE status = 1 GROUP BY 1 ORDER BY 1`,
  );
  expect(categoriesRow?.categories.map(({ code, packageCount }) => ({ code, packageCount }))).toEqual(categories);
}

async function expectReadModelAgrees(listed: number): Promise<void> {
  await expectSummaryAgrees();
  const { stored, rebuilt } = await storedAndRebuilt();
  expect(stored.packages).toHaveLength(listed);
  expect(stored.packages).toEqual(rebuilt.packages);
  expect(stored.photographers).toEqual(rebuilt.photographers);
  const [state] = await query<{ current: boolean }>(READ_MODEL_CURRENT);
  expect(state?.current).toBe(true);
}

const listedCount = async () =>
  (await query<{ n: number }>('SELECT count(*)::int AS n FROM package WHERE status = 1'))[0]?.n ?? 0;

describe(`the read model on ${engineName}`, () => {
  it('agrees with the tables after a seed, an import, a re-import that changes records, and a re-import', async () => {
    await seedDemoData(db, { packages: 40 });
    await expectReadModelAgrees(await listedCount());

    const records = importEdgePackages.map((record) => structuredClone(record) as V2Package);
    expect((await importSource(db, memorySource(records))).status).toBe('imported');
    await expectReadModelAgrees(await listedCount());

    // A photographer renamed, a shared add-on template repriced, a package delisted: documents of packages that
    // were not in the source (they share the photographer or the template) change too.
    const changed = records.map((record) => structuredClone(record));
    const first = changed[0] as V2Package;
    for (const record of changed) {
      if (record.photographer.identifier === first.photographer.identifier) {
        record.photographer.name = 'Renamed \u2028 photographer';
      }
    }
    first.title = 'A new title with "quotes" and \\ and \u2029';
    const delisted = changed[1] as V2Package;
    delisted.status = 2;
    for (const record of changed) {
      for (const link of record.linked_add_ons) link.package_add_on_template.price = '1.25';
    }
    const report = await importSource(db, memorySource(changed));
    expect(report.status, report.rejections.join('\n')).toBe('imported');
    await expectReadModelAgrees(await listedCount());

    // One record alone, whose shared add-on template and social site other records embed too: their documents
    // are built again although their packages were not in the source.
    const listed = changed.filter((r) => r.status === 1);
    const templates = (r: V2Package) => r.linked_add_ons.map((l) => l.package_add_on_template.identifier);
    const sharing = listed.find((r) =>
      listed.some((o) => o !== r && templates(o).some((t) => templates(r).includes(t))),
    );
    if (!sharing) throw new Error('no two listed edge records share an add-on template');
    const alone = structuredClone(sharing);
    for (const link of alone.linked_add_ons) link.package_add_on_template.price = '2.50';
    for (const social of alone.photographer.socials) social.social_site.name = 'A site renamed';
    const single = await importSource(db, memorySource([alone]));
    expect(single.status, single.rejections.join('\n')).toBe('imported');
    await expectReadModelAgrees(await listedCount());

    const version = await query<{ v: string }>('SELECT version::text AS v FROM listing_version');
    expect((await importSource(db, memorySource([alone]))).counts.unchanged).toBe(1);
    expect(await query<{ v: string }>('SELECT version::text AS v FROM listing_version')).toEqual(version);
    await expectReadModelAgrees(await listedCount());
  });

  it("prepares each record's v2 text byte for byte as the GraphQL fields render it", async () => {
    await seedDemoData(db, { packages: 30 });
    expect((await importSource(db, memorySource(importEdgePackages.map((r) => structuredClone(r))))).status).toBe(
      'imported',
    );
    // The fields' rendering aliases every field to its legacy name: more aliases than clients may send.
    const limits = { ...DEFAULT_LIMITS, aliases: 1000 };
    const app = createApp({ db, settings: { apiKeys: TEST_KEYS, responseCacheBytes: 0, limits } });
    const variables = { limit: 100, offset: 0, seed: 3 };
    const fromFields = await graphql(app, V2ListingPageFromFieldsDocument, variables, { key: PRIVATE_KEY });
    const prepared = await graphql<{ packages: { results: { v2Record: string }[] } }>(
      app,
      '{ packages(limit: 100, offset: 0, seed: 3) { results { v2Record } } }',
      undefined,
      { key: PRIVATE_KEY },
    );
    expect(fromFields.body.errors).toBeUndefined();
    const expected = fromFields.body.data?.packages.results.map((record) => renderJson(record)) ?? [];
    expect(expected.length).toBe(await listedCount());
    expect(prepared.body.data?.packages.results.map((record) => record.v2Record)).toEqual(expected);
  });
});
