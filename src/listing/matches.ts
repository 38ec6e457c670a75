// The listing positions a filter matches, read once per (filter, listing version) and kept: the seeded order
// of a filter permutes this array as the unfiltered order permutes 0..n-1, so a page costs O(page size) after
// the first. Entries are keyed by the listing version read in the request's own snapshot, so an entry is never
// stale (a write bumps the version in its transaction); entries of old versions age out of the LRU.
import { LRUCache } from 'lru-cache';
import type { SqlReader } from '../db/sql.js';
import { filterCondition, filterKey, type PackageFilter } from './filter.js';
import { readListingVersion } from './version.js';

export interface MatchSets {
  /** The sorted listing positions the filter matches, as of the session's snapshot. */
  positions(sql: SqlReader, filter: PackageFilter): Promise<Int32Array>;
}

/** `maxBytes` bounds the kept arrays (4 bytes a position); an entry larger than that is used and not kept. */
export function createMatchSets(maxBytes: number): MatchSets {
  const kept = new LRUCache<string, Int32Array>({
    maxSize: Math.max(1, maxBytes),
    sizeCalculation: (positions, key) => Math.max(1, positions.byteLength + key.length * 2),
  });
  /** Reads under way, so concurrent first requests for one filter read it once. */
  const reading = new Map<string, Promise<Int32Array>>();

  async function read(sql: SqlReader, filter: PackageFilter): Promise<Int32Array> {
    const condition = filterCondition(filter);
    const rows = await sql.query<{ position: number }>(
      {
        text: `SELECT e.position FROM listing_entry e JOIN package p ON p.id = e.package_id
               WHERE ${condition.text} ORDER BY e.position`,
      },
      condition.params,
    );
    return Int32Array.from(rows, (row) => row.position);
  }

  return {
    async positions(sql, filter) {
      const key = `${await readListingVersion((statement) => sql.query(statement))}|${filterKey(filter)}`;
      const hit = kept.get(key);
      if (hit) return hit;
      let pending = reading.get(key);
      if (!pending) {
        pending = read(sql, filter).finally(() => reading.delete(key));
        reading.set(key, pending);
        pending.then((positions) => kept.set(key, positions)).catch(() => {});
      }
      return pending;
    },
  };
}
