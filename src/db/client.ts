// Builds the Prisma client from the validated config: PGlite in-process (the default) or a PostgreSQL server.
// One SQL dialect either way; every statement passes the StatementObserver.
import { PrismaPg } from '@prisma/adapter-pg';
import type { SqlMigrationAwareDriverAdapterFactory } from '@prisma/driver-adapter-utils';
import pg from 'pg';
import type { Config } from '../config.js';
import { PrismaClient } from '../generated/prisma/client.js';
import { lockDataDir } from './data-dir.js';
import { observeStatements, StatementObserver } from './statements.js';

export type DatabaseConfig = Config['database'];

export interface Database {
  kind: DatabaseConfig['kind'];
  prisma: PrismaClient;
  /** The adapter factory behind `prisma`, for the schema engine (migrations). */
  adapterFactory: SqlMigrationAwareDriverAdapterFactory;
  statements: StatementObserver;
  /** Answers when the database does. */
  ping(): Promise<void>;
  close(): Promise<void>;
}

export class DatabaseUnavailableError extends Error {}

const IN_MEMORY = 'memory://';

async function openPglite(dataDir: string) {
  const inMemory = dataDir === IN_MEMORY;
  const unlock = inMemory ? () => {} : lockDataDir(dataDir);
  try {
    // Loaded only for the embedded engine: a PostgreSQL deployment does not carry PGlite in memory.
    const [{ PGlite }, { PrismaPGlite }] = await Promise.all([
      import('@electric-sql/pglite'),
      import('pglite-prisma-adapter'),
    ]);
    const pglite = await PGlite.create(inMemory ? undefined : dataDir);
    return {
      factory: new PrismaPGlite(pglite),
      close: async () => {
        await pglite.close();
        unlock();
      },
    };
  } catch (error) {
    unlock();
    throw new DatabaseUnavailableError(`embedded database in ${dataDir} cannot be opened: ${(error as Error).message}`);
  }
}

function describeServer(url: string): string {
  const u = new URL(url);
  return `${u.hostname}:${u.port || 5432}${u.pathname}`;
}

async function openPostgres(url: string) {
  const pool = new pg.Pool({ connectionString: url, max: 10, connectionTimeoutMillis: 5000 });
  pool.on('error', () => {}); // an idle client's error surfaces on the next query instead of crashing
  try {
    await pool.query('SELECT 1');
  } catch (error) {
    await pool.end().catch(() => {});
    const e = error as NodeJS.ErrnoException;
    throw new DatabaseUnavailableError(
      `cannot reach PostgreSQL at ${describeServer(url)}: ${e.code ?? ''} ${e.message}`.replace(/\s+/g, ' ').trim(),
    );
  }
  return { factory: new PrismaPg(pool), close: () => pool.end() };
}

export async function openDatabase(config: DatabaseConfig): Promise<Database> {
  const opened = config.kind === 'pglite' ? await openPglite(config.dataDir) : await openPostgres(config.url);
  const statements = new StatementObserver();
  const adapterFactory = observeStatements(opened.factory, statements);
  const prisma = new PrismaClient({ adapter: adapterFactory });
  return {
    kind: config.kind,
    prisma,
    adapterFactory,
    statements,
    ping: async () => {
      await prisma.$queryRaw`SELECT 1`;
    },
    close: async () => {
      await prisma.$disconnect();
      await opened.close();
    },
  };
}
