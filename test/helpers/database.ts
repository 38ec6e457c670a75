// A fresh, migrated database for one test file: a copy of the migrated PGlite template by default, or a new
// database on the PostgreSQL server named by TEST_DATABASE_URL, made from its template (dropped again afterwards).
import { randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import pg from 'pg';
import { afterAll, beforeAll } from 'vitest';
import { type Database, openDatabase } from '../../src/db/client.js';
import type { ReadPath } from '../../src/db/sql.js';
import { toRows } from '../../src/db/write/rows.js';
import { bumpListingVersion, insertRows, renumberListing } from '../../src/db/write/store.js';
import { seedDemoData } from '../../src/demo/seed.js';
import { edgePackages } from '../fixtures/edge-records.js';
import { type TempDir, tempDir } from './temp-dir.js';
import { copyOfTemplate, POSTGRES_TEMPLATE } from './templates.js';

export const onPostgres = Boolean(process.env.TEST_DATABASE_URL);
export const engineName = onPostgres ? 'PostgreSQL' : 'PGlite';

async function adminQuery(sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: process.env.TEST_DATABASE_URL });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

export interface TestDatabase extends Database {
  /** Closes the client and removes the database. */
  destroy(): Promise<void>;
}

export async function createTestDatabase(): Promise<TestDatabase> {
  if (!onPostgres) {
    const dataDir = copyOfTemplate();
    const db = await openDatabase({ kind: 'pglite', dataDir });
    return {
      ...db,
      destroy: async () => {
        await db.close();
        rmSync(dataDir, { recursive: true, force: true });
      },
    };
  }
  const server = await createPostgresDatabaseUrl();
  const db = await openDatabase({ kind: 'postgresql', url: server.url });
  return {
    ...db,
    destroy: async () => {
      await db.close();
      await server.drop();
    },
  };
}

/**
 * The URL of a new database on the test server (for tests that start the server process): migrated (a copy of
 * the template) unless `empty` is asked for.
 */
export async function createPostgresDatabaseUrl(
  options: { empty?: boolean } = {},
): Promise<{ url: string; drop: () => Promise<void> }> {
  const name = `test_${process.pid}_${randomBytes(4).toString('hex')}`;
  await adminQuery(`CREATE DATABASE ${name}${options.empty ? '' : ` TEMPLATE ${POSTGRES_TEMPLATE}`}`);
  const url = new URL(process.env.TEST_DATABASE_URL as string);
  url.pathname = `/${name}`;
  return { url: url.toString(), drop: () => adminQuery(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`) };
}

/** A fresh database holding `demo` generated packages plus the hand-written edge records. */
export async function createListingTestDatabase(demo: number): Promise<TestDatabase> {
  const db = await createTestDatabase();
  await seedDemoData(db, { packages: demo });
  await db.prisma.$transaction(async (tx) => {
    await insertRows(tx, toRows(edgePackages));
    await renumberListing(tx);
    await bumpListingVersion(tx); // and the read model with it
  });
  return db;
}

/** The database with every read going through `read` (requests' reads included), for tests that wrap it. */
export function readingThrough<T extends Database>(db: T, read: ReadPath): T {
  return { ...db, read, reads: { forRequest: () => read, pick: () => read, staleMs: 0 } };
}

/** A read path whose every read fails with `error` (a bug, not a database fault), for tests of what clients see. */
export function failingReads(error: Error): ReadPath {
  const failing = async (): Promise<never> => {
    throw error;
  };
  return {
    session: () => ({
      query: failing,
      withListing: failing,
      knownListing: () => undefined,
      readVersion: () => undefined,
      moved: false,
      lost: false,
      end: async () => {},
    }),
    single: failing,
  };
}

/**
 * For a test file that runs jobs or servers as processes (import, seed): a temporary folder and a database of its
 * own (a new PostgreSQL database, or a copy of the embedded template), made before its tests and removed after.
 * `env` names the database to the processes; it is filled before the first test.
 */
export function scratchForProcesses(prefix: string): { dir: TempDir; env: Record<string, string> } {
  const dir = tempDir(prefix);
  const env: Record<string, string> = {};
  let drop = async () => {};
  beforeAll(async () => {
    if (!onPostgres) env.DATA_DIR = copyOfTemplate();
    else {
      const database = await createPostgresDatabaseUrl();
      env.DATABASE_URL = database.url;
      drop = database.drop;
    }
  });
  afterAll(async () => {
    await drop();
    dir.remove();
  });
  return { dir, env };
}
