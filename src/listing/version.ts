// The listing's version: every write that changes the listing bumps it in its own transaction (see
// bumpListingVersion), so anything derived from the listing and kept (matching positions, cached responses) is
// keyed by it and never stale.
import { LISTING_VERSION, type ReadPath, type SqlStatement } from '../db/sql.js';

/** The version as text (a bigint; "0" before the first write), read by `run` (a session's or a single query). */
export async function readListingVersion(
  run: (statement: SqlStatement) => Promise<{ version?: unknown }[]>,
): Promise<string> {
  const [row] = await run(LISTING_VERSION);
  return String(row?.version ?? '0');
}

/**
 * The version a request may use: read by a statement that began after the request asked for it; null when it
 * could not be read in time (the database is away or slow).
 */
export type CurrentVersion = (read: Pick<ReadPath, 'single'>) => Promise<string | null>;

/** A read in flight longer than this is not waited for: the next one begins beside it (a stuck connection). */
const STALLED_MS = 50;

/**
 * Version reads shared by the requests that ask while one is under way, as a group commit shares a flush: a
 * request never joins the read in flight (it began before the request arrived, and may have missed a commit made
 * since), it joins the next one, begun as soon as the one in flight has answered, for all who asked meanwhile.
 * So each request's version is at least as new as the listing when it arrived, and a burst of requests costs two
 * statements per database instead of one per request. The next read does not wait for one in flight past
 * STALLED_MS: one stuck connection (a pooler waiting for a server gone) must not hold every request. A read not
 * answered within `timeoutMs` answers null to its requests. One set of reads per read path (primary, replica).
 */
export function sharedVersionReads(timeoutMs: number): CurrentVersion {
  interface Reads {
    inFlight: { version: Promise<string | null>; startedAt: number } | undefined;
    /** The read the requests arriving now wait for: begun when the one in flight ends (or stalls). */
    next: Promise<string | null> | undefined;
  }
  const byPath = new WeakMap<object, Reads>();

  const begin = (read: Pick<ReadPath, 'single'>, reads: Reads): Promise<string | null> => {
    const version = new Promise<string | null>((resolve) => {
      const timer = setTimeout(() => resolve(null), timeoutMs);
      timer.unref();
      const settle = (value: string | null) => {
        clearTimeout(timer);
        resolve(value);
      };
      readListingVersion((statement) => read.single(statement)).then(settle, () => settle(null));
    });
    const inFlight = { version, startedAt: performance.now() };
    reads.inFlight = inFlight;
    void version.then(() => {
      if (reads.inFlight === inFlight) reads.inFlight = undefined;
    });
    return version;
  };

  const afterTheOneInFlight = (
    read: Pick<ReadPath, 'single'>,
    reads: Reads,
    current: NonNullable<Reads['inFlight']>,
  ): Promise<string | null> => {
    let timer: NodeJS.Timeout | undefined;
    const turn = new Promise<unknown>((resolve) => {
      void current.version.then(resolve);
      timer = setTimeout(resolve, Math.max(0, STALLED_MS - (performance.now() - current.startedAt)));
      timer.unref();
    });
    const next = turn.then(() => {
      clearTimeout(timer);
      if (reads.next === next) reads.next = undefined;
      return begin(read, reads);
    });
    reads.next = next;
    return next;
  };

  return (read) => {
    let reads = byPath.get(read);
    if (!reads) {
      reads = { inFlight: undefined, next: undefined };
      byPath.set(read, reads);
    }
    if (!reads.inFlight) return begin(read, reads);
    return reads.next ?? afterTheOneInFlight(read, reads, reads.inFlight);
  };
}
