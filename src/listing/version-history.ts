// Which listing versions a new one superseded, from the record of commits (listing_version_history, written with
// each version by bumpListingVersion). Versions are random, so "older" can only come from there: a version watch
// that last saw P and now sees V learns only of P, while every version committed between them was current for a
// moment and may have been read, and its answers kept, by any instance.
import type { ReadPath, SqlStatement } from '../db/sql.js';

const SUPERSEDED: SqlStatement = {
  name: 'listing_versions_superseded',
  text: `WITH upto AS (
      SELECT max(seq) AS seq FROM listing_version_history
      WHERE version = coalesce($2::bigint, (SELECT version FROM listing_version WHERE id = 1))),
    since AS (
      SELECT coalesce(
        (SELECT max(seq) FROM listing_version_history WHERE version = $1::bigint AND seq < (SELECT seq FROM upto)),
        (SELECT max(seq) FROM listing_version_history WHERE committed_at <= now() - $3::float8 * interval '1 second'),
        0) AS seq)
    SELECT version::text AS version FROM listing_version_history
    WHERE seq >= (SELECT seq FROM since) AND seq < (SELECT seq FROM upto)
    ORDER BY seq`,
};

export interface Superseded {
  /** The version last known before (the watch's last read); absent: none is known (an instance starting). */
  previous?: string | undefined;
  /** The version now; absent: the current one. */
  version?: string | undefined;
  /** Where `previous` is not in the record: how far back to go (the versions current at some time since). */
  withinSeconds: number;
}

/**
 * The versions committed before `version`, oldest first: from `previous` on when the record holds it, else every
 * one current within `withinSeconds`. `previous` is always among them (a version the record does not hold, such
 * as "0" before the first write, or one an older build wrote); none other when `version` is not recorded.
 */
export async function supersededVersions(read: Pick<ReadPath, 'single'>, asked: Superseded): Promise<string[]> {
  const rows = await read.single<{ version: string }>(SUPERSEDED, [
    asked.previous ?? null,
    asked.version ?? null,
    asked.withinSeconds,
  ]);
  const versions = rows.map((row) => String(row.version));
  if (asked.previous !== undefined && !versions.includes(asked.previous)) versions.unshift(asked.previous);
  return versions;
}
