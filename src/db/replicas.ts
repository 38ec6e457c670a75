// Read replicas (DATABASE_REPLICA_URLS): each request reads from one database, a replica when one is serving,
// else the primary. A watch asks every database once a second for the listing's version: a replica serves while
// it answers and its replayed version has not been behind the primary's for longer than REPLICA_MAX_LAG; one
// that fails or falls behind is skipped until it is back. A replica that fails in the middle of a request is
// skipped at once (the request's reads are made again elsewhere: src/graphql/read-session.ts).
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
  /** The listing version it holds, read apart from the requests' statements (not counted in the metrics). */
  version(): Promise<string>;
}

export interface ReadRouter {
  /** The read path a request reads from: the same for every call with that request. */
  forRequest(request: object): ReadPath;
  /** A read path picked anew (a request's reads made again after its replica failed). */
  pick(): ReadPath;
  /** A replica failed a read: skipped until the watch finds it well again. */
  lost(role: string): void;
  statuses(): DatabaseStatus[];
  close(): void;
}

const WATCH_MS = 1000;

interface Watched extends ReadTarget {
  reachable: boolean;
  routed: number;
  behindSince: number | undefined;
  /** When a read last found it unavailable: only a watch begun after that may put it back. */
  lostAt: number | undefined;
  serving: boolean;
}

export async function routeReads(primary: ReadTarget, replicas: ReadTarget[], maxLagMs: number): Promise<ReadRouter> {
  const watched: Watched[] = replicas.map((replica) => ({
    ...replica,
    reachable: false,
    routed: 0,
    behindSince: undefined,
    lostAt: undefined,
    serving: false,
  }));
  let primaryReachable = true;
  async function watch(): Promise<void> {
    const primaryVersion = await primary.version().catch(() => undefined);
    primaryReachable = primaryVersion !== undefined;
    await Promise.all(
      watched.map(async (replica) => {
        const asked = Date.now();
        const version = await replica.version().catch(() => undefined);
        // A read failed on it while this answer was on its way: the answer is older than that news.
        if (replica.lostAt !== undefined && replica.lostAt >= asked) return;
        replica.lostAt = undefined;
        replica.reachable = version !== undefined;
        const now = Date.now();
        if (version === undefined || primaryVersion === undefined || version === primaryVersion) {
          replica.behindSince = undefined;
        } else {
          replica.behindSince ??= now;
        }
        replica.serving =
          replica.reachable && (replica.behindSince === undefined || now - replica.behindSince <= maxLagMs);
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
  const pick = (): ReadPath => {
    const serving = watched.filter((replica) => replica.serving);
    if (serving.length === 0) {
      primaryRouted += 1;
      return primary.read;
    }
    next = (next + 1) % serving.length;
    const chosen = serving[next] as Watched;
    chosen.routed += 1;
    return chosen.read;
  };
  const picked = new WeakMap<object, ReadPath>();

  return {
    forRequest(request) {
      let read = picked.get(request);
      if (!read) {
        read = pick();
        picked.set(request, read);
      }
      return read;
    },
    pick,
    lost(role) {
      const replica = watched.find((r) => r.role === role);
      if (!replica) return;
      replica.serving = false;
      replica.lostAt = Date.now();
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
