// The bulk writer names columns by snake-casing the Prisma field names and tables by its TABLES list. The
// migrated database must have exactly those columns, or a value would silently be written as NULL.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toRows } from '../../src/db/write/rows.js';
import { columnName, TABLES } from '../../src/db/write/store.js';
import { edgePackages } from '../fixtures/edge-records.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';

let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase();
});
afterAll(() => db?.destroy());

describe('the bulk writer and the migrated tables', () => {
  const rows = toRows(edgePackages);

  it.each(TABLES.map(([key, table]) => [table, key] as const))(
    '%s has exactly the columns the writer fills',
    async (table, key) => {
      const columns = await db.prisma.$queryRaw<{ column_name: string }[]>`
      SELECT column_name FROM information_schema.columns WHERE table_schema = 'public' AND table_name = ${table}`;
      const written = new Set(rows[key].flatMap((row) => Object.keys(row).map(columnName)));
      expect(written.size).toBeGreaterThan(0);
      expect([...written].sort()).toEqual(columns.map((c) => c.column_name).sort());
    },
  );
});
