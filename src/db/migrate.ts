// Applies the migrations in prisma/migrations that the database has not run yet; each runs once.
import { firstLine } from '../messages.js';
import type { Database } from './client.js';
import { createSchemaEngine, NO_FILTERS, readMigrations } from './schema-engine.js';

export class MigrationError extends Error {}

export async function migrate(db: Database): Promise<string[]> {
  return db.withOwnSession(async (factory) => {
    const engine = await createSchemaEngine(factory);
    try {
      const { appliedMigrationNames } = await engine.applyMigrations({
        migrationsList: readMigrations(),
        filters: NO_FILTERS,
      });
      return appliedMigrationNames;
    } catch (error) {
      throw new MigrationError(`migrations could not be applied: ${firstLine(error)}`);
    } finally {
      engine.free();
    }
  });
}

/**
 * migrate(), for a job that only needs the database up to date (an import): asks first, and loads the schema
 * engine (WebAssembly, tens of MB and seconds of CPU to compile) only when a migration is pending.
 */
export async function migrateIfBehind(db: Database, onMigrating?: () => void): Promise<string[]> {
  if ((await pendingMigrations(db)).length === 0) return [];
  onMigrating?.();
  return migrate(db);
}

/** The migrations in prisma/migrations that the database has not applied (all of them on a new database). */
export async function pendingMigrations(db: Database): Promise<string[]> {
  let applied: Set<string>;
  try {
    const rows = await db.read.single<{ name: string }>({
      text: 'SELECT migration_name AS name FROM _prisma_migrations WHERE finished_at IS NOT NULL AND rolled_back_at IS NULL',
    });
    applied = new Set(rows.map((row) => row.name));
  } catch (error) {
    if (!/_prisma_migrations|42P01/.test(String((error as Error)?.message ?? error))) throw error;
    applied = new Set(); // no migration table: nothing applied yet
  }
  return readMigrations()
    .migrationDirectories.map((directory) => directory.path)
    .filter((name) => !applied.has(name));
}
