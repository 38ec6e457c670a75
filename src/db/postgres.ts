// PostgreSQL: the primary (DATABASE_URL), which writes go to and reads fall back to; read replicas
// (DATABASE_REPLICA_URLS), which requests read from while they keep up (src/db/replicas.ts); and the direct
// connection (DATABASE_DIRECT_URL, else DATABASE_URL) for the work that needs a session of its own: migrations and
// the start-up lock. Behind a pooler in transaction mode (DATABASE_POOLER=transaction, e.g. PgBouncer) nothing
// relies on a session across transactions: statements are not prepared by name (a name lives on one server
// connection, and the next transaction may get another), and no setting is sent at connection time (the pooler
// refuses them; statement_timeout is then the pooler's or the role's). Without it, the first name such a pooler
// refuses turns names off for that database's pool (src/db/named-statements.ts), and a primary that refuses the
// settings at the first connection gets none from then on, nor do its replicas. The version watch and /healthz
// ask each database on a connection of their own, apart from the requests' pools: a burst of requests that fills
// a pool makes neither a replica nor the instance look gone.
import { PrismaPg } from '@prisma/adapter-pg';
import pg from 'pg';
import { type Config, loadConfig, type PoolSettings } from '../config.js';
import { DatabaseUnavailableError, faultReason, healthOf, isUnavailable } from './faults.js';
import type { WatchAnswer } from './freshness.js';
import { type NamedStatements, namedStatements, type PoolerStatus } from './named-statements.js';
import { postgresReadPath } from './postgres-read.js';
import { type PoolGauges, type ReadTarget, routeReads } from './replicas.js';
import { LISTING_VERSION } from './sql.js';
import type { StatementObserver, StatementTarget } from './statements.js';
import { withWholeScripts } from './whole-scripts.js';

export type PostgresConfig = Extract<Config['database'], { kind: 'postgresql' }>;

export interface PostgresOptions {
  pool?: PoolSettings;
  waitMs?: number;
  onWait?: (line: string) => void;
  onPoolerFound?: (line: string) => void;
}

/** Taken by every instance while it migrates and seeds at start ("listing" in ASCII). */
const STARTUP_LOCK = 0x6c697374;
const APPLICATION = 'package-listing-gateway';
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** host:port/database, never the credentials. */
export function describeServer(url: string): string {
  const u = new URL(url);
  return `${u.hostname}:${u.port || 5432}${u.pathname}`;
}

/** The database at `url` as its statements' spans name it. */
function statementTarget(role: string, url: string): StatementTarget {
  const u = new URL(url);
  return { role, address: u.hostname.replace(/^\[|\]$/g, ''), port: Number(u.port || 5432) };
}

/**
 * A statement's memory for a sort or a bitmap. PostgreSQL's default 4 MB turns the bitmap of a search matching
 * 415,000 of 1,000,000 packages lossy, and every row of a lossy page is matched again: its first read took 4.1 s
 * against 1.6 s with 16 MB. A request's other statements read by position and never come near it. Behind a pooler
 * it is the role's or the server's setting (docs/operations.md).
 */
const WORK_MEM = '16MB';

/** `quiet`: no setting sent at connection time (behind a pooler). */
function newPool(url: string, settings: PoolSettings, quiet: boolean, max = settings.size): pg.Pool {
  const pool = new pg.Pool({
    connectionString: url,
    max,
    connectionTimeoutMillis: settings.connectTimeoutMs,
    idleTimeoutMillis: settings.idleTimeoutMs,
    keepAlive: settings.keepAliveMs > 0,
    keepAliveInitialDelayMillis: settings.keepAliveMs,
    application_name: APPLICATION,
    // Every statement is bounded on the server too; a transaction left open by a request that never finished is
    // ended by the server itself. A pooler refuses these at connection time.
    ...(quiet
      ? {}
      : {
          statement_timeout: settings.statementTimeoutMs,
          idle_in_transaction_session_timeout: 60_000,
          options: `-c work_mem=${WORK_MEM}`,
        }),
  });
  pool.on('error', () => {}); // an idle client's error surfaces on the next query instead of crashing
  return pool;
}

/**
 * A setting sent at connection time refused (08P01): a pooler (PgBouncer) in front, which cannot keep settings per
 * client and refuses those its ignore_startup_parameters does not list (PgBouncer's default lists none).
 */
function refusesSettings(error: unknown): boolean {
  const e = error as { code?: unknown; message?: unknown } | null;
  return e?.code === '08P01' && /unsupported startup parameter/i.test(String(e.message));
}

/** Resolves once the server answers, with why when it refused the connection's settings (no use waiting then). */
async function waitForPostgres(
  pool: pg.Pool,
  url: string,
  options: PostgresOptions,
  timeoutMs: number,
): Promise<{ settingsRefused?: string }> {
  const started = Date.now();
  let lastSaid = 0;
  for (;;) {
    try {
      await pool.query({ text: 'SELECT 1', query_timeout: timeoutMs } as pg.QueryConfig);
      return {};
    } catch (error) {
      const waited = Date.now() - started;
      const why = faultReason(error);
      if (refusesSettings(error)) return { settingsRefused: why };
      if (!isUnavailable(error) || waited >= (options.waitMs ?? 0)) {
        // Given up at DATABASE_WAIT: say that wait (0.5 s, 30 s), not the milliseconds the last try ran over it.
        const shown = Math.min(waited, options.waitMs ?? 0);
        const after = shown >= 100 ? ` after ${Number((shown / 1000).toFixed(1))} s` : '';
        throw new DatabaseUnavailableError(`cannot reach PostgreSQL at ${describeServer(url)}${after}: ${why}`);
      }
      if (lastSaid === 0 || Date.now() - lastSaid >= 5000) {
        options.onWait?.(`waiting for PostgreSQL at ${describeServer(url)} (${why})`);
        lastSaid = Date.now();
      }
      // A try a second, the last one when DATABASE_WAIT is spent, not a whole second later.
      await sleep(Math.max(50, Math.min(1000, (options.waitMs ?? 0) - waited)));
    }
  }
}

/** The listing version, and how far along the WAL the server is: replayed on a standby, written on a primary. */
const WATCHED = `SELECT v.version, (CASE WHEN pg_is_in_recovery() THEN pg_last_wal_replay_lsn() ELSE pg_current_wal_lsn()
  END - '0/0'::pg_lsn)::text AS wal FROM (${LISTING_VERSION.text}) v`;
/** Servers that refused to say their WAL position (a role without the right): asked the version alone. */
const walRefused = new WeakSet<pg.Pool>();

async function watchAnswer(probe: pg.Pool): Promise<WatchAnswer> {
  const ask = (text: string) => probe.query({ text, query_timeout: 1000 } as pg.QueryConfig);
  let result: pg.QueryResult;
  if (walRefused.has(probe)) result = await ask(LISTING_VERSION.text);
  else {
    try {
      result = await ask(WATCHED);
    } catch (error) {
      if (isUnavailable(error)) throw error;
      walRefused.add(probe);
      result = await ask(LISTING_VERSION.text);
    }
  }
  const row = result.rows[0] as { version: unknown; wal?: string | null } | undefined;
  return { version: String(row?.version), wal: row?.wal ? BigInt(row.wal.split('.')[0] as string) : null };
}

const gauges = (pool: pg.Pool): PoolGauges => ({
  total: () => pool.totalCount,
  idle: () => pool.idleCount,
  waiting: () => pool.waitingCount,
});

/**
 * The primary's pool once it answers, and whether connections go without settings: behind a declared pooler, or
 * one that refused them (then told, and opened again without them).
 */
async function openPrimary(config: PostgresConfig, settings: PoolSettings, options: PostgresOptions) {
  let quiet = config.pooler === 'transaction';
  for (;;) {
    const pool = newPool(config.url, settings, quiet);
    let answer: { settingsRefused?: string };
    try {
      answer = await waitForPostgres(pool, config.url, options, settings.queryTimeoutMs);
    } catch (error) {
      await pool.end().catch(() => {});
      throw error;
    }
    if (answer.settingsRefused === undefined) return { pool, quiet };
    await pool.end().catch(() => {});
    // No setting was sent, so the refusal is of something else: said as any other failure to connect.
    if (quiet)
      throw new DatabaseUnavailableError(
        `cannot reach PostgreSQL at ${describeServer(config.url)}: ${answer.settingsRefused}`,
      );
    quiet = true;
    options.onPoolerFound?.(
      `primary: ${describeServer(config.url)} refused the settings sent at connection time (${answer.settingsRefused}), ` +
        'as a pooler (PgBouncer) does; connections go without them from now on, so DB_STATEMENT_TIMEOUT is not ' +
        'set on the server: set statement_timeout on the role or the pooler. Behind a pooler in transaction mode, ' +
        'set DATABASE_POOLER=transaction.',
    );
  }
}

export async function openPostgres(config: PostgresConfig, observer: StatementObserver, options: PostgresOptions) {
  const settings = options.pool ?? loadConfig({}).pool;
  const pooled = config.pooler === 'transaction';
  const directUrl = config.directUrl ?? config.url;
  const { pool, quiet } = await openPrimary(config, settings, options);
  // The watch's and the health check's own connections: two on the primary (both ask it), one on a replica.
  // Replicas go as the primary does: one pooler is usually in front of them all (DATABASE_POOLER is one setting).
  const primaryProbe = newPool(config.url, settings, quiet, 2);
  const replicaUrls = config.replicaUrls ?? [];
  const replicaPools = replicaUrls.map((url) => newPool(url, settings, quiet));
  const replicaProbes = replicaUrls.map((url) => newPool(url, settings, quiet, 1));
  // One switch per pool: the primary's is shared by its two read paths.
  const names = new Map<string, NamedStatements>();
  const namesOf = (role: string) => {
    let found = names.get(role);
    if (!found) {
      found = namedStatements(role, !pooled, (line) => options.onPoolerFound?.(line));
      names.set(role, found);
    }
    return found;
  };
  const target = (role: string, url: string, targetPool: pg.Pool, probe: pg.Pool): ReadTarget => ({
    role,
    pool: gauges(targetPool),
    read: postgresReadPath(targetPool, observer, settings, {
      names: namesOf(role),
      target: statementTarget(role, url),
      onLost: () => router.lost(role),
      gone: () => router.goneSignal(role),
      onVersion: (version) => router.seen(role, version),
    }),
    version: () => watchAnswer(probe),
  });
  const router = await routeReads(
    target('primary', config.url, pool, primaryProbe),
    replicaPools.map((replicaPool, i) =>
      target(`replica ${i + 1}`, replicaUrls[i] as string, replicaPool, replicaProbes[i] as pg.Pool),
    ),
    config.replicaMaxLagMs ?? 10_000,
  );
  return {
    factory: new PrismaPg(pool),
    /** The direct connection, one session of its own (migrations: see Database.withOwnSession). */
    ownSessionFactory: async () => {
      const single = newPool(directUrl, settings, quiet && config.directUrl === undefined, 1);
      return { factory: withWholeScripts(new PrismaPg(single), single), close: () => single.end() };
    },
    read: postgresReadPath(pool, observer, settings, {
      names: namesOf('primary'),
      target: statementTarget('primary', config.url),
    }),
    router,
    health: async (timeoutMs: number) => {
      const check = () => primaryProbe.query({ text: 'SELECT 1', query_timeout: timeoutMs } as pg.QueryConfig);
      const reason = await healthOf(check, timeoutMs, 'PostgreSQL');
      // The primary away, reads still have a replica: ready (imports wait for the primary).
      if (reason && router.statuses().some((status) => status.role !== 'primary' && status.serving)) return null;
      return reason;
    },
    pool: gauges(pool),
    /** Each database by role, and whether a pooler in transaction mode was found in front of it. */
    poolers: (): PoolerStatus[] => [...names].map(([role, each]) => ({ role, detected: each.detected })),
    /**
     * Migrations and seeding one instance at a time: a transaction-scoped advisory lock, held by a transaction
     * on the direct connection while `work` runs (a session-level lock taken through a pooler could stay held by
     * a server connection the pooler keeps).
     */
    async withStartupLock<T>(work: () => Promise<T>, onWait?: (line: string) => void): Promise<T> {
      const client = new pg.Client({ connectionString: directUrl, application_name: APPLICATION });
      client.on('error', () => {});
      await client.connect();
      try {
        await client.query('BEGIN');
        let said = false;
        while (
          !(await client.query('SELECT pg_try_advisory_xact_lock($1) AS locked', [STARTUP_LOCK])).rows[0]?.locked
        ) {
          if (!said) onWait?.('waiting for another instance to finish migrating and seeding');
          said = true;
          await sleep(250);
        }
        try {
          return await work();
        } finally {
          await client.query('COMMIT').catch(() => {});
        }
      } finally {
        await client.end().catch(() => {});
      }
    },
    close: async () => {
      router.close();
      await Promise.all([pool, primaryProbe, ...replicaPools, ...replicaProbes].map((each) => each.end()));
    },
  };
}
