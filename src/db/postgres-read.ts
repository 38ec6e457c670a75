// The read path on PostgreSQL (see src/db/sql.ts for the model). A versioned session sends each statement on its
// own through the pool, wrapped to carry the listing's version, and checks every version against its first. A
// transaction session holds one connection in one read-only repeatable-read transaction (one snapshot), its
// statements one after the other. Every statement is bounded by DB_STATEMENT_TIMEOUT on the server (set on each
// connection) and, on this side, by DB_QUERY_TIMEOUT and what is left of the request's deadline, for a server that
// stopped answering; once the deadline has passed, no statement starts. A fault tells the session what to do
// (src/db/faults.ts): a lost connection or a replica's conflict marks it `lost` (the operation is made again
// elsewhere), a busy database and a spent deadline fail the request only. A statement prepared by name that a
// pooler in transaction mode refused is sent again unnamed (src/db/named-statements.ts). A replica found gone gives
// up the statements waiting on it at once, as lost (see ReadRouter.goneSignal).
import type pg from 'pg';
import { classify, DatabaseUnavailableError, isReadTimeout, isUnavailable } from './faults.js';
import type { NamedStatements } from './named-statements.js';
import {
  type Consistency,
  checkDeadline,
  DeadlinePassedError,
  type Listing,
  type ListingColumns,
  ListingMovedError,
  type ReadPath,
  type ReadSession,
  type SqlStatement,
  unwrapListing,
  withListingColumns,
} from './sql.js';
import { type StatementObserver, type StatementTarget, statementSpan } from './statements.js';

export interface PostgresReadSettings {
  statementTimeoutMs: number;
  /** Client-side bound on a statement, for a server that accepts and never answers. */
  queryTimeoutMs: number;
}

export interface ReadPathOptions {
  /**
   * Whether statements are prepared by name on this pool (not behind a pooler in transaction mode: a name lives
   * on one server connection); absent: never.
   */
  names?: NamedStatements | undefined;
  /** The database, as traces name it. */
  target?: StatementTarget | undefined;
  /** For a replica: told when a read finds its connection lost (the request's reads are then made elsewhere). */
  onLost?: (() => void) | undefined;
  /** Told the listing version a session's reads found (a replica may be ahead of its watch's last answer). */
  onVersion?: ((version: string) => void) | undefined;
  /** For a replica: the signal aborted when it is found gone (ReadRouter.goneSignal). */
  gone?: (() => AbortSignal | undefined) | undefined;
}

const foundGone = () => new DatabaseUnavailableError('database unavailable: the replica was found unreachable', 'lost');

/** `work`, or a lost fault as soon as `gone` is aborted (the statement itself then ends at its own timeout). */
function unlessGone<T>(gone: AbortSignal | undefined, work: () => Promise<T>): Promise<T> {
  if (!gone) return work();
  if (gone.aborted) return Promise.reject(foundGone());
  return new Promise<T>((resolve, reject) => {
    const giveUp = () => reject(foundGone());
    gone.addEventListener('abort', giveUp, { once: true });
    work()
      .then(resolve, reject)
      .finally(() => gone.removeEventListener('abort', giveUp));
  });
}

/** How a session runs one statement: on the pool, or on its own connection. */
type Runner = (config: pg.QueryConfig) => Promise<pg.QueryResult>;
/** A transaction session's runner: it ends, and is abandoned when its database is found gone. */
type SessionRunner = Runner & { end?: () => Promise<void>; abandon?: () => void; transaction?: boolean };

/**
 * Runs `statement`, by name while the pool's names are on; sent again unnamed when a pooler refused the name.
 * `again` false: the statement cannot be sent again where it failed (a transaction its error ended).
 */
async function runNamedOrNot(
  run: Runner,
  statement: SqlStatement,
  config: { values: unknown[]; query_timeout: number },
  names: NamedStatements | undefined,
  again = true,
): Promise<pg.QueryResult> {
  const named = statement.name !== undefined && names?.on === true;
  try {
    return await run({ ...config, ...(named ? { name: statement.name } : {}), text: statement.text } as pg.QueryConfig);
  } catch (error) {
    if (!named || !again || !names.refused(error)) throw error;
    return await run({ ...config, text: statement.text } as pg.QueryConfig);
  }
}

class PostgresSession implements ReadSession {
  private version: string | undefined;
  private count: number | undefined;
  moved = false;
  lost = false;

  constructor(
    private readonly runner: SessionRunner,
    private readonly observer: StatementObserver,
    private readonly settings: PostgresReadSettings,
    private readonly deadline: number,
    private readonly options: ReadPathOptions,
  ) {}

  async query<Row>(statement: SqlStatement, params: readonly unknown[] = []): Promise<Row[]> {
    return (await this.read<Row>(statement, params, false)).rows;
  }

  async withListing<Row>(statement: SqlStatement, params: readonly unknown[] = []) {
    const { rows } = await this.read<Row>(statement, params, true);
    return { rows, listing: this.knownListing() as Listing };
  }

  readVersion(): string | undefined {
    return this.version;
  }

  knownListing(): Listing | undefined {
    return this.version !== undefined && this.count !== undefined
      ? { version: this.version, count: this.count }
      : undefined;
  }

  private async read<Row>(statement: SqlStatement, params: readonly unknown[], count: boolean) {
    if (this.moved) throw new ListingMovedError(); // the operation is being given up: no more reads for it
    checkDeadline(this.deadline);
    const wrapped = withListingColumns(statement, count);
    this.observer.notify(statement.text);
    const started = performance.now();
    // Just past the deadline: the client hears TIMEOUT from the deadline first, then the statement is let go.
    const untilDeadline = this.deadline - Date.now() + 200;
    const gone = this.options.gone?.();
    let result: pg.QueryResult;
    try {
      result = await unlessGone(gone, () =>
        statementSpan(statement, 'postgresql', this.options.target, () =>
          runNamedOrNot(
            this.runner,
            wrapped,
            {
              values: params as unknown[],
              query_timeout: Math.max(1, Math.min(this.settings.queryTimeoutMs, untilDeadline)),
            },
            this.options.names,
            !this.runner.transaction,
          ),
        ),
      );
    } catch (error) {
      if (gone?.aborted) this.runner.abandon?.();
      // A pooler refused a name inside the transaction, which its error ended: the operation is made again in
      // another one (as for a move), its statements then unnamed.
      if (this.runner.transaction && this.options.names?.refused(error)) {
        this.moved = true;
        throw new ListingMovedError();
      }
      // Let go at the request's deadline: its timeout, which the client has heard already.
      if (isReadTimeout(error) && untilDeadline < this.settings.queryTimeoutMs) throw new DeadlinePassedError();
      const classified = classify(error);
      if (classified instanceof DatabaseUnavailableError && classified.kind !== 'busy') {
        this.lost = true;
        if (classified.kind === 'lost') this.options.onLost?.();
      }
      throw classified;
    } finally {
      this.observer.timed((performance.now() - started) / 1000);
    }
    const read = unwrapListing(result.rows as (Row & ListingColumns)[]);
    if (this.version === undefined) {
      this.version = read.version;
      this.options.onVersion?.(read.version);
    } else if (read.version !== this.version) {
      this.moved = true;
      throw new ListingMovedError();
    }
    if (read.count !== undefined) this.count = read.count;
    return read;
  }

  async end(): Promise<void> {
    await this.runner.end?.();
  }
}

/** One connection in one read-only repeatable-read transaction, its statements one after the other. */
function transactionRunner(pool: pg.Pool, settings: PostgresReadSettings, deadline: number) {
  let client: Promise<pg.PoolClient> | undefined;
  let broken = false;
  let ended = false;
  /** A connection runs one statement at a time (DataLoaders ask at once). */
  let queue: Promise<unknown> = Promise.resolve();
  const open = () => {
    client ??= (async () => {
      const connection = await pool.connect();
      // Just past the deadline: the client hears TIMEOUT from the deadline first, then the statement stops.
      const timeout = Math.max(1, Math.min(settings.statementTimeoutMs, deadline - Date.now() + 100));
      try {
        await connection.query({
          text: `BEGIN ISOLATION LEVEL REPEATABLE READ, READ ONLY; SET LOCAL statement_timeout = ${Math.round(timeout)}`,
          query_timeout: settings.queryTimeoutMs,
        } as pg.QueryConfig);
      } catch (error) {
        connection.release(true);
        throw error;
      }
      return connection;
    })();
    return client;
  };
  const run: SessionRunner & Required<Pick<SessionRunner, 'end' | 'abandon'>> = (config) => {
    if (ended) return Promise.reject(new Error('read session used after its end'));
    const next = queue.then(async () => {
      try {
        return await (await open()).query(config);
      } catch (error) {
        if (isUnavailable(error)) broken = true;
        throw error;
      }
    });
    queue = next.catch(() => {});
    return next;
  };
  run.transaction = true;
  // Its database found gone: the connection is closed under the statement still waiting on it, and never reused.
  run.abandon = () => {
    if (ended) return;
    ended = true;
    void client?.then(
      (connection) => connection.release(true),
      () => {},
    );
  };
  run.end = async () => {
    if (ended) return;
    ended = true; // no statement joins the queue from now on; the ones in it finish first
    await queue;
    if (!client) return;
    let connection: pg.PoolClient;
    try {
      connection = await client;
    } catch {
      return; // never connected
    }
    if (broken) return connection.release(true);
    try {
      await connection.query({ text: 'COMMIT', query_timeout: settings.queryTimeoutMs } as pg.QueryConfig);
      connection.release();
    } catch {
      connection.release(true); // the connection is in an unknown state: do not hand it to another request
    }
  };
  return run;
}

export function postgresReadPath(
  pool: pg.Pool,
  observer: StatementObserver,
  settings: PostgresReadSettings,
  options: ReadPathOptions,
): ReadPath {
  // On its own, each statement takes any connection of the pool and gives it back (pg's pool.query).
  const onPool: Runner = (config) => pool.query(config);
  return {
    ...(options.target && { role: options.target.role }),
    session(deadline = Number.POSITIVE_INFINITY, consistency: Consistency = 'versioned') {
      const runner = consistency === 'transaction' ? transactionRunner(pool, settings, deadline) : onPool;
      return new PostgresSession(runner, observer, settings, deadline, options);
    },
    async single<Row>(statement: SqlStatement, params: readonly unknown[] = []): Promise<Row[]> {
      observer.notify(statement.text);
      const started = performance.now();
      try {
        const result = await statementSpan(statement, 'postgresql', options.target, () =>
          runNamedOrNot(
            onPool,
            statement,
            { values: params as unknown[], query_timeout: settings.queryTimeoutMs },
            options.names,
          ),
        );
        return result.rows as Row[];
      } catch (error) {
        throw classify(error);
      } finally {
        observer.timed((performance.now() - started) / 1000);
      }
    },
  };
}
