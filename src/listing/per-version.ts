// What depends only on the listing version, kept for the newest version asked for (the one worth keeping): read
// once per version and process, however many requests ask. A failed read is not kept.
import type { ReadPath, SqlReader, SqlStatement } from '../db/sql.js';

/** A keeper of one value per listing version: `(version, read)` gives the kept value, or reads it. */
export function keptPerVersion<T>(): (version: string, read: () => Promise<T>) => Promise<T> {
  let kept: { version: string; value: Promise<T> } | undefined;
  return (version, read) => {
    if (kept?.version === version) return kept.value;
    const slot = { version, value: read() };
    kept = slot;
    slot.value.catch(() => {
      if (kept === slot) kept = undefined;
    });
    return slot.value;
  };
}

/**
 * A part of the listing summary (src/db/write/listing-summary.ts), kept per version: read by the first request of
 * a version that needs it, unless the instance read it ahead (src/listing/warm-up.ts).
 */
export interface SummaryPart<T> {
  /** The part in the listing version `sql` reads: kept, else read on `sql`. */
  of(sql: SqlReader, version: string): Promise<T>;
  /** Reads the part now and keeps it under the version its row was made for (none before the first write). */
  readAhead(read: Pick<ReadPath, 'single'>): Promise<void>;
}

/** A summary part read with `statement` (one row, its `version` the listing version it was made for). */
export function summaryPart<Row extends { version: string }, T>(
  statement: SqlStatement,
  decode: (row: Row | undefined) => T,
): SummaryPart<T> {
  const kept = keptPerVersion<T>();
  return {
    of: (sql, version) => kept(version, async () => decode((await sql.query<Row>(statement))[0])),
    async readAhead(read) {
      const [row] = await read.single<Row>(statement);
      if (row) await kept(row.version, async () => decode(row));
    },
  };
}
