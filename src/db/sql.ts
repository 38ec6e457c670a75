// The read path's SQL, straight to the driver (pg or PGlite): rows as the driver gives them (decimals as their
// exact text), statements prepared once per connection where they have a name.
//
// Every request reads through one session. On PostgreSQL a session is ONE connection in ONE read-only
// repeatable-read transaction, opened by its first statement: the listing's count, its page and every nested
// record come from the same snapshot, so an import committing meanwhile cannot tear a page. Its statements get a
// statement timeout (the smaller of DB_STATEMENT_TIMEOUT and what is left of the request's deadline) and a
// client-side timeout for a server that stopped answering; once the deadline has passed no statement starts.
// The embedded PGlite is one connection in this process, and nothing else writes to it while the server runs
// (its data directory is locked), so a session there is simply the database.
import type { PGlite } from '@electric-sql/pglite';
import type pg from 'pg';
import { classify, DatabaseUnavailableError, isUnavailable } from './faults.js';
import type { StatementObserver } from './statements.js';

export interface SqlStatement {
  /** A name prepares the statement once per connection; leave it out for SQL that varies. */
  name?: string;
  text: string;
}

export interface SqlReader {
  query<Row = Record<string, unknown>>(statement: SqlStatement, params?: readonly unknown[]): Promise<Row[]>;
}

export interface ReadSession extends SqlReader {
  /** Ends the session (commits its transaction, hands its connection back); safe to call more than once. */
  end(): Promise<void>;
}

export interface ReadPath {
  /** `deadline`: the time (Date.now()) after which no statement starts. */
  session(deadline?: number): ReadSession;
  /** One statement on its own (no session, no snapshot shared with anything), bounded by the query timeout. */
  single<Row = Record<string, unknown>>(statement: SqlStatement, params?: readonly unknown[]): Promise<Row[]>;
}

/** The work of a request ran past its deadline: it has been answered already; its remaining reads are dropped. */
export class DeadlinePassedError extends Error {
  constructor() {
    super('the request ran past its deadline; no further statement is started');
  }
}

export interface PostgresReadSettings {
  statementTimeoutMs: number;
  /** Client-side bound on a statement, for a server that accepts and never answers. */
  queryTimeoutMs: number;
}

function checkDeadline(deadline: number): void {
  if (Date.now() >= deadline) throw new DeadlinePassedError();
}

class PostgresSession implements ReadSession {
  private client: Promise<pg.PoolClient> | undefined;
  private broken = false;
  private ended = false;
  /** The session's statements, one after the other: a connection runs one at a time (DataLoaders ask at once). */
  private queue: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly pool: pg.Pool,
    private readonly observer: StatementObserver,
    private readonly settings: PostgresReadSettings,
    private readonly deadline: number,
  ) {}

  private open(): Promise<pg.PoolClient> {
    this.client ??= (async () => {
      const client = await this.pool.connect();
      // Just past the deadline: the client hears TIMEOUT from the deadline first, then the statement stops.
      const timeout = Math.max(1, Math.min(this.settings.statementTimeoutMs, this.deadline - Date.now() + 100));
      try {
        await client.query({
          text: `BEGIN ISOLATION LEVEL REPEATABLE READ, READ ONLY; SET LOCAL statement_timeout = ${Math.round(timeout)}`,
          query_timeout: this.settings.queryTimeoutMs,
        } as pg.QueryConfig);
      } catch (error) {
        client.release(true);
        throw error;
      }
      return client;
    })();
    return this.client;
  }

  query<Row>(statement: SqlStatement, params: readonly unknown[] = []): Promise<Row[]> {
    if (this.ended) return Promise.reject(new Error('read session used after its end'));
    const run = this.queue.then(() => this.run<Row>(statement, params));
    this.queue = run.catch(() => {});
    return run;
  }

  private async run<Row>(statement: SqlStatement, params: readonly unknown[]): Promise<Row[]> {
    checkDeadline(this.deadline);
    const started = performance.now();
    try {
      const client = await this.open();
      this.observer.notify(statement.text);
      const result = await client.query({
        ...(statement.name ? { name: statement.name } : {}),
        text: statement.text,
        values: params as unknown[],
        query_timeout: this.settings.queryTimeoutMs,
      } as pg.QueryConfig);
      return result.rows as Row[];
    } catch (error) {
      if (isUnavailable(error)) this.broken = true;
      throw classify(error);
    } finally {
      this.observer.timed((performance.now() - started) / 1000);
    }
  }

  async end(): Promise<void> {
    if (this.ended) return;
    this.ended = true; // no statement joins the queue from now on; the ones in it finish first
    await this.queue;
    if (!this.client) return;
    let client: pg.PoolClient;
    try {
      client = await this.client;
    } catch {
      return; // never connected
    }
    if (this.broken) return client.release(true);
    try {
      await client.query({ text: 'COMMIT', query_timeout: this.settings.queryTimeoutMs } as pg.QueryConfig);
      client.release();
    } catch {
      client.release(true); // the connection is in an unknown state: do not hand it to another request
    }
  }
}

export function postgresReadPath(pool: pg.Pool, observer: StatementObserver, settings: PostgresReadSettings): ReadPath {
  return {
    session: (deadline = Number.POSITIVE_INFINITY) => new PostgresSession(pool, observer, settings, deadline),
    async single<Row>(statement: SqlStatement, params: readonly unknown[] = []): Promise<Row[]> {
      observer.notify(statement.text);
      const started = performance.now();
      try {
        const result = await pool.query({
          ...(statement.name ? { name: statement.name } : {}),
          text: statement.text,
          values: params as unknown[],
          query_timeout: settings.queryTimeoutMs,
        } as pg.QueryConfig);
        return result.rows as Row[];
      } catch (error) {
        throw classify(error);
      } finally {
        observer.timed((performance.now() - started) / 1000);
      }
    },
  };
}

export function pgliteReadPath(pglite: PGlite, observer: StatementObserver): ReadPath {
  async function query<Row>(statement: SqlStatement, params: readonly unknown[] = []): Promise<Row[]> {
    observer.notify(statement.text);
    const started = performance.now();
    try {
      return (await pglite.query<Row>(statement.text, params as unknown[])).rows;
    } catch (error) {
      throw pglite.closed ? new DatabaseUnavailableError('database unavailable: it is closed') : error;
    } finally {
      observer.timed((performance.now() - started) / 1000);
    }
  }
  return {
    session(deadline = Number.POSITIVE_INFINITY) {
      return {
        query<Row>(statement: SqlStatement, params?: readonly unknown[]): Promise<Row[]> {
          checkDeadline(deadline);
          return query<Row>(statement, params);
        },
        end: async () => {},
      };
    },
    single: query,
  };
}
