// A package's search document (package_search) is kept by the database with the package, whatever writes it: the
// demo seed (which turns ordinary triggers off), an import's upserts, a plain UPDATE; a change that leaves the
// searched texts alone leaves the document alone; a deleted package takes its document with it. A document holds
// each word, its parts and its folded form (the migration search_word_forms), and everything the documents held
// before, so the build that served before the migration still finds what it found.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MIGRATIONS_DIR } from '../../src/db/schema-engine.js';
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

/** A document as the previous build wrote it: the parser's words of each text, weighted. */
const BEFORE = `setweight(to_tsvector('simple', p.title), 'A') || setweight(to_tsvector('simple', p.tag_keywords), 'B')
  || setweight(to_tsvector('simple', p.category_name), 'C')`;

/** The packages' documents as package_search_documents makes them from their texts. */
const MADE = `(SELECT d.* FROM (SELECT array_agg(id) AS ids, array_agg(title) AS titles, array_agg(tag_keywords) AS tags,
    array_agg(category_name) AS names FROM package) p, package_search_documents(p.ids, p.titles, p.tags, p.names) d)`;

/** Entries (lexeme, position, weight) of `before` that `after` lacks, over every package. */
const LOST = (before: string, after: string) => `SELECT count(*)::int AS n FROM package p
  JOIN package_search sd ON sd.package_id = p.id, unnest(${before}) o, unnest(o.positions, o.weights) AS ow(position, weight)
  WHERE NOT EXISTS (SELECT 1 FROM unnest(${after}) n, unnest(n.positions, n.weights) AS nw(position, weight)
    WHERE n.lexeme = o.lexeme AND nw.position = ow.position AND nw.weight = ow.weight)`;

const count = async (text: string, params: unknown[] = []) =>
  (await db.read.single<{ n: number }>({ text }, params))[0]?.n;

describe(`search documents on ${engineName}`, () => {
  it('exist for every package after the seed, and are what package_search_documents makes of the texts', async () => {
    expect(await count('SELECT count(*)::int AS n FROM package')).toBeGreaterThan(40);
    expect(await count('SELECT count(*)::int AS n FROM package_search')).toBe(
      await count('SELECT count(*)::int AS n FROM package'),
    );
    expect(
      await count(`SELECT count(*)::int AS n FROM package_search sd
        LEFT JOIN ${MADE} m ON m.package_id = sd.package_id WHERE m.document IS DISTINCT FROM sd.document`),
    ).toBe(0);
  });

  it("hold every word the previous build's documents held, at its position with its weight", async () => {
    expect(await count(LOST(BEFORE, 'sd.document'))).toBe(0);
    expect(await count(LOST('sd.document', BEFORE))).toBeGreaterThan(0); // and more: parts and folded words
  });

  it('hold each word, its parts and its folded form, weighted by the text it is in', async () => {
    const [row] = await db.read.single<{ document: string }>({
      text: `SELECT d.document::text AS document FROM package_search_documents(ARRAY[gen_random_uuid()],
        ARRAY['Real-Estate Photos: 2.5 hours'], ARRAY['weddings,'], ARRAY['Family''s Studies']) d`,
    });
    expect(row?.document).toBe(
      "'2':5A '2.5':5A '5':5A 'estat':1A,3A 'estate':1A,3A 'famili':8C 'family':8C 'hour':6A 'hours':6A " +
        "'photo':4A 'photos':4A 'real':1A,2A 'real-estate':1A 's':9C 'studi':10C 'studies':10C 'wed':7B 'weddings':7B",
    );
  });

  it("let the previous build's search find at least what it found", async () => {
    // The previous build's query (src/listing/filter.ts before search_word_forms): the parser's words, the last
    // one as a start.
    const before = `to_tsquery('simple', regexp_replace(plainto_tsquery('simple', $1)::text, '''$', ''':*'))`;
    for (const search of ['wedding', 'golden hour', 'real-estate', 'pet', 'portraits', 'newborn ses']) {
      const [found] = await db.read.single<{ was: number; now: number; lost: number }>(
        {
          text: `SELECT count(*) FILTER (WHERE ${BEFORE} @@ ${before})::int AS was,
              count(*) FILTER (WHERE sd.document @@ ${before})::int AS now,
              count(*) FILTER (WHERE ${BEFORE} @@ ${before} AND NOT sd.document @@ ${before})::int AS lost
            FROM package p JOIN package_search sd ON sd.package_id = p.id`,
        },
        [search],
      );
      expect(found?.lost, search).toBe(0);
      expect(found?.now, search).toBeGreaterThanOrEqual(found?.was ?? 0);
    }
  });

  it("are made again by the migration from the previous build's documents", async () => {
    await db.prisma.$executeRawUnsafe(
      `UPDATE package_search sd SET document = ${BEFORE} FROM package p WHERE p.id = sd.package_id`,
    );
    const migration = readFileSync(join(MIGRATIONS_DIR, '20261208003000_search_word_forms', 'migration.sql'), 'utf8');
    const backfill = migration.slice(migration.indexOf('-- The documents already stored.'));
    expect(backfill).toMatch(/^-- The documents already stored\.\nUPDATE "package_search"/);
    await db.prisma.$executeRawUnsafe(backfill);
    expect(
      await count(`SELECT count(*)::int AS n FROM package_search sd
        JOIN ${MADE} m ON m.package_id = sd.package_id WHERE m.document IS DISTINCT FROM sd.document`),
    ).toBe(0);
  });

  it('follow a new title, stay untouched by a change to anything else, and go with their package', async () => {
    const [{ id } = { id: '' }] = await db.read.single<{ id: string }>({
      text: 'SELECT id FROM package ORDER BY id LIMIT 1',
    });
    await db.prisma.$executeRawUnsafe(`UPDATE package SET title = 'Zanzibar Quokkas Session' WHERE id = $1::uuid`, id);
    const retitled = await documentOf(id);
    expect(retitled?.document).toContain("'quokka':2A");
    expect(retitled?.document).toContain("'quokkas':2A");
    await db.prisma.$executeRawUnsafe('UPDATE package SET featured = NOT featured WHERE id = $1::uuid', id);
    expect(await documentOf(id)).toEqual(retitled); // the same row version: not rewritten
    await db.prisma.$executeRawUnsafe('DELETE FROM package WHERE id = $1::uuid', id);
    expect(await documentOf(id)).toBeUndefined();
  });
});
