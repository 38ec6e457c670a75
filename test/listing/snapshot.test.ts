// One state of the listing per answer: an import that commits between the statements of a request cannot tear
// the page. A page and its count are one statement; when the nested reads that follow meet the import, the
// operation is made again in one transaction, and its answer is the new state whole.
// PostgreSQL only (TEST_DATABASE_URL): the embedded database has no other writer while the server runs.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../src/app.js';
import type { ReadPath } from '../../src/db/sql.js';
import { toRows } from '../../src/db/write/rows.js';
import { bumpListingVersion, insertRows, renumberListing } from '../../src/db/write/store.js';
import { generatePackages } from '../../src/demo/generate.js';
import { createListingTestDatabase, onPostgres, readingThrough, type TestDatabase } from '../helpers/database.js';
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
    await bumpListingVersion(tx); // and the read model with it
  });
}

/** The database's read path, with `between` run (and awaited) after each session's first statement. */
function interleaved(read: ReadPath, between: () => Promise<void>): ReadPath {
  return {
    single: (statement, params) => read.single(statement, params),
    session(deadline, consistency) {
      const session = read.session(deadline, consistency);
      let first = true;
      const afterFirst = async <T>(reading: Promise<T>): Promise<T> => {
        const result = await reading;
        if (first) {
          first = false;
          await between();
        }
        return result;
      };
      return {
        query: (statement, params) => afterFirst(session.query(statement, params)),
        withListing: (statement, params) => afterFirst(session.withListing(statement, params)),
        knownListing: () => session.knownListing(),
        readVersion: () => session.readVersion(),
        get moved() {
          return session.moved;
        },
        get lost() {
          return session.lost;
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
      db: readingThrough(
        db,
        // One import, after the first statement: a real import bumps the version, so the operation is made
        // again in one transaction, whose own first statement must not import once more.
        interleaved(db.read, () => (imports++ === 0 ? importMore(25, 1000) : Promise.resolve())),
      ),
    });
    const { body } = await graphql(app, '{ packages(limit: 100, seed: 5) { count results { id } } }');
    expect(body.errors).toBeUndefined();
    const page = (body.data as { packages: { count: number; results: { id: string }[] } }).packages;
    expect(imports).toBeGreaterThanOrEqual(1);
    // The next request sees the import whole.
    const after = (await graphql(createApp({ db }), '{ packages(limit: 100) { count results { id } } }')).body.data as {
      packages: { count: number; results: { id: string }[] };
    };
    expect(after.packages.count).toBe(before.packages.count + 25);
    expect(after.packages.results).toHaveLength(Math.min(100, before.packages.count + 25));
    // The page is one of the two states, whole: its count and exactly the packages listed then.
    const listedAfter = new Set(after.packages.results.map((r) => r.id));
    const listed = page.count === before.packages.count ? listedBefore : listedAfter;
    expect([before.packages.count, after.packages.count]).toContain(page.count);
    expect(page.results).toHaveLength(page.count);
    expect(new Set(page.results.map((r) => r.id))).toEqual(listed);
  });

  it('a page whose nested reads meet an import is made again, whole, from the new state', async () => {
    let imports = 0;
    const app = createApp({
      db: readingThrough(
        db,
        interleaved(db.read, () => (imports++ === 0 ? importMore(10, 2000) : Promise.resolve())),
      ),
    });
    const query = '{ packages(limit: 100, seed: 6) { count results { id photographer { id } images { id } } } }';
    const { body } = await graphql(app, query);
    expect(body.errors).toBeUndefined();
    const page = (body.data as { packages: { count: number; results: { id: string; photographer: { id: string } }[] } })
      .packages;
    const now = (await graphql(createApp({ db }), '{ packages(limit: 100, seed: 6) { count results { id } } }')).body
      .data as { packages: { count: number; results: { id: string }[] } };
    expect(imports).toBeGreaterThanOrEqual(1);
    // The answer is the state after the import, whole: its count, its packages, each with its photographer.
    expect(page.count).toBe(now.packages.count);
    expect(page.results.map((r) => r.id)).toEqual(now.packages.results.map((r) => r.id));
    for (const result of page.results) expect(result.photographer.id).toMatch(/^[0-9a-f-]{36}$/);
  });
});
