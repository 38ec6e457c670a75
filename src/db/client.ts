// Opens the database from the validated config: PGlite in-process (the default) or a PostgreSQL server. One SQL
// dialect either way. Reads go through the read path (src/db/sql.ts); writes and migrations through Prisma and its
// schema engine, on the same connections. Every statement passes the StatementObserver.
import type { SqlMigrationAwareDriverAdapterFactory } from '@prisma/driver-adapter-utils';
import type { Config, PoolSettings } from '../config.js';
import type { PrismaClient } from '../generated/prisma/client.js';
import { holdDataDir, isNewDataDir } from './data-dir.js';
import { readTemplate } from './embedded-template.js';
import { DatabaseUnavailableError, healthOf } from './faults.js';
import type { PoolerStatus } from './named-statements.js';
import { pgliteReadPath } from './pglite-read.js';
import { openPostgres } from './postgres.js';
import type { DatabaseStatus, PoolGauges, ReadRouter } from './replicas.js';
import type { ReadPath } from './sql.js';
import { observeStatements, StatementObserver } from './statements.js';

export type DatabaseConfig = Config['database'];

export type { PoolGauges };
export { DatabaseUnavailableError };

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
  /** The primary's read path (the start, jobs, tests); requests read through `reads`. */
  read: ReadPath;
  /** Where each request reads: a replica while one is serving, else the primary (src/db/replicas.ts). */
  reads: Pick<ReadRouter, 'forRequest' | 'pick' | 'staleMs'>;
  /** Each database by role (primary, replica N) when there are replicas; none otherwise. */
  statuses(): DatabaseStatus[];
  /** Why the database cannot serve now, in one line, or null when it can; answers within `timeoutMs`. */
  health(timeoutMs?: number): Promise<string | null>;
  /** The connection pool's gauges (PostgreSQL only). */
  pool: PoolGauges | null;
  /** Each PostgreSQL database by role, and whether a pooler in transaction mode was found in front of it. */
  poolers(): PoolerStatus[];
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
  /**
   * Told, in one line each, of a pooler found where DATABASE_POOLER=transaction was not set: once per database
   * whose statement names it refused (names then off), once when the primary refused the connection's settings.
   */
  onPoolerFound?: (line: string) => void;
}

const IN_MEMORY = 'memory://';
/**
 * The embedded PostgreSQL's memory: its buffers live in this process's WebAssembly memory, which never shrinks.
 * PGlite's defaults (128 MB of shared buffers, 64 MB for maintenance) are sized for a server of its own; the
 * listing's tables are read through the operating system's file cache anyway. 120 MB less resident memory.
 */
const PGLITE_SETTINGS = ['shared_buffers = 16MB', 'maintenance_work_mem = 16MB', 'wal_buffers = 1MB'];

/**
 * The last FATAL or PANIC line PostgreSQL writes to its log while PGlite starts: what a failed start is told, where
 * PGlite's own error names only its exit. Heard until `stop`; nothing after.
 */
function lastProblemSaid() {
  let last: string | undefined;
  let hearing = true;
  return {
    hear: (line: string) => {
      const problem = hearing ? /\b(?:FATAL|PANIC):\s+(.*)/.exec(line)?.[1] : undefined;
      if (problem) last = problem.slice(0, 300);
      return false;
    },
    stop: () => {
      hearing = false;
    },
    last: () => last,
  };
}

async function openPglite(dataDir: string, observer: StatementObserver) {
  const inMemory = dataDir === IN_MEMORY;
  const hold = inMemory ? { release: () => {}, problem: () => null } : holdDataDir(dataDir);
  const startupSaid = lastProblemSaid();
  try {
    // Loaded only for the embedded engine: a PostgreSQL deployment does not carry PGlite in memory.
    const [{ PGlite }, { PrismaPGlite }] = await Promise.all([
      import('@electric-sql/pglite'),
      import('pglite-prisma-adapter'),
    ]);
    // A new directory gets the ready-made empty cluster when there is one (src/db/embedded-template.ts).
    const template = inMemory || !isNewDataDir(dataDir) ? undefined : readTemplate();
    const pglite = await PGlite.create(inMemory ? undefined : dataDir, {
      postgresqlconf: PGLITE_SETTINGS,
      ...(template ? { loadDataDir: template } : {}),
      onStderr: startupSaid.hear,
    });
    startupSaid.stop();
    const read = pgliteReadPath(pglite, observer);
    return {
      factory: new PrismaPGlite(pglite),
      // The embedded database is one session already.
      ownSessionFactory: async () => ({ factory: new PrismaPGlite(pglite), close: async () => {} }),
      read,
      // One database, read by every request.
      router: {
        forRequest: () => read,
        pick: (avoid?: ReadonlySet<object>) => (avoid?.has(read) ? undefined : read),
        staleMs: 0,
        statuses: () => [],
      },
      health: async (timeoutMs: number) =>
        hold.problem() ?? (await healthOf(() => pglite.query('SELECT 1'), timeoutMs, 'the embedded database')),
      pool: null,
      poolers: () => [],
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
    // PGlite says only that it "failed to initialize properly"; PostgreSQL's own words say why.
    const said = startupSaid.last();
    throw new DatabaseUnavailableError(
      `embedded database in ${dataDir} cannot be opened: ${(error as Error).message}${said ? ` (PostgreSQL: ${said})` : ''}`,
    );
  }
}

export async function openDatabase(config: DatabaseConfig, options: OpenOptions = {}): Promise<Database> {
  const statements = new StatementObserver();
  const opened =
    config.kind === 'pglite'
      ? await openPglite(config.dataDir, statements)
      : await openPostgres(config, statements, options);
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
    reads: opened.router,
    statuses: () => opened.router.statuses(),
    health: (timeoutMs = 1000) => opened.health(timeoutMs),
    pool: opened.pool,
    poolers: opened.poolers,
    withStartupLock: opened.withStartupLock,
    close: async () => {
      await prisma?.$disconnect();
      await opened.close();
    },
  };
}
