// The listing's version: every write that changes the listing bumps it in its own transaction (see
// bumpListingVersion), so anything derived from the listing and kept (matching positions, cached responses) is
// keyed by it and never stale.
import { LISTING_VERSION, type SqlStatement } from '../db/sql.js';

/** The version as text (a bigint; "0" before the first write), read by `run` (a session's or a single query). */
export async function readListingVersion(
  run: (statement: SqlStatement) => Promise<{ version?: unknown }[]>,
): Promise<string> {
  const [row] = await run(LISTING_VERSION);
  return String(row?.version ?? '0');
}
