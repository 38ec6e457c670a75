// Read replicas (DATABASE_REPLICA_URLS): each request reads from one database, a replica when one is serving,
// else the primary. A watch asks every database once a second for the listing's version, on a connection of its
// own (a burst of requests filling the pools cannot make a database look gone): a replica serves while it answers
// and its version has not been behind the primary's for longer than REPLICA_MAX_LAG (src/db/lag-clock.ts); one
// that fails or falls behind is skipped until it is back. Among the serving replicas, requests read from those at
// the newest listing (src/db/freshness.ts), so a client's next request never reads an older listing than its last
// while a fresher replica serves. A replica that fails in the middle of a request is skipped at once (the
// request's reads are made again elsewhere: src/graphql/read-session.ts); so is every statement still waiting on
// it, for behind a pooler a statement sent to a database that went away waits for the pooler to reach it again.
import { type Freshness, freshest, reportVersion, type WatchAnswer } from './freshness.js';
import { lagClock } from './lag-clock.js';
import type { ReadPath } from './sql.js';

export interface PoolGauges {
  total(): number;
  idle(): number;
  waiting(): number;
}

/** What /healthz and /metrics say of one database. */
export interface DatabaseStatus {
  /** `primary`, `replica 1`, ... */
  role: string;
  reachable: boolean;
  /** Seconds its listing version has been behind the primary's (replicas; 0 when level). */
  lagSeconds: number | null;
  /** Whether requests read from it now. */
  serving: boolean;
  /** Requests (and requests' reads made again) sent to it since the start. */
  routed: number;
  pool: PoolGauges;
}

export interface ReadTarget {
  role: string;
  read: ReadPath;
  pool: PoolGauges;
  /**
   * The listing version it holds and how far along the primary's WAL it is (null where the server cannot say),
   * read apart from the requests' statements (not counted in the metrics).
   */
  version(): Promise<WatchAnswer>;
}

export interface ReadRouter {
  /** The read path a request reads from: the same for every call with that request. */
  forRequest(request: object): ReadPath;
  /**
   * A read path picked anew, never one in `avoid` (a request's reads made again, away from the databases that
   * failed it); undefined when every database is in it.
   */
  pick(avoid?: ReadonlySet<object>): ReadPath | undefined;
  /**
   * How long after the primary commits a listing version a request may still read the one before it (0 without
   * replicas): a replica behind serves until the watch finds it behind for longer than REPLICA_MAX_LAG, counted
   * from when a watch saw the primary move on.
   */
  readonly staleMs: number;
  /** A replica's connection failed a read: skipped until the watch finds it well again. */
  lost(role: string): void;
  /**
   * Aborted when the replica is found gone (a read lost its connection, or the watch could not reach it): the
   * statements waiting on it are given up and none starts there until the watch finds it back. Undefined for the
   * primary.
   */
  goneSignal(role: string): AbortSignal | undefined;
  /** A request's read found this listing version on the database (a replica may be ahead of its last watch). */
  seen(role: string, version: string): void;
  statuses(): DatabaseStatus[];
  close(): void;
}

const WATCH_MS = 1000;

interface Watched extends ReadTarget, Freshness {
  reachable: boolean;
  routed: number;
  /** Since when its version has differed from the primary's (see src/db/lag-clock.ts). */
  behindSince: number | undefined;
  /** When a read last found it unavailable: only a watch begun after that may put it back. */
  lostAt: number | undefined;
  serving: boolean;
  gone: AbortController;
}

/** Found gone: what waits on it is given up (see ReadRouter.goneSignal). */
function markGone(replica: Watched): void {
  if (!replica.gone.signal.aborted) replica.gone.abort();
}

export async function routeReads(primary: ReadTarget, replicas: ReadTarget[], maxLagMs: number): Promise<ReadRouter> {
  const watched: Watched[] = replicas.map((replica) => ({
    ...replica,
    reachable: false,
    routed: 0,
    behindSince: undefined,
    lostAt: undefined,
    serving: false,
    gone: new AbortController(),
    listing: undefined,
    wal: undefined,
    reportedAt: undefined,
  }));
  const clock = lagClock();
  let primaryReachable = true;

  async function watch(): Promise<void> {
    const primaryVersion = (await primary.version().catch(() => undefined))?.version;
    primaryReachable = primaryVersion !== undefined;
    if (primaryVersion !== undefined) clock.primaryAt(primaryVersion, Date.now());
    await Promise.all(
      watched.map(async (replica) => {
        const asked = Date.now();
        const answer = await replica.version().catch(() => undefined);
        // A read failed on it while this answer was on its way: the answer is older than that news.
        if (replica.lostAt !== undefined && replica.lostAt >= asked) return;
        replica.lostAt = undefined;
        replica.reachable = answer !== undefined;
        if (!replica.reachable) markGone(replica);
        // A request's read found a newer version on it meanwhile: this answer is older than that news.
        if (answer && (replica.reportedAt === undefined || replica.reportedAt < asked)) {
          replica.listing = answer.version;
          replica.wal = answer.wal ?? undefined;
        }
        const now = Date.now();
        // Either one not answering, the clock goes on as it was: it neither stops nor starts again.
        if (answer && primaryVersion !== undefined) {
          replica.behindSince =
            replica.listing === primaryVersion
              ? undefined
              : (replica.behindSince ?? clock.movedPast(replica.listing as string, now));
        }
        replica.serving =
          replica.reachable && (replica.behindSince === undefined || now - replica.behindSince <= maxLagMs);
        if (replica.serving && replica.gone.signal.aborted) replica.gone = new AbortController();
      }),
    );
  }

  if (watched.length > 0) await watch();
  let running = false;
  const timer = setInterval(() => {
    if (running || watched.length === 0) return;
    running = true;
    void watch().finally(() => {
      running = false;
    });
  }, WATCH_MS);
  timer.unref();

  let next = 0;
  let primaryRouted = 0;
  const roundRobin = (among: Watched[]): ReadPath => {
    next = (next + 1) % among.length;
    const chosen = among[next] as Watched;
    chosen.routed += 1;
    return chosen.read;
  };
  const pick = (avoid?: ReadonlySet<object>): ReadPath | undefined => {
    const serving = watched.filter((replica) => replica.serving);
    const open = serving.filter((replica) => !avoid?.has(replica.read));
    const fresh = freshest(serving).filter((replica) => !avoid?.has(replica.read));
    if (fresh.length > 0) return roundRobin(fresh);
    // The primary holds the newest listing of all; a replica behind the others only when the primary failed too.
    if (!avoid?.has(primary.read)) {
      primaryRouted += 1;
      return primary.read;
    }
    return open.length > 0 ? roundRobin(open) : undefined;
  };
  const picked = new WeakMap<object, ReadPath>();

  return {
    forRequest(request) {
      // Without replicas every request reads from the primary: nothing to remember.
      if (watched.length === 0) {
        primaryRouted += 1;
        return primary.read;
      }
      let read = picked.get(request);
      if (!read) {
        read = pick() as ReadPath; // nothing avoided: the primary at least
        picked.set(request, read);
      }
      return read;
    },
    pick,
    // One watch to see the primary move on, the lag, and one more watch to find the replica past it.
    staleMs: watched.length > 0 ? maxLagMs + 2 * WATCH_MS : 0,
    lost(role) {
      const replica = watched.find((r) => r.role === role);
      if (!replica) return;
      replica.serving = false;
      replica.lostAt = Date.now();
      markGone(replica);
    },
    goneSignal: (role) => watched.find((r) => r.role === role)?.gone.signal,
    seen(role, version) {
      const replica = watched.find((r) => r.role === role);
      if (replica)
        reportVersion(
          replica,
          version,
          watched.filter((r) => r.serving),
          Date.now(),
        );
    },
    // Without replicas there is nothing to say beyond /healthz's own check of the primary.
    statuses: () =>
      watched.length === 0
        ? []
        : [
            {
              role: primary.role,
              reachable: primaryReachable,
              lagSeconds: null,
              serving: !watched.some((r) => r.serving),
              routed: primaryRouted,
              pool: primary.pool,
            },
            ...watched.map((r) => ({
              role: r.role,
              reachable: r.reachable,
              lagSeconds: r.behindSince === undefined ? 0 : (Date.now() - r.behindSince) / 1000,
              serving: r.serving,
              routed: r.routed,
              pool: r.pool,
            })),
          ],
    close: () => clearInterval(timer),
  };
}
