// The migrated database must have exactly the tables and columns the code names: the bulk writer's rows (built in
// column names, src/db/write/rows.ts), the read path's column lists (src/db/columns.ts), and the v2 contract's
// decimal precisions (src/v2/contract.ts) must all match it, or a value would be written as NULL, read as
// nothing, or refused at the wrong size.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { type ModelName, scalarFields, tableName } from '../../src/db/columns.js';
import { toRows } from '../../src/db/write/rows.js';
import { TABLES } from '../../src/db/write/tables.js';
import { getDatamodel } from '../../src/generated/pothos-prisma-types.js';
import * as contract from '../../src/v2/contract.js';
import { contractMeta } from '../../src/v2/contract.js';
import { edgePackages } from '../fixtures/edge-records.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';

let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase();
});
afterAll(() => db?.destroy());

interface Column {
  table_name: string;
  column_name: string;
  numeric_precision: number | null;
  numeric_scale: number | null;
  data_type: string;
}

async function columns(): Promise<Column[]> {
  const session = db.read.session();
  try {
    return await session.query<Column>({
      text: `SELECT table_name::text, column_name::text, numeric_precision::int, numeric_scale::int, data_type::text
             FROM information_schema.columns WHERE table_schema = 'public'`,
    });
  } finally {
    await session.end();
  }
}

const columnsOf = (all: Column[], table: string) =>
  all
    .filter((c) => c.table_name === table)
    .map((c) => c.column_name)
    .sort();

describe('the code and the migrated tables', () => {
  const rows = toRows(edgePackages);

  it.each(TABLES.map((table) => [table.name]))('%s has exactly the columns the bulk writer fills', async (table) => {
    const written = new Set((rows[table] ?? []).flatMap((row) => Object.keys(row)));
    expect(written.size).toBeGreaterThan(0);
    expect([...written].sort()).toEqual(columnsOf(await columns(), table));
  });

  it('every model of the Prisma schema is a table with the columns the read path selects', async () => {
    // A search document (tsvector) is an Unsupported field to Prisma: in the schema, never in what it selects.
    const all = (await columns()).filter((column) => column.data_type !== 'tsvector');
    const models = Object.keys(getDatamodel().datamodel.models);
    for (const model of models as ModelName[]) {
      const selected = scalarFields(model)
        .map((field) => field.column)
        .sort();
      expect(selected, model).toEqual(columnsOf(all, tableName(model)));
    }
  });

  it("the v2 contract's decimals take the largest value of their columns, and no more digits", async () => {
    const all = await columns();
    let checked = 0;
    for (const schema of Object.values(contract)) {
      if (!(schema instanceof z.ZodObject)) continue;
      const tables = contractMeta.get(schema)?.tables;
      if (!tables) continue;
      for (const [field, fieldSchema] of Object.entries(schema.shape as Record<string, z.ZodType>)) {
        for (const table of tables) {
          const column = all.find((c) => c.table_name === table && c.column_name === field);
          if (column?.data_type !== 'numeric' || column.numeric_precision == null || column.numeric_scale == null)
            continue;
          const digits = column.numeric_precision - column.numeric_scale;
          const largest = `${'9'.repeat(digits)}.${'9'.repeat(column.numeric_scale)}`;
          expect(fieldSchema.safeParse(largest).success, `${table}.${field} takes ${largest}`).toBe(true);
          expect(fieldSchema.safeParse(`9${largest}`).success, `${table}.${field} refuses 9${largest}`).toBe(false);
          expect(fieldSchema.safeParse(`${largest}9`).success, `${table}.${field} refuses ${largest}9`).toBe(false);
          checked++;
        }
      }
    }
    expect(checked).toBe(13);
  });
});
