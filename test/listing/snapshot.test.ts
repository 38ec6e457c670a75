// One snapshot per page: an import that commits between the statements of a request (after the count, before
// the rows) cannot tear the page: its count and its records come from the same moment.
// PostgreSQL only (TEST_DATABASE_URL): the embedded database has no other writer while the server runs.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../src/app.js';
import type { ReadPath, SqlStatement } from '../../src/db/sql.js';
import { toRows } from '../../src/db/write/rows.js';
import { insertRows, renumberListing } from '../../src/db/write/store.js';
import { generatePackages } from '../../src/demo/generate.js';
import { createListingTestDatabase, onPostgres, type TestDatabase } from '../helpers/database.js';
import { graphql } from '../helpers/graphql.js';

let db: TestDatabase;
beforeAll(async () => {
  if (onPostgres) db = await createListingTestDatabase(40);
});
afterAll(() => db?.destroy());

/** An import of `count` new packages, committed in a transaction of its own. */
async function importMore(count: number, seed: number) {
  const records = [...generatePackages({ count, seed })];
  await db.prisma.$transaction(async (tx) => {
    await insertRows(tx, toRows(records));
    await renumberListing(tx);
  });
}

/** The database's read path, with `between` run (and awaited) after each session's first statement. */
function interleaved(read: ReadPath, between: () => Promise<void>): ReadPath {
  return {
    single: (statement, params) => read.single(statement, params),
    session(deadline) {
      const session = read.session(deadline);
      let first = true;
      return {
        async query<Row>(statement: SqlStatement, params?: readonly unknown[]): Promise<Row[]> {
          const rows = await session.query<Row>(statement, params);
          if (first) {
            first = false;
            await between();
          }
          return rows;
        },
        end: () => session.end(),
      };
    },
  };
}

describe.runIf(onPostgres)('one snapshot per request', () => {
  it('a page read while an import commits keeps its count and its records together', async () => {
    const before = (await graphql(createApp({ db }), '{ packages(limit: 100) { count results { id } } }')).body
      .data as { packages: { count: number; results: { id: string }[] } };
    const listedBefore = new Set(before.packages.results.map((r) => r.id));
    let imports = 0;
    const app = createApp({
      db: { ...db, read: interleaved(db.read, () => importMore(25, 1000 + imports++)) },
    });
    const { body } = await graphql(app, '{ packages(limit: 100, seed: 5) { count results { id } } }');
    expect(body.errors).toBeUndefined();
    const page = (body.data as { packages: { count: number; results: { id: string }[] } }).packages;
    expect(imports).toBe(1);
    expect(page.count).toBe(before.packages.count);
    expect(page.results).toHaveLength(before.packages.count);
    // Exactly the packages listed before the import: none of the new ones, none missing.
    expect(new Set(page.results.map((r) => r.id))).toEqual(listedBefore);
    // The next request sees the import whole.
    const after = (await graphql(createApp({ db }), '{ packages(limit: 100) { count results { id } } }')).body.data as {
      packages: { count: number; results: unknown[] };
    };
    expect(after.packages.count).toBe(before.packages.count + 25);
    expect(after.packages.results).toHaveLength(Math.min(100, before.packages.count + 25));
  });
});
