// The listing positions a filter matches, read once per (filter, listing version) and kept: the seeded order
// of a filter permutes this array as the unfiltered order permutes 0..n-1, so a page costs O(page size) after
// the first. Entries are keyed by the listing version the request's own reads see, so an entry is never stale
// (a write bumps the version in its transaction); entries of old versions age out of the LRU.
//
// A search that finds nothing is read again with its typos corrected (typos.ts), and kept with the filter as it
// was read, so a sorted page reads the same matches.
//
// RELEVANCE orders a search's matches by their rank (filter.ts), best first: those are read and kept the same
// way, in that order.
//
// A first read costs O(matching packages) (70-500 ms at 100,000), and the filter is the client's to choose: a
// stream of ever new filters would have every request pay it. So at most READS_AT_ONCE first reads run at once
// and READS_WAITING wait; past that a request is refused at once (FilterReadsBusyError) rather than queued
// behind work the database cannot keep up with. The queue is short because a waiting request holds its
// connection (its session has read the version): a longer one would take the pool from every other request.
// A filter of the common storefront parts alone (categories, prices, flags) is matched in memory instead, from
// the facet columns kept per version (column-matches.ts): no read, a few ms.
// One caller (its API key, else its address) holds at most READS_PER_CALLER of those places, running or waiting,
// so the last one is always another caller's: one client sending new filters as fast as it can leaves a second
// one's new filter read, after one read at most. Pages of filters already read never wait.
//
// A read shared by concurrent requests runs on the session of the request that began it: its deadline, its
// database, its listing version check. When it fails for that request (its deadline spent, its replica gone, its
// listing moved), a request that joined it reads again on its own session, so it hears of its own faults only.
import { LRUCache } from 'lru-cache';
import type { SqlReader } from '../db/sql.js';
import { matchableInColumns, matchInColumns } from './column-matches.js';
import { facetColumnsPart, int32s } from './facets.js';
import { filterCondition, filterKey, type PackageFilter, searchJoin } from './filter.js';
import { correctedSearch, vocabularyPart } from './typos.js';

const READS_AT_ONCE = 2;
const READS_WAITING = 2;
export const READS_PER_CALLER = READS_AT_ONCE + READS_WAITING - 1;

export class FilterReadsBusyError extends Error {
  constructor(callersShare = false) {
    super(
      callersShare
        ? `Too many new filters from this client are being read right now (${READS_PER_CALLER} at once); try again in a second. Filters already read are served at once.`
        : `Too many new filters are being read right now (${READS_AT_ONCE} at once, ${READS_WAITING} waiting); try again in a second. Filters already read are served at once.`,
    );
  }
}

/**
 * Runs at most `atOnce` tasks at a time with at most `waiting` queued, and at most `perCaller` of one caller's,
 * running or queued; past that, refuses at once.
 */
function boundedGate(atOnce: number, waiting: number, perCaller: number) {
  let running = 0;
  const queue: (() => void)[] = [];
  /** Places held (running or queued) by caller; callers holding none are not kept. */
  const held = new Map<string, number>();
  // A finished task hands its slot to the next waiting one, so a new arrival cannot take it in between.
  const release = () => {
    const next = queue.shift();
    if (next) next();
    else running--;
  };
  const hold = (caller: string, by: number) => {
    const now = (held.get(caller) ?? 0) + by;
    if (now > 0) held.set(caller, now);
    else held.delete(caller);
  };
  /** `caller`: its rate key; undefined: a read no caller is counted for. */
  return async <T>(caller: string | undefined, task: () => Promise<T>): Promise<T> => {
    if (caller !== undefined && (held.get(caller) ?? 0) >= perCaller) throw new FilterReadsBusyError(true);
    if (running >= atOnce && queue.length >= waiting) throw new FilterReadsBusyError();
    if (caller !== undefined) hold(caller, 1);
    try {
      if (running < atOnce) running++;
      else await new Promise<void>((resolve) => queue.push(resolve));
      try {
        return await task();
      } finally {
        release();
      }
    } finally {
      if (caller !== undefined) hold(caller, -1);
    }
  };
}

/** The order of a match set: by listing position, or by the search's rank (best first, then by package id). */
export type MatchOrder = 'position' | 'rank';

/** What a match set is kept under. */
export const matchKey = (filter: PackageFilter, version: string, order: MatchOrder) =>
  `${version}|${order}|${filterKey(filter)}`;

export interface MatchSets {
  /**
   * The listing positions the filter matches in this listing version (the one the session's reads see), sorted,
   * or in rank order when `order` is `rank` (the filter has a search).
   */
  positions(
    sql: SqlReader,
    filter: PackageFilter,
    version: string,
    order?: MatchOrder,
    /** Who asks (a rate key), for the per-caller share of the reads; undefined: no one counted. */
    caller?: string,
  ): Promise<Int32Array>;
  /** The positions kept for (version, filter, order), without reading anything; undefined when none are. */
  kept(filter: PackageFilter, version: string, order?: MatchOrder): Int32Array | undefined;
  /** The filter as its kept matches were read: its search corrected for typos, when that found them. */
  readAs(filter: PackageFilter, version: string, order?: MatchOrder): PackageFilter;
}

/** A filter's matches, and the filter as they were read. */
interface MatchSet {
  positions: Int32Array;
  readAs: PackageFilter;
}

/** `maxBytes` bounds the kept arrays (4 bytes a position); an entry larger than that is used and not kept. */
export function createMatchSets(maxBytes: number): MatchSets {
  const kept = new LRUCache<string, MatchSet>({
    maxSize: Math.max(1, maxBytes),
    sizeCalculation: (set, key) => Math.max(1, set.positions.byteLength + key.length * 2),
  });
  /** Reads under way, so concurrent first requests for one filter read it once. */
  const reading = new Map<string, Promise<MatchSet>>();
  const gate = boundedGate(READS_AT_ONCE, READS_WAITING, READS_PER_CALLER);

  /** The matches; for a search that finds nothing, those of the search with its typos corrected, if any. */
  async function read(sql: SqlReader, filter: PackageFilter, version: string, order: MatchOrder): Promise<MatchSet> {
    if (order === 'position' && matchableInColumns(filter)) {
      return { positions: matchInColumns(filter, await facetColumnsPart.of(sql, version)), readAs: filter };
    }
    const positions = await readPositions(sql, filter, order);
    if (positions.length > 0 || filter.search === undefined) return { positions, readAs: filter };
    const vocabulary = await vocabularyPart.of(sql, version);
    const corrected = correctedSearch(filter.search, vocabulary);
    if (corrected === undefined) return { positions, readAs: filter };
    const readAs = { ...filter, correctedSearch: corrected };
    return { positions: await readPositions(sql, readAs, order), readAs };
  }

  async function readPositions(sql: SqlReader, filter: PackageFilter, order: MatchOrder): Promise<Int32Array> {
    const condition = filterCondition(filter);
    if (order === 'rank' && !condition.rank) throw new Error('a rank order needs a search');
    const orderBy = order === 'rank' ? `${condition.rank} DESC, e.package_id` : 'e.position';
    // A search alone reads the narrow search documents, never the wide package rows.
    const tables = [
      condition.readsPackage || !condition.search ? 'JOIN package p ON p.id = e.package_id' : '',
      condition.search ? searchJoin('e.package_id') : '',
    ].join(' ');
    // One value, the positions packed as int4send packs them: a row each cost more to send and to read than to
    // find (a search matching 415,000 of 1,000,000 packages: 4.2 s as rows, 1.6 s packed).
    const [row] = await sql.query<{ positions: Uint8Array | null }>(
      {
        text: `SELECT string_agg(int4send(e.position), ''::bytea ORDER BY ${orderBy}) AS positions
               FROM listing_entry e ${tables} WHERE ${condition.text}`,
      },
      condition.params,
    );
    return int32s(row?.positions ?? null);
  }

  /**
   * Reads on this request's session; shared with the requests that come for the same key meanwhile unless another
   * read is shared already (several requests that joined a failed read each read on their own).
   */
  function readOwn(
    sql: SqlReader,
    filter: PackageFilter,
    version: string,
    order: MatchOrder,
    key: string,
    caller: string | undefined,
  ): Promise<MatchSet> {
    // A match in the facet columns is a few ms in memory, no read: it takes no place among the reads.
    const inColumns = order === 'position' && matchableInColumns(filter);
    const match = () => read(sql, filter, version, order);
    const pending: Promise<MatchSet> = (inColumns ? match() : gate(caller, match)).finally(() => {
      if (reading.get(key) === pending) reading.delete(key);
    });
    if (!reading.has(key)) reading.set(key, pending);
    pending.then((set) => kept.set(key, set)).catch(() => {});
    return pending;
  }

  /** The match set of the key: kept, else shared with a read under way, else read on this request's session. */
  async function matchSet(
    sql: SqlReader,
    filter: PackageFilter,
    version: string,
    order: MatchOrder,
    caller: string | undefined,
  ) {
    const key = matchKey(filter, version, order);
    const hit = kept.get(key);
    if (hit) return hit;
    const shared = reading.get(key);
    if (shared) {
      try {
        return await shared;
      } catch {
        // Another request's failure: this request's own read follows (it may have been kept meanwhile).
        const after = kept.get(key);
        if (after) return after;
      }
    }
    return readOwn(sql, filter, version, order, key, caller);
  }

  return {
    kept: (filter, version, order = 'position') => kept.get(matchKey(filter, version, order))?.positions,
    readAs: (filter, version, order = 'position') => kept.get(matchKey(filter, version, order))?.readAs ?? filter,
    positions: async (sql, filter, version, order = 'position', caller = undefined) =>
      (await matchSet(sql, filter, version, order, caller)).positions,
  };
}

/** The match sets as one caller (its rate key) reads them: its reads count against its share. */
export function callersMatchSets(matchSets: MatchSets, caller: string): MatchSets {
  return {
    ...matchSets,
    positions: (sql, filter, version, order) => matchSets.positions(sql, filter, version, order, caller),
  };
}
