// A package's search document (package_search) is kept by the database with the package, whatever writes it: the
// demo seed (which turns ordinary triggers off), an import's upserts, a plain UPDATE; a change that leaves the
// searched texts alone leaves the document alone; a deleted package takes its document with it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createListingTestDatabase, engineName, type TestDatabase } from '../helpers/database.js';

let db: TestDatabase;
beforeAll(async () => {
  db = await createListingTestDatabase(40);
});
afterAll(() => db?.destroy());

const documentOf = async (id: string) => {
  const [row] = await db.read.single<{ document: string; xmin: string }>(
    {
      text: 'SELECT document::text AS document, xmin::text AS xmin FROM package_search WHERE package_id = $1',
    },
    [id],
  );
  return row;
};

describe(`search documents on ${engineName}`, () => {
  it('exist for every package after the seed, and are what the three texts give, weighted', async () => {
    const [counts] = await db.read.single<{
      packages: number;
      documents: number;
      wrong: number;
    }>({
      text: `SELECT (SELECT count(*)::int FROM package) AS packages, (SELECT count(*)::int FROM package_search) AS documents,
        (SELECT count(*)::int FROM package p JOIN package_search sd ON sd.package_id = p.id
          WHERE sd.document <> setweight(to_tsvector('simple', p.title), 'A')
            || setweight(to_tsvector('simple', p.tag_keywords), 'B') || setweight(to_tsvector('simple', p.category_name), 'C')
            OR strip(sd.document) <> strip(to_tsvector('simple', p.title || ' ' || p.tag_keywords || ' ' || p.category_name))) AS wrong`,
    });
    expect(counts?.packages).toBeGreaterThan(40);
    expect(counts?.documents).toBe(counts?.packages);
    expect(counts?.wrong).toBe(0);
  });

  it('follow a new title, stay untouched by a change to anything else, and go with their package', async () => {
    const [{ id } = { id: '' }] = await db.read.single<{ id: string }>({
      text: 'SELECT id FROM package ORDER BY id LIMIT 1',
    });
    await db.prisma.$executeRawUnsafe(`UPDATE package SET title = 'Zanzibar Quokka Session' WHERE id = $1::uuid`, id);
    const retitled = await documentOf(id);
    expect(retitled?.document).toContain("'quokka':2A");
    await db.prisma.$executeRawUnsafe('UPDATE package SET featured = NOT featured WHERE id = $1::uuid', id);
    expect(await documentOf(id)).toEqual(retitled); // the same row version: not rewritten
    await db.prisma.$executeRawUnsafe('DELETE FROM package WHERE id = $1::uuid', id);
    expect(await documentOf(id)).toBeUndefined();
  });
});
