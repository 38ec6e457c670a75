// Prisma's schema engine, in its WebAssembly build, driven through a driver adapter: it computes migration
// SQL and applies migrations (recording them in _prisma_migrations, as `prisma migrate deploy` does).
// The native engine is not used: it would have to be downloaded at install time.
import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  bindMigrationAwareSqlAdapterFactory,
  type SqlMigrationAwareDriverAdapterFactory,
} from '@prisma/driver-adapter-utils';
import type { MigrationList, SchemaEngine } from '@prisma/schema-engine-wasm';
import * as wasmBindings from '@prisma/schema-engine-wasm/schema_engine_bg';

export const PRISMA_DIR = fileURLToPath(new URL('../../prisma/', import.meta.url));
export const SCHEMA_PATH = join(PRISMA_DIR, 'schema.prisma');
export const MIGRATIONS_DIR = join(PRISMA_DIR, 'migrations');
export const NO_FILTERS = { externalTables: [], externalEnums: [] };

let loaded: Promise<typeof wasmBindings.SchemaEngine> | undefined;

/** The package is built for bundlers (it imports its .wasm); Node needs the module instantiated by hand. */
function loadEngineClass(): Promise<typeof wasmBindings.SchemaEngine> {
  loaded ??= (async () => {
    const require = createRequire(import.meta.url);
    const wasmPath = require.resolve('@prisma/schema-engine-wasm/schema_engine_bg').replace(/\.js$/, '.wasm');
    const { instance } = await WebAssembly.instantiate(readFileSync(wasmPath), {
      './schema_engine_bg.js': wasmBindings as unknown as WebAssembly.ModuleImports,
    });
    wasmBindings.__wbg_set_wasm(instance.exports);
    (instance.exports.__wbindgen_start as (() => void) | undefined)?.();
    return wasmBindings.SchemaEngine;
  })();
  return loaded;
}

export function readSchema(): string {
  return readFileSync(SCHEMA_PATH, 'utf8');
}

export async function createSchemaEngine(factory: SqlMigrationAwareDriverAdapterFactory): Promise<SchemaEngine> {
  const Engine = await loadEngineClass();
  const ignoreLogs = () => {};
  return Engine.new(
    { datamodels: [['schema.prisma', readSchema()]] },
    ignoreLogs,
    bindMigrationAwareSqlAdapterFactory(factory),
  );
}

/** prisma/migrations in the shape the engine takes: one folder per migration, applied in name order. */
export function readMigrations(dir = MIGRATIONS_DIR): MigrationList {
  const lockPath = join(dir, 'migration_lock.toml');
  let lockContent: string | null = null;
  try {
    lockContent = readFileSync(lockPath, 'utf8');
  } catch {}
  let folders: string[] = [];
  try {
    folders = readdirSync(dir, { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .map((entry) => entry.name)
      .sort();
  } catch {}
  return {
    baseDir: dir,
    lockfile: { path: 'migration_lock.toml', content: lockContent },
    shadowDbInitScript: '',
    migrationDirectories: folders.map((folder) => ({
      path: folder,
      migrationFile: {
        path: 'migration.sql',
        content: { tag: 'ok', value: readFileSync(join(dir, folder, 'migration.sql'), 'utf8') },
      },
    })),
  };
}
