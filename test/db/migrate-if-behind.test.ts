// An import brings the database up to date without loading the schema engine when nothing is pending: the engine
// is WebAssembly that takes seconds of CPU to compile, which an import every few minutes took from the instances
// serving beside it (the fleet soak saw it).
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { migrateIfBehind, pendingMigrations } from '../../src/db/migrate.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';

const engines = vi.hoisted(() => ({ created: 0 }));
vi.mock('../../src/db/schema-engine.js', async (original) => {
  const actual = await original<typeof import('../../src/db/schema-engine.js')>();
  return {
    ...actual,
    createSchemaEngine: (...args: Parameters<typeof actual.createSchemaEngine>) => {
      engines.created++;
      return actual.createSchemaEngine(...args);
    },
  };
});

let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase();
});
afterAll(() => db?.destroy());

describe('migrateIfBehind', () => {
  it('applies nothing and loads no schema engine on a database already up to date', async () => {
    expect(await pendingMigrations(db)).toEqual([]);
    expect(await migrateIfBehind(db)).toEqual([]);
    expect(engines.created).toBe(0);
  });
});
