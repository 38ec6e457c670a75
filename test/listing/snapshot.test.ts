// One state of the listing per answer: an import that commits between the statements of a request cannot tear
// the page. A page and its count are one statement; when the nested reads that follow meet the import, the
// operation is made again (on PostgreSQL in one transaction), and its answer is the new state whole. On both
// engines: the embedded database's server takes live imports (src/import/live-server.ts) between two statements of
// a request as readily as PostgreSQL commits another client's.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../src/app.js';
import type { ReadPath, SqlStatement } from '../../src/db/sql.js';
import { toRows } from '../../src/db/write/rows.js';
import { bumpListingVersion, insertRows, renumberListing } from '../../src/db/write/store.js';
import { generatePackages } from '../../src/demo/generate.js';
import { importSource } from '../../src/import/importer.js';
import type { Source } from '../../src/import/source.js';
import { createListingTestDatabase, engineName, readingThrough, type TestDatabase } from '../helpers/database.js';
import { graphql } from '../helpers/graphql.js';

let db: TestDatabase;
beforeAll(async () => {
  db = await createListingTestDatabase(40);
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

/**
 * The database's read path, with `between` run (and awaited) after each session's first statement, or, with
 * `before`, before its first statement of that name.
 */
function interleaved(read: ReadPath, between: () => Promise<void>, before?: string): ReadPath {
  return {
    single: (statement, params) => read.single(statement, params),
    session(deadline, consistency) {
      const session = read.session(deadline, consistency);
      let first = true;
      const afterFirst = async <T>(statement: SqlStatement, reading: () => Promise<T>): Promise<T> => {
        if (before !== undefined && first && statement.name === before) {
          first = false;
          await between();
        }
        const result = await reading();
        if (before === undefined && first) {
          first = false;
          await between();
        }
        return result;
      };
      return {
        query: (statement, params) => afterFirst(statement, () => session.query(statement, params)),
        withListing: (statement, params) => afterFirst(statement, () => session.withListing(statement, params)),
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

describe(`one snapshot per request on ${engineName}`, () => {
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

  it('a page whose photographers are read after an import changed them is made again, whole', async () => {
    const mark = 'Imported ';
    // The packages the database was seeded with, each with its title and its photographer's name changed.
    const records = [...generatePackages({ count: 40 })].map((record) => ({
      ...record,
      title: `${mark}${record.title}`,
      photographer: { ...record.photographer, name: `${mark}${record.photographer.name}` },
    }));
    const source: Source = {
      label: 'retitled',
      progress: () => null,
      async *records() {
        for (const [i, value] of records.entries()) yield { value, where: 'retitled', path: `[${i}]` };
      },
    };
    const query = '{ packages(limit: 20, seed: 7) { count results { id title photographer { name } } } }';
    const before = (await graphql(createApp({ db }), query)).body;
    let imports = 0;
    const app = createApp({
      db: readingThrough(
        db,
        // The import the embedded server runs for `npm run import`, committed after the page's statement and
        // before its photographers'.
        interleaved(
          db.read,
          async () => {
            if (imports++ > 0) return;
            expect((await importSource(db, source)).status).toBe('imported');
          },
          'photographers',
        ),
      ),
    });
    const { body } = await graphql(app, query);
    const after = (await graphql(createApp({ db }), query)).body;
    expect(imports).toBeGreaterThanOrEqual(1);
    expect(JSON.stringify(after)).toContain(mark);
    expect(after).not.toEqual(before);
    expect(body.errors).toBeUndefined();
    // One state whole: not the page of the old listing with the photographers of the new one.
    const results = (body.data as { packages: { results: { title: string; photographer: { name: string } }[] } })
      .packages.results;
    const titles = results.filter((r) => r.title.startsWith(mark)).length;
    const names = results.filter((r) => r.photographer.name.startsWith(mark)).length;
    const mixed = `${titles} titles and ${names} photographers' names of ${results.length} from the import`;
    expect([before, after], mixed).toContainEqual(body);
  });
});
