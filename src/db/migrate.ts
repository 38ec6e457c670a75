// Applies the migrations in prisma/migrations that the database has not run yet; each runs once.
import type { Database } from './client.js';
import { createSchemaEngine, NO_FILTERS, readMigrations } from './schema-engine.js';

export class MigrationError extends Error {}

export async function migrate(db: Database): Promise<string[]> {
  const engine = await createSchemaEngine(db.adapterFactory);
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
}

function firstLine(error: unknown): string {
  return String((error as Error)?.message ?? error).split('\n')[0] ?? 'unknown error';
}
