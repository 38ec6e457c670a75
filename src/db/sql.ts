// The read path: what the store reads through. Rows come as the driver gives them (decimals as their exact text),
// statements with a name are prepared once per connection.
//
// Every request reads through one session, and everything a session reads comes from one state of the listing.
// Every write that changes the listing also changes its version, in the same transaction (bumpListingVersion), so
// statements that saw the same version saw the same data. A session's statements therefore run on their own, with
// no transaction around them (on PostgreSQL one round trip each, on any pooled connection), each carrying the
// version it saw; when one sees another version than the session's first (an import committed in between, which is
// rare), the session is marked moved, and the operation is made again: on PostgreSQL in a read-only
// repeatable-read transaction on one connection (src/graphql/read-session.ts), on the embedded database checked
// the same way again (src/db/pglite-read.ts). A statement can also bring the listing's size with its rows
// (`withListing`), so a page needs no statement of its own to count the listing.

export interface SqlStatement {
  /** A name prepares the statement once per connection; leave it out for SQL that varies. */
  name?: string;
  text: string;
}

/** The state of the listing a statement saw: its version and its size (listed packages). */
export interface Listing {
  version: string;
  count: number;
}

export interface SqlReader {
  query<Row = Record<string, unknown>>(statement: SqlStatement, params?: readonly unknown[]): Promise<Row[]>;
}

export interface ReadSession extends SqlReader {
  /** The rows, and the listing as the same statement saw it. */
  withListing<Row = Record<string, unknown>>(
    statement: SqlStatement,
    params?: readonly unknown[],
  ): Promise<{ rows: Row[]; listing: Listing }>;
  /** The listing as this session's reads have seen it, once a `withListing` read has run. */
  knownListing(): Listing | undefined;
  /**
   * The listing version this session's reads saw (they all carry it). What a cached answer is kept under
   * (src/cache/response-cache.ts).
   */
  readVersion(): string | undefined;
  /** True once a read met another listing version than the session's first: the operation must be made again. */
  readonly moved: boolean;
  /**
   * True once a read found its database unable to serve it (its connection lost, or a replica cancelling the
   * statement for a change it replays): the operation must be made again on another database.
   */
  readonly lost: boolean;
  /** Ends the session (commits its transaction, if any); safe to call more than once. */
  end(): Promise<void>;
  /**
   * Long texts are cheaper read as text than as bytea (the embedded engine: its bytea comes as hex, decoded in
   * JavaScript, eight times the cost of its text); absent: read them as bytes (pg decodes text into UTF-16).
   */
  readonly textOverBytes?: boolean;
}

/**
 * `versioned`: statements on their own, checked by version (the default); `transaction`: every statement in one
 * read-only repeatable-read transaction on one connection (for an operation made again after a session moved;
 * the embedded database checks by version again, see src/db/pglite-read.ts).
 */
export type Consistency = 'versioned' | 'transaction';

export interface ReadPath {
  /** Which database it reads (`primary`, `replica 1`, ...), for traces; none for the embedded database. */
  readonly role?: string;
  /** `deadline`: the time (Date.now()) after which no statement starts. */
  session(deadline?: number, consistency?: Consistency): ReadSession;
  /** One statement on its own (no session, no version check), bounded by the query timeout. */
  single<Row = Record<string, unknown>>(statement: SqlStatement, params?: readonly unknown[]): Promise<Row[]>;
}

/** The work of a request ran past its deadline: it has been answered already; its remaining reads are dropped. */
export class DeadlinePassedError extends Error {
  constructor() {
    super('the request ran past its deadline; no further statement is started');
  }
}

/** A read met another listing version than the session's first; the operation is made again (never shown). */
export class ListingMovedError extends Error {
  constructor() {
    super('the listing changed between the reads of one operation');
  }
}

export function checkDeadline(deadline: number): void {
  if (Date.now() >= deadline) throw new DeadlinePassedError();
}

const VERSION = 'coalesce((SELECT version FROM listing_version WHERE id = 1), 0)::text';

/** The listing's version alone: a bigint as text, "0" before the first write (see bumpListingVersion). */
export const LISTING_VERSION: SqlStatement = { name: 'listing_version', text: `SELECT ${VERSION} AS version` };
const COUNT = '(SELECT coalesce(max(position) + 1, 0)::int FROM listing_entry)';

/** The listing's version and size, read together (the version watch, src/listing/version-watch.ts). */
export const LISTING_STATE: SqlStatement = {
  name: 'listing_state_read',
  text: `SELECT ${VERSION} AS version, ${COUNT} AS count`,
};

/** The columns the wrapping adds to every row (see `withListingColumns`). */
export interface ListingColumns {
  __version: string;
  __count?: number;
  /** Null on the one row of a statement that found none: it carries the listing, and no data. */
  __row: true | null;
}

const wrapped = new Map<string, SqlStatement>();

/**
 * The statement with the listing's version (and, with `count`, its size) on every row, and exactly one row, of
 * nulls, when it finds none: `x` is a LATERAL subquery on a one-row source, so it runs once, in its own order.
 */
export function withListingColumns(statement: SqlStatement, count: boolean): SqlStatement {
  const key = `${count ? 'c' : 'v'}|${statement.name ?? ''}|${statement.text}`;
  let found = wrapped.get(key);
  if (!found) {
    const listing = count ? `${VERSION} AS version, ${COUNT} AS count` : `${VERSION} AS version`;
    found = {
      ...(statement.name ? { name: `${statement.name}_${count ? 'lc' : 'lv'}` } : {}),
      // OFFSET 0 keeps the statement a subquery of its own: pulled up into the outer query, its expressions
      // (a photographer's JSON subqueries) were evaluated twice, once more for the marker column.
      text: `SELECT l.version AS "__version"${count ? ', l.count AS "__count"' : ''}, x.*
        FROM (SELECT ${listing}) l
        LEFT JOIN LATERAL (SELECT true AS "__row", s.* FROM (${statement.text}) s OFFSET 0) x ON true`.replace(
        /\s+/g,
        ' ',
      ),
    };
    // Statement texts are the store's own, a bounded set; one that varies with the request goes unnamed and is
    // kept only while the map is small.
    if (statement.name || wrapped.size < 256) wrapped.set(key, found);
  }
  return found;
}

/** The listing a wrapped statement's rows carry, and its rows (none for the row of nulls). */
export function unwrapListing<Row>(rows: (Row & ListingColumns)[]): { rows: Row[]; version: string; count?: number } {
  const first = rows[0];
  if (!first) throw new Error('a statement wrapped with the listing returned no row');
  return { rows: first.__row === null ? [] : rows, version: first.__version, count: first.__count };
}
