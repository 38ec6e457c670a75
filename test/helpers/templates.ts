// One migrated, empty database per engine, made once and copied for every test that needs a database: a PGlite
// data directory (copying it and opening the copy takes half a second, where a new PGlite runs initdb for three)
// and a PostgreSQL template database (CREATE DATABASE ... TEMPLATE). Their names carry a hash of the migrations, so
// a changed schema gets new templates and old ones are never used by mistake.
import { createHash } from 'node:crypto';
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { openDatabase } from '../../src/db/client.js';
import { migrate } from '../../src/db/migrate.js';
import { MIGRATIONS_DIR } from '../../src/db/schema-engine.js';

function migrationsHash(): string {
  const hash = createHash('sha256');
  for (const folder of readdirSync(MIGRATIONS_DIR).sort()) {
    const file = join(MIGRATIONS_DIR, folder, 'migration.sql');
    if (existsSync(file)) hash.update(folder).update(readFileSync(file));
  }
  return hash.digest('hex').slice(0, 12);
}

const KEY = migrationsHash();
export const PGLITE_TEMPLATE = join(tmpdir(), `listing-test-template-${KEY}`);
export const POSTGRES_TEMPLATE = `listing_test_template_${KEY}`;

const copies = new Set<string>();

/** A new data directory holding a copy of the migrated, empty template; removed when this process exits. */
export function copyOfTemplate(): string {
  const dir = mkdtempSync(join(tmpdir(), 'listing-test-'));
  cpSync(PGLITE_TEMPLATE, dir, { recursive: true });
  if (copies.size === 0) process.once('exit', () => removeCopies());
  copies.add(dir);
  return dir;
}

/** Removes this process's copies (those still there). */
export function removeCopies(): void {
  for (const dir of copies) rmSync(dir, { recursive: true, force: true });
  copies.clear();
}

async function makePgliteTemplate(): Promise<void> {
  if (existsSync(PGLITE_TEMPLATE)) return;
  const building = mkdtempSync(join(tmpdir(), 'listing-test-template-building-'));
  const db = await openDatabase({ kind: 'pglite', dataDir: building });
  try {
    await migrate(db);
  } finally {
    await db.close();
  }
  try {
    renameSync(building, PGLITE_TEMPLATE); // whole or not at all
  } catch {
    rmSync(building, { recursive: true, force: true }); // made meanwhile by another run
  }
}

async function makePostgresTemplate(serverUrl: string): Promise<void> {
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  try {
    const found = await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [POSTGRES_TEMPLATE]);
    if (found.rowCount) return;
    const building = `${POSTGRES_TEMPLATE}_building_${process.pid}`;
    await admin.query(`CREATE DATABASE ${building}`);
    const url = new URL(serverUrl);
    url.pathname = `/${building}`;
    const db = await openDatabase({ kind: 'postgresql', url: url.toString() });
    try {
      await migrate(db);
    } finally {
      await db.close();
    }
    await admin.query(`ALTER DATABASE ${building} RENAME TO ${POSTGRES_TEMPLATE}`);
  } finally {
    await admin.end();
  }
}

/** Makes the templates the suite needs, if they are not there yet (globalSetup). */
export async function ensureTemplates(): Promise<void> {
  await makePgliteTemplate();
  if (process.env.TEST_DATABASE_URL) await makePostgresTemplate(process.env.TEST_DATABASE_URL);
}
