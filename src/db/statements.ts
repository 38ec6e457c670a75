// Observes every SQL statement a driver adapter runs, so metrics can count them and tests can assert on them
// (an N+1 regression then fails a test). Wraps the adapter factory; the adapters it hands out behave as before.
import type {
  SqlDriverAdapter,
  SqlMigrationAwareDriverAdapterFactory,
  SqlQuery,
  Transaction,
} from '@prisma/driver-adapter-utils';
import { inSpan, SpanKind } from '../tracing.js';
import { LISTING_STATE } from './sql.js';

export type StatementListener = (sql: string) => void;

/** A set of listeners that can be added and removed while the client runs. */
export class StatementObserver {
  private readonly listeners = new Set<StatementListener>();
  private readonly durations = new Set<(seconds: number) => void>();

  /** Durations of the read path's statements, in seconds (for the query duration histogram). */
  listenDurations(listener: (seconds: number) => void): () => void {
    this.durations.add(listener);
    return () => this.durations.delete(listener);
  }

  timed(seconds: number): void {
    for (const listener of this.durations) listener(seconds);
  }

  listen(listener: StatementListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /**
   * Runs `work` and returns the statements executed meanwhile (only meaningful when nothing else runs). The version
   * watch's read, which each instance makes every LISTING_WATCH_INTERVAL on its own, is left out: it is no work's.
   */
  async record<T>(work: () => Promise<T>): Promise<{ result: T; statements: string[] }> {
    const statements: string[] = [];
    const stop = this.listen((sql) => {
      if (sql !== LISTING_STATE.text) statements.push(sql);
    });
    try {
      return { result: await work(), statements };
    } finally {
      stop();
    }
  }

  notify(sql: string): void {
    for (const listener of this.listeners) listener(sql);
  }
}

const QUERY_METHODS = new Set(['queryRaw', 'executeRaw']);

function observeQueryable<T extends object>(target: T, observer: StatementObserver): T {
  return new Proxy(target, {
    get(object, property) {
      const value = Reflect.get(object, property, object);
      if (typeof value !== 'function') return value;
      if (QUERY_METHODS.has(property as string)) {
        return (query: SqlQuery) => {
          observer.notify(query.sql);
          return value.call(object, query);
        };
      }
      if (property === 'startTransaction') {
        return async (...args: unknown[]) => {
          const transaction: Transaction = await value.apply(object, args);
          return observeQueryable(transaction, observer);
        };
      }
      return value.bind(object);
    },
  });
}

export function observeStatements(
  factory: SqlMigrationAwareDriverAdapterFactory,
  observer: StatementObserver,
): SqlMigrationAwareDriverAdapterFactory {
  return {
    provider: factory.provider,
    adapterName: factory.adapterName,
    connect: async (): Promise<SqlDriverAdapter> => observeQueryable(await factory.connect(), observer),
    connectToShadowDb: () => factory.connectToShadowDb(),
  };
}

/** The database a statement is sent to, as its span names it. */
export interface StatementTarget {
  /** `primary`, `replica 1`, ... */
  role: string;
  address: string;
  port: number;
}

/**
 * A statement of the read path as a client span (when tracing is on: src/tracing.ts): named by the statement's
 * name, with the database system, the database it went to (its role, `db.server.role`, and `server.address`,
 * `server.port`) and the rows it returned; never its parameter values.
 */
export function statementSpan<R extends { rows: unknown[] }>(
  statement: { name?: string },
  system: 'postgresql' | 'pglite',
  target: StatementTarget | undefined,
  run: () => Promise<R>,
): Promise<R> {
  const name = statement.name ?? 'statement';
  const attributes = {
    'db.system.name': system,
    'db.query.summary': name,
    ...(target && { 'db.server.role': target.role, 'server.address': target.address, 'server.port': target.port }),
  };
  return inSpan(`SQL ${name}`, { kind: SpanKind.CLIENT, attributes }, async (span) => {
    const result = await run();
    span?.setAttribute('db.response.returned_rows', result.rows.length);
    return result;
  });
}
