// The read path on the embedded PGlite: one connection in this process, and nothing else writes to it while the
// server runs (its data directory is locked), so every read of a request sees one state of the listing without a
// check; a read that asks for the listing gets it from the same statement.
import type { PGlite } from '@electric-sql/pglite';
import { DatabaseUnavailableError } from './faults.js';
import {
  checkDeadline,
  type Listing,
  type ListingColumns,
  type ReadPath,
  type ReadSession,
  type SqlStatement,
  unwrapListing,
  withListingColumns,
} from './sql.js';
import { type StatementObserver, statementSpan } from './statements.js';

export function pgliteReadPath(pglite: PGlite, observer: StatementObserver): ReadPath {
  /** Runs `sent` (by default the statement itself); observers see the statement as the store wrote it. */
  async function query<Row>(
    statement: SqlStatement,
    params: readonly unknown[] = [],
    sent = statement,
  ): Promise<Row[]> {
    observer.notify(statement.text);
    const started = performance.now();
    try {
      return (
        await statementSpan(statement, 'pglite', undefined, () => pglite.query<Row>(sent.text, params as unknown[]))
      ).rows;
    } catch (error) {
      throw pglite.closed ? new DatabaseUnavailableError('database unavailable: it is closed') : error;
    } finally {
      observer.timed((performance.now() - started) / 1000);
    }
  }
  return {
    session(deadline = Number.POSITIVE_INFINITY): ReadSession {
      let listing: Listing | undefined;
      return {
        moved: false,
        lost: false,
        textOverBytes: true,
        query<Row>(statement: SqlStatement, params?: readonly unknown[]): Promise<Row[]> {
          checkDeadline(deadline);
          return query<Row>(statement, params);
        },
        async withListing<Row>(statement: SqlStatement, params?: readonly unknown[]) {
          checkDeadline(deadline);
          const rows = await query<Row & ListingColumns>(statement, params, withListingColumns(statement, true));
          const read = unwrapListing(rows);
          listing = { version: read.version, count: read.count as number };
          return { rows: read.rows, listing };
        },
        knownListing: () => listing,
        readVersion: () => listing?.version,
        end: async () => {},
      };
    },
    single: (statement, params) => query(statement, params),
  };
}
