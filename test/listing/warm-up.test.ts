// What an instance keeps per listing version (the facet columns, the search vocabulary, the categories) is read
// ahead of the requests: before the server listens, and as soon as its version watch sees a new version. The first
// facets, typo search and categories after a start or an import read none of it on their way, and answer for the
// listing as it stands.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../src/app.js';
import type { ReadPath, SqlStatement } from '../../src/db/sql.js';
import { importSource } from '../../src/import/importer.js';
import { CATEGORIES } from '../../src/listing/categories.js';
import { FACET_COLUMNS } from '../../src/listing/facets.js';
import { VOCABULARY } from '../../src/listing/typos.js';
import { warmUp } from '../../src/listing/warm-up.js';
import type { V2Package } from '../../src/v2/records.js';
import { importEdgePackages } from '../fixtures/import-edge-records.js';
import { createListingTestDatabase, engineName, readingThrough, type TestDatabase } from '../helpers/database.js';
import { memorySource } from '../import/helpers.js';

const SUMMARY = new Set([FACET_COLUMNS.name, VOCABULARY.name, CATEGORIES.name]);

let db: TestDatabase;
/** Statements read on requests' paths (in their sessions), and read ahead (on their own), by name. */
const onRequests: string[] = [];
const ahead: string[] = [];

/** The read path with every statement noted where it was read. */
function noting(read: ReadPath): ReadPath {
  const note = (list: string[], statement: SqlStatement) => list.push(statement.name ?? statement.text);
  return {
    role: read.role,
    session(deadline, consistency) {
      const session = read.session(deadline, consistency);
      return new Proxy(session, {
        get(target, key, receiver) {
          const value = Reflect.get(target, key, receiver);
          if (key !== 'query' && key !== 'withListing') return typeof value === 'function' ? value.bind(target) : value;
          return (statement: SqlStatement, params?: readonly unknown[]) => {
            note(onRequests, statement);
            return value.call(target, statement, params);
          };
        },
      });
    },
    single: (statement, params) => {
      note(ahead, statement);
      return read.single(statement, params);
    },
  };
}

let app: ReturnType<typeof createApp>;
beforeAll(async () => {
  const base = await createListingTestDatabase(120);
  db = { ...readingThrough(base, noting(base.read)), destroy: () => base.destroy() };
  await warmUp(db.read); // as the server does before it listens
  app = createApp({ db, settings: { responseCacheBytes: 0, listingWatchMs: 50 } });
});
afterAll(async () => {
  await app?.dispose();
  await db?.destroy();
});

async function graphql<T>(query: string): Promise<T> {
  const response = await app.fetch('http://localhost/graphql', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ query }),
  });
  const body = (await response.json()) as { data?: T; errors?: unknown[] };
  expect(body.errors).toBeUndefined();
  return body.data as T;
}

interface Firsts {
  count: number;
  categoryTotal: number;
  priceTotal: number;
  corrected: number;
}

/** A first facets request, a first search with a typo and the categories, noting what their paths read. */
async function firstRequests(): Promise<Firsts> {
  onRequests.length = 0;
  const { packages } = await graphql<{
    packages: {
      count: number;
      facets: { category: { values: { count: number }[] }; price: { values: { count: number }[] } };
    };
  }>('{ packages(limit: 1, seed: 1) { count facets { category { values { count } } price { values { count } } } } }');
  const typo = await graphql<{ packages: { count: number } }>(
    '{ packages(limit: 1, seed: 1, filter: { search: "weding" }) { count } }',
  );
  const { categories } = await graphql<{ categories: { packageCount: number }[] }>('{ categories { packageCount } }');
  expect(onRequests.filter((name) => SUMMARY.has(name))).toEqual([]);
  const sum = (values: { count?: number; packageCount?: number }[]) =>
    values.reduce((total, v) => total + (v.count ?? v.packageCount ?? 0), 0);
  expect(sum(categories)).toBe(packages.count);
  return {
    count: packages.count,
    categoryTotal: sum(packages.facets.category.values),
    priceTotal: sum(packages.facets.price.values),
    corrected: typo.packages.count,
  };
}

describe(`reading ahead on ${engineName}`, () => {
  it('leaves nothing of the whole listing to the first requests, after a start and after an import', async () => {
    const started = await firstRequests();
    expect(started.categoryTotal).toBe(started.count);
    expect(started.priceTotal).toBe(started.count);
    expect(started.corrected).toBeGreaterThan(0); // "weding" read as "wedding"

    const readAhead = ahead.filter((name) => name === FACET_COLUMNS.name).length;
    const records = importEdgePackages.map((record) => structuredClone(record) as V2Package);
    expect((await importSource(db, memorySource(records))).status).toBe('imported');
    // The watch sees the new version within its interval and reads the summary again.
    const deadline = Date.now() + 5000;
    while (ahead.filter((name) => name === FACET_COLUMNS.name).length === readAhead && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    await new Promise((resolve) => setTimeout(resolve, 100)); // its three reads done

    const imported = await firstRequests();
    expect(imported.count).toBeGreaterThan(started.count);
    expect(imported.categoryTotal).toBe(imported.count);
    expect(imported.priceTotal).toBe(imported.count);
  });
});
