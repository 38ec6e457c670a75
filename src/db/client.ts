// Opens the database from the validated config: PGlite in-process (the default) or a PostgreSQL server. One SQL
// dialect either way. Reads go through the read path (src/db/sql.ts); writes and migrations through Prisma and its
// schema engine, on the same connections. Every statement passes the StatementObserver.
import { PrismaPg } from '@prisma/adapter-pg';
import type { SqlMigrationAwareDriverAdapterFactory } from '@prisma/driver-adapter-utils';
import pg from 'pg';
import { type Config, loadConfig, type PoolSettings } from '../config.js';
import type { PrismaClient } from '../generated/prisma/client.js';
import { holdDataDir } from './data-dir.js';
import { DatabaseUnavailableError, faultReason, isUnavailable } from './faults.js';
import { pgliteReadPath } from './pglite-read.js';
import { postgresReadPath } from './postgres-read.js';
import type { ReadPath } from './sql.js';
import { observeStatements, StatementObserver } from './statements.js';

export type DatabaseConfig = Config['database'];
export { DatabaseUnavailableError };

export interface PoolGauges {
  total(): number;
  idle(): number;
  waiting(): number;
}

export interface Database {
  kind: DatabaseConfig['kind'];
  /**
   * Writes (seed, import) through Prisma; the server reads through `read`. Loaded only where writes are enabled
   * (`writes` at opening, or `enableWrites()`): the client and its query compiler take some 15 MB.
   */
  readonly prisma: PrismaClient;
  enableWrites(): Promise<PrismaClient>;
  /**
   * Runs `work` with an adapter factory on one database session of its own, closed afterwards: the schema engine
   * takes a session-level advisory lock and releases it, and both must happen on the same connection (on a pool
   * the release went to another connection, and the lock stayed held by an idle one for DB_IDLE_TIMEOUT).
   */
  withOwnSession<T>(work: (factory: SqlMigrationAwareDriverAdapterFactory) => Promise<T>): Promise<T>;
  statements: StatementObserver;
  read: ReadPath;
  /** Why the database cannot serve now, in one line, or null when it can; answers within `timeoutMs`. */
  health(timeoutMs?: number): Promise<string | null>;
  /** The connection pool's gauges (PostgreSQL only). */
  pool: PoolGauges | null;
  /**
   * Runs `work` holding the database-wide start-up lock (a PostgreSQL advisory lock), so that instances starting
   * together migrate and seed one after the other. The embedded database has one user already.
   */
  withStartupLock<T>(work: () => Promise<T>, onWait?: (line: string) => void): Promise<T>;
  close(): Promise<void>;
}

export interface OpenOptions {
  pool?: PoolSettings;
  /** Load the Prisma client for writes now (default); the server opens for reads and enables writes if it seeds. */
  writes?: boolean;
  /** How long to wait for PostgreSQL to answer at start; 0 tries once. */
  waitMs?: number;
  /** Told when the database is not answering yet and the start waits for it. */
  onWait?: (line: string) => void;
}

const IN_MEMORY = 'memory://';
/**
 * The embedded PostgreSQL's memory: its buffers live in this process's WebAssembly memory, which never shrinks.
 * PGlite's defaults (128 MB of shared buffers, 64 MB for maintenance) are sized for a server of its own; the
 * listing's tables are read through the operating system's file cache anyway. 120 MB less resident memory.
 */
const PGLITE_SETTINGS = ['shared_buffers = 16MB', 'maintenance_work_mem = 16MB', 'wal_buffers = 1MB'];
/** Taken by every instance while it migrates and seeds at start ("listing" in ASCII). */
const STARTUP_LOCK = 0x6c697374;

function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new DatabaseUnavailableError(`${what} did not answer within ${ms / 1000} s`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

async function healthOf(check: () => Promise<unknown>, timeoutMs: number, what: string): Promise<string | null> {
  try {
    await withTimeout(check(), timeoutMs, what);
    return null;
  } catch (error) {
    return error instanceof DatabaseUnavailableError ? error.message : `${what}: ${faultReason(error)}`;
  }
}

async function openPglite(dataDir: string, observer: StatementObserver) {
  const inMemory = dataDir === IN_MEMORY;
  const hold = inMemory ? { release: () => {}, problem: () => null } : holdDataDir(dataDir);
  try {
    // Loaded only for the embedded engine: a PostgreSQL deployment does not carry PGlite in memory.
    const [{ PGlite }, { PrismaPGlite }] = await Promise.all([
      import('@electric-sql/pglite'),
      import('pglite-prisma-adapter'),
    ]);
    const pglite = await PGlite.create(inMemory ? undefined : dataDir, { postgresqlconf: PGLITE_SETTINGS });
    return {
      factory: new PrismaPGlite(pglite),
      // The embedded database is one session already.
      ownSessionFactory: async () => ({ factory: new PrismaPGlite(pglite), close: async () => {} }),
      read: pgliteReadPath(pglite, observer),
      health: async (timeoutMs: number) =>
        hold.problem() ?? (await healthOf(() => pglite.query('SELECT 1'), timeoutMs, 'the embedded database')),
      pool: null,
      withStartupLock: <T>(work: () => Promise<T>) => work(),
      close: async () => {
        try {
          await pglite.close();
        } finally {
          hold.release();
        }
      },
    };
  } catch (error) {
    hold.release();
    throw new DatabaseUnavailableError(`embedded database in ${dataDir} cannot be opened: ${(error as Error).message}`);
  }
}

/** host:port/database, never the credentials. */
export function describeServer(url: string): string {
  const u = new URL(url);
  return `${u.hostname}:${u.port || 5432}${u.pathname}`;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function waitForPostgres(pool: pg.Pool, url: string, options: OpenOptions, timeoutMs: number): Promise<void> {
  const started = Date.now();
  let lastSaid = 0;
  for (;;) {
    try {
      await pool.query({ text: 'SELECT 1', query_timeout: timeoutMs } as pg.QueryConfig);
      return;
    } catch (error) {
      const waited = Date.now() - started;
      const why = faultReason(error);
      if (!isUnavailable(error) || waited >= (options.waitMs ?? 0)) {
        const after = waited >= 1000 ? ` after ${Math.round(waited / 1000)} s` : '';
        throw new DatabaseUnavailableError(`cannot reach PostgreSQL at ${describeServer(url)}${after}: ${why}`);
      }
      if (lastSaid === 0 || Date.now() - lastSaid >= 5000) {
        options.onWait?.(`waiting for PostgreSQL at ${describeServer(url)} (${why})`);
        lastSaid = Date.now();
      }
      await sleep(1000);
    }
  }
}

async function openPostgres(url: string, observer: StatementObserver, options: OpenOptions) {
  const settings = options.pool ?? loadConfig({}).pool;
  const pool = new pg.Pool({
    connectionString: url,
    max: settings.size,
    connectionTimeoutMillis: settings.connectTimeoutMs,
    idleTimeoutMillis: settings.idleTimeoutMs,
    keepAlive: settings.keepAliveMs > 0,
    keepAliveInitialDelayMillis: settings.keepAliveMs,
    // Every statement is bounded on the server too; a transaction left open by a request that never finished is
    // ended by the server itself.
    statement_timeout: settings.statementTimeoutMs,
    idle_in_transaction_session_timeout: 60_000,
    application_name: 'package-listing-gateway',
  });
  pool.on('error', () => {}); // an idle client's error surfaces on the next query instead of crashing
  try {
    await waitForPostgres(pool, url, options, settings.queryTimeoutMs);
  } catch (error) {
    await pool.end().catch(() => {});
    throw error;
  }
  return {
    factory: new PrismaPg(pool),
    ownSessionFactory: async () => {
      const single = new pg.Pool({
        connectionString: url,
        max: 1,
        connectionTimeoutMillis: settings.connectTimeoutMs,
        application_name: 'package-listing-gateway',
      });
      single.on('error', () => {});
      return { factory: new PrismaPg(single), close: () => single.end() };
    },
    read: postgresReadPath(pool, observer, settings),
    health: (timeoutMs: number) =>
      healthOf(
        () => pool.query({ text: 'SELECT 1', query_timeout: timeoutMs } as pg.QueryConfig),
        timeoutMs,
        'PostgreSQL',
      ),
    pool: { total: () => pool.totalCount, idle: () => pool.idleCount, waiting: () => pool.waitingCount },
    async withStartupLock<T>(work: () => Promise<T>, onWait?: (line: string) => void): Promise<T> {
      const client = await pool.connect();
      try {
        let said = false;
        while (!(await client.query('SELECT pg_try_advisory_lock($1) AS locked', [STARTUP_LOCK])).rows[0]?.locked) {
          if (!said) onWait?.('waiting for another instance to finish migrating and seeding');
          said = true;
          await sleep(250);
        }
        try {
          return await work();
        } finally {
          await client.query('SELECT pg_advisory_unlock($1)', [STARTUP_LOCK]);
        }
      } finally {
        client.release();
      }
    },
    close: () => pool.end(),
  };
}

export async function openDatabase(config: DatabaseConfig, options: OpenOptions = {}): Promise<Database> {
  const statements = new StatementObserver();
  const opened =
    config.kind === 'pglite'
      ? await openPglite(config.dataDir, statements)
      : await openPostgres(config.url, statements, options);
  const adapterFactory = observeStatements(opened.factory, statements);
  let prisma: PrismaClient | undefined;
  const enableWrites = async () => {
    if (!prisma) {
      const { PrismaClient } = await import('../generated/prisma/client.js');
      prisma = new PrismaClient({ adapter: adapterFactory });
    }
    return prisma;
  };
  if (options.writes !== false) await enableWrites();
  return {
    kind: config.kind,
    get prisma(): PrismaClient {
      if (!prisma) throw new Error('the database was opened for reads only: enableWrites() first');
      return prisma;
    },
    enableWrites,
    async withOwnSession(work) {
      const own = await opened.ownSessionFactory();
      try {
        return await work(observeStatements(own.factory, statements));
      } finally {
        await own.close();
      }
    },
    statements,
    read: opened.read,
    health: (timeoutMs = 1000) => opened.health(timeoutMs),
    pool: opened.pool,
    withStartupLock: opened.withStartupLock,
    close: async () => {
      await prisma?.$disconnect();
      await opened.close();
    },
  };
}
