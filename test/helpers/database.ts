// A fresh, migrated database for one test file: in-memory PGlite by default, or a new database on the
// PostgreSQL server named by TEST_DATABASE_URL (dropped again afterwards).
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { type Database, openDatabase } from '../../src/db/client.js';
import { migrate } from '../../src/db/migrate.js';
import { seedDemoData } from '../../src/db/seed/seed.js';
import { toRows } from '../../src/db/write/rows.js';
import { insertRows, renumberListing } from '../../src/db/write/store.js';
import { edgePackages } from '../fixtures/edge-records.js';

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
    const db = await openDatabase({ kind: 'pglite', dataDir: 'memory://' });
    await migrate(db);
    return { ...db, destroy: () => db.close() };
  }
  const server = await createPostgresDatabaseUrl();
  const db = await openDatabase({ kind: 'postgresql', url: server.url });
  await migrate(db);
  return {
    ...db,
    destroy: async () => {
      await db.close();
      await server.drop();
    },
  };
}

/** The URL of a fresh database on the test server (for tests that start the server process). */
export async function createPostgresDatabaseUrl(): Promise<{ url: string; drop: () => Promise<void> }> {
  const name = `test_${process.pid}_${randomBytes(4).toString('hex')}`;
  await adminQuery(`CREATE DATABASE ${name}`);
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
  });
  return db;
}
