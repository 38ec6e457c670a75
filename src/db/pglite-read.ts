// The read path on the embedded PGlite: one connection in this process. Its statements run one at a time, but a
// live import (src/import/live-server.ts) runs its transaction between two statements of a request as readily as
// anywhere else, so, as on PostgreSQL (src/db/sql.ts), every statement carries the listing's version and a session
// whose reads met two versions is marked moved: the operation is made again (src/graphql/read-session.ts). Not in
// one transaction: it would hold the one connection for the whole operation, and an operation waiting for a read
// another request shares (src/listing/matches.ts) would then wait for ever. Made again, its reads are checked the
// same way: an import holds the connection from its first write to its commit, so a run made after one meets
// another only if a second import commits during it.
import type { PGlite } from '@electric-sql/pglite';
import { DatabaseUnavailableError } from './faults.js';
import {
  checkDeadline,
  type Listing,
  type ListingColumns,
  ListingMovedError,
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
      let version: string | undefined;
      let listing: Listing | undefined;
      let moved = false;
      /** The statement with the listing's version on its rows; its rows, once the version is found the session's. */
      async function read<Row>(statement: SqlStatement, params: readonly unknown[] | undefined, count: boolean) {
        if (moved) throw new ListingMovedError(); // the operation is being given up: no more reads for it
        checkDeadline(deadline);
        const rows = await query<Row & ListingColumns>(statement, params, withListingColumns(statement, count));
        const found = unwrapListing(rows);
        version ??= found.version;
        if (found.version !== version) {
          moved = true;
          throw new ListingMovedError();
        }
        return found;
      }
      return {
        get moved() {
          return moved;
        },
        lost: false,
        textOverBytes: true,
        async query<Row>(statement: SqlStatement, params?: readonly unknown[]): Promise<Row[]> {
          return (await read<Row>(statement, params, false)).rows;
        },
        async withListing<Row>(statement: SqlStatement, params?: readonly unknown[]) {
          const found = await read<Row>(statement, params, true);
          listing = { version: found.version, count: found.count as number };
          return { rows: found.rows, listing };
        },
        knownListing: () => listing,
        readVersion: () => version,
        end: async () => {},
      };
    },
    single: (statement, params) => query(statement, params),
  };
}
