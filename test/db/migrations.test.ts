// prisma/migrations must produce exactly what prisma/schema.prisma describes, and run once per database.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PrismaPg } from '@prisma/adapter-pg';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrate } from '../../src/db/migrate.js';
import { pendingSchemaChanges } from '../../src/db/migration-diff.js';
import { withWholeScripts } from '../../src/db/whole-scripts.js';
import {
  createPostgresDatabaseUrl,
  createTestDatabase,
  engineName,
  onPostgres,
  type TestDatabase,
} from '../helpers/database.js';

let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase();
});
afterAll(() => db?.destroy());

describe('migrations', () => {
  it('replayed from scratch, yield exactly the schema in schema.prisma', async () => {
    expect(await pendingSchemaChanges()).toBe('');
  });

  it('are reported as missing when schema.prisma is ahead of them', async () => {
    const empty = mkdtempSync(join(tmpdir(), 'no-migrations-'));
    expect(await pendingSchemaChanges(empty)).toContain('CREATE TABLE "package"');
  });

  it(`are recorded and run once on ${engineName}`, async () => {
    // createTestDatabase already migrated this database.
    expect(await migrate(db)).toEqual([]);
    const recorded = await db.prisma.$queryRaw<
      { migration_name: string }[]
    >`SELECT migration_name FROM _prisma_migrations`;
    expect(recorded.length).toBeGreaterThan(0);
    expect(await db.prisma.package.count()).toBe(0);
  });
});

// PrismaPg alone splits a script at every ";": a plpgsql body (the search documents' trigger) would come apart.
describe.runIf(onPostgres)('a migration script on PostgreSQL', () => {
  it('runs whole: a function body and a comment keep their semicolons, and a failure leaves nothing behind', async () => {
    const scratch = await createPostgresDatabaseUrl({ empty: true });
    const pool = new pg.Pool({ connectionString: scratch.url, max: 1 });
    try {
      const adapter = await withWholeScripts(new PrismaPg(pool), pool).connect();
      await adapter.executeScript(`-- one; two
        CREATE TABLE kept (n int);
        CREATE FUNCTION bump() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN NEW.n := NEW.n + 1; RETURN NEW; END $$;
        CREATE TRIGGER bump BEFORE INSERT ON kept FOR EACH ROW EXECUTE FUNCTION bump();
        INSERT INTO kept VALUES (1);`);
      expect((await pool.query('SELECT n FROM kept')).rows).toEqual([{ n: 2 }]);
      await expect(
        adapter.executeScript('CREATE TABLE half (n int); SELECT no_such_column FROM kept;'),
      ).rejects.toThrow('ColumnNotFound');
      expect((await pool.query("SELECT to_regclass('half') AS half")).rows).toEqual([{ half: null }]);
      await adapter.dispose();
    } finally {
      await pool.end();
      await scratch.drop();
    }
  });
});
