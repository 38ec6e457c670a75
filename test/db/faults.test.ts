// Busy is not lost: on a real PostgreSQL server (TEST_DATABASE_URL), a statement timeout, a full pool's wait and
// a spent deadline fail the request that met them and nothing else (its database is not reported lost, its
// operation is not made again elsewhere); a broken connection and a replica's conflict with recovery do mark the
// session for a re-run elsewhere. /healthz asks on a connection of its own, so a full pool does not make the
// instance look dead.
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { openDatabase } from '../../src/db/client.js';
import { DatabaseUnavailableError } from '../../src/db/faults.js';
import { postgresReadPath } from '../../src/db/postgres-read.js';
import { DeadlinePassedError, type SqlStatement } from '../../src/db/sql.js';
import { StatementObserver } from '../../src/db/statements.js';
import { createPostgresDatabaseUrl, onPostgres } from '../helpers/database.js';
import { startTcpProxy } from '../helpers/tcp-proxy.js';

let database: { url: string; drop: () => Promise<void> };
const pools: pg.Pool[] = [];
beforeAll(async () => {
  if (onPostgres) database = await createPostgresDatabaseUrl();
});
afterAll(async () => {
  await Promise.all(pools.map((pool) => pool.end().catch(() => {})));
  await database?.drop();
});

function newPool(config: pg.PoolConfig = {}): pg.Pool {
  const pool = new pg.Pool({ connectionString: database.url, ...config });
  pool.on('error', () => {});
  pools.push(pool);
  return pool;
}

/** A read path on `pool` as a replica's is made, with every report of a lost database in `lost`. */
function replicaRead(pool: pg.Pool, lost: string[], queryTimeoutMs = 7000) {
  const settings = { statementTimeoutMs: 5000, queryTimeoutMs };
  return postgresReadPath(pool, new StatementObserver(), settings, { onLost: () => lost.push('lost') });
}

const sleep = (seconds: number): SqlStatement => ({ text: `SELECT 1 AS one FROM pg_sleep(${seconds})` });
const failure = (reading: Promise<unknown>) =>
  reading.then(
    () => {
      throw new Error('the read succeeded');
    },
    (error: unknown) => error as Error,
  );

describe.runIf(onPostgres)('faults on a real PostgreSQL server', () => {
  it('a statement timeout (57014) fails the request only: its database is not lost', async () => {
    const lost: string[] = [];
    const session = replicaRead(newPool({ statement_timeout: 200 }), lost).session(Date.now() + 10_000);
    const error = await failure(session.query(sleep(2)));
    expect(error).toBeInstanceOf(DatabaseUnavailableError);
    expect(error.message).toMatch(/ran past its timeout/);
    expect(session.lost).toBe(false);
    expect(lost).toEqual([]);
  });

  it("a full pool's wait fails the request only", async () => {
    const lost: string[] = [];
    const pool = newPool({ max: 1, connectionTimeoutMillis: 200 });
    const held = await pool.connect();
    try {
      const session = replicaRead(pool, lost).session(Date.now() + 10_000);
      const error = await failure(session.query(sleep(0)));
      expect(error).toBeInstanceOf(DatabaseUnavailableError);
      expect(session.lost).toBe(false);
      expect(lost).toEqual([]);
    } finally {
      held.release();
    }
  });

  it("a statement let go at the request's deadline is that request's timeout, not a lost database", async () => {
    const lost: string[] = [];
    const session = replicaRead(newPool(), lost).session(Date.now() + 300);
    const started = Date.now();
    const error = await failure(session.query(sleep(3)));
    expect(error).toBeInstanceOf(DeadlinePassedError);
    expect(Date.now() - started).toBeLessThan(1500);
    expect(session.lost).toBe(false);
    expect(lost).toEqual([]);
  });

  it('a statement unanswered past DB_QUERY_TIMEOUT (no statement_timeout behind a pooler) fails the request only', async () => {
    const lost: string[] = [];
    const session = replicaRead(newPool(), lost, 300).session(Date.now() + 10_000);
    const error = await failure(session.query(sleep(2)));
    expect(error).toBeInstanceOf(DatabaseUnavailableError);
    expect(session.lost).toBe(false);
    expect(lost).toEqual([]);
  });

  it('a broken connection marks the session lost and reports its database', async () => {
    const target = new URL(database.url);
    const proxy = await startTcpProxy({ host: target.hostname, port: Number(target.port || 5432) });
    try {
      const lost: string[] = [];
      const pool = new pg.Pool({ connectionString: proxy.url(database.url), connectionTimeoutMillis: 1000 });
      pool.on('error', () => {});
      pools.push(pool);
      const read = replicaRead(pool, lost);
      await read.session().query(sleep(0)); // a connection in the pool
      proxy.setMode('reset');
      const session = read.session(Date.now() + 10_000);
      expect(await failure(session.query(sleep(0)))).toBeInstanceOf(DatabaseUnavailableError);
      expect(session.lost).toBe(true);
      expect(lost).toEqual(['lost']);
    } finally {
      await proxy.close();
    }
  });

  it('/healthz asks on a connection of its own: a request pool taken by long reads leaves it ready', async () => {
    const pool = { ...loadConfig({}).pool, size: 1, connectTimeoutMs: 500 };
    const db = await openDatabase({ kind: 'postgresql', url: database.url }, { writes: false, pool });
    try {
      const long = db.read.session().query(sleep(2));
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect(await db.health(1000)).toBeNull();
      await long;
    } finally {
      await db.close();
    }
  });
});

describe("a replica's conflict with recovery (SQLSTATE 40001)", () => {
  it('is a fault to make the operation again elsewhere, not a server error, and the replica is not lost', async () => {
    const conflict = Object.assign(new Error('canceling statement due to conflict with recovery'), { code: '40001' });
    const pool = {
      query: async () => {
        throw conflict;
      },
    } as unknown as pg.Pool;
    const lost: string[] = [];
    const session = replicaRead(pool, lost).session(Date.now() + 10_000);
    const error = await failure(session.query(sleep(0)));
    expect(error).toBeInstanceOf(DatabaseUnavailableError);
    expect(session.lost).toBe(true);
    expect(lost).toEqual([]);
  });
});
