// What prisma/schema.prisma needs beyond prisma/migrations, as SQL: the migrations are replayed on a
// throw-away in-memory PGlite (the shadow database) and compared with the schema.
import { PGlite } from '@electric-sql/pglite';
import { PrismaPGlite } from 'pglite-prisma-adapter';
import { createSchemaEngine, NO_FILTERS, readMigrations, readSchema, SCHEMA_PATH } from './schema-engine.js';

export async function pendingSchemaChanges(migrationsDir?: string): Promise<string> {
  const pglite = await PGlite.create();
  const engine = await createSchemaEngine(new PrismaPGlite(pglite));
  try {
    const migrations = readMigrations(migrationsDir);
    const from =
      migrations.migrationDirectories.length > 0
        ? { tag: 'migrations' as const, ...migrations }
        : { tag: 'empty' as const };
    const { stdout } = await engine.diff({
      from,
      to: { tag: 'schemaDatamodel', files: [{ path: SCHEMA_PATH, content: readSchema() }] },
      script: true,
      exitCode: null,
      filters: NO_FILTERS,
    });
    return isEmptyScript(stdout ?? '') ? '' : (stdout ?? '');
  } finally {
    engine.free();
    await pglite.close();
  }
}

/** The engine answers "-- This is an empty migration." when there is nothing to do. */
function isEmptyScript(script: string): boolean {
  return script
    .split('\n')
    .map((line) => line.trim())
    .every((line) => line === '' || line.startsWith('--'));
}
