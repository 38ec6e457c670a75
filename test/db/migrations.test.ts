// prisma/migrations must produce exactly what prisma/schema.prisma describes, and run once per database.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrate } from '../../src/db/migrate.js';
import { pendingSchemaChanges } from '../../src/db/migration-diff.js';
import { createTestDatabase, engineName, type TestDatabase } from '../helpers/database.js';

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
