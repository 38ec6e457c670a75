// Every door to the packages reads the columns its selection needs and no others: a slim page (id, title,
// price), a page of cards (the slim fields, the slug and the landscape image) and a full page (every field), on
// the unfiltered page, packagesConnection, Photographer.packages and package(...). The package statement's
// select list is read from the SQL each request runs.
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../src/app.js';
import { DEFAULT_LIMITS } from '../../src/config.js';
import { scalarFields } from '../../src/db/columns.js';
import { createListingTestDatabase, engineName, type TestDatabase } from '../helpers/database.js';
import { graphql, PRIVATE_KEY, TEST_KEYS } from '../helpers/graphql.js';

let db: TestDatabase;
let app: ReturnType<typeof createApp>;
let packageId: string;
let photographerId: string;

beforeAll(async () => {
  db = await createListingTestDatabase(20);
  // Deep enough for every field under a connection's edges (the default depth limit, 7, is a page's).
  app = createApp({
    db,
    settings: { apiKeys: TEST_KEYS, responseCacheBytes: 0, limits: { ...DEFAULT_LIMITS, depth: 9 } },
  });
  const { body } = await graphql(app, '{ packages(limit: 1, seed: 1) { results { id photographer { id } } } }');
  const first = (body.data as { packages: { results: { id: string; photographer: { id: string } }[] } }).packages
    .results[0];
  packageId = first?.id as string;
  photographerId = first?.photographer.id as string;
});
afterAll(() => db?.destroy());

const FULL_PACKAGE = readFileSync(new URL('./documents/generated/full-package.graphql', import.meta.url), 'utf8');
const SELECTIONS = {
  slim: '{ id title price }',
  cards: '{ id title urlSlug price landscapeImage }',
  full: '{ ...FullPackage }',
};
const DOORS: Record<string, (selection: string) => string> = {
  'packages(...)': (s) => `{ packages(limit: 5, seed: 3) { results ${s} } }`,
  'packagesConnection(...)': (s) => `{ packagesConnection(first: 5, seed: 3) { edges { node ${s} } } }`,
  'Photographer.packages': (s) =>
    `{ photographer(id: "${photographerId}") { packages(first: 5) { edges { node ${s} } } } }`,
  'package(id)': (s) => `{ package(id: "${packageId}") ${s} }`,
};

/** The package columns a statement reads: the `p."column"` entries of its select list. */
function packageColumns(sql: string): string[] {
  const select = sql.slice(0, sql.search(/\bFROM\b/));
  return [...select.matchAll(/\bp\."(\w+)" AS/g)].map((m) => m[1] as string).sort();
}

const columnsOf = (...fields: string[]) =>
  scalarFields('Package')
    .filter((field) => fields.includes(field.name))
    .map((field) => field.column)
    .sort();

const EXPECTED = {
  slim: columnsOf('id', 'title', 'price'),
  cards: columnsOf('id', 'title', 'urlSlug', 'price', 'landscapeImage'),
  full: scalarFields('Package')
    .map((field) => field.column)
    .sort(),
};

describe(`the columns each door reads, on ${engineName}`, () => {
  for (const [door, query] of Object.entries(DOORS)) {
    for (const [name, selection] of Object.entries(SELECTIONS) as [keyof typeof SELECTIONS, string][]) {
      it(`${door}, ${name}: ${EXPECTED[name].length} package columns`, async () => {
        const document = name === 'full' ? `${query(selection)}\n${FULL_PACKAGE}` : query(selection);
        const { result, statements } = await db.statements.record(() =>
          graphql(app, document, {}, { key: PRIVATE_KEY }),
        );
        expect(result.body.errors).toBeUndefined();
        const reads = statements.filter((sql) => /\bFROM package p\b|\bJOIN package p\b/.test(sql));
        const page = reads.find((sql) => packageColumns(sql).length > 0);
        expect(page, statements.join('\n')).toBeDefined();
        expect(packageColumns(page as string)).toEqual(EXPECTED[name]);
      });
    }
  }
});
