// Which serving replicas hold the newest listing. Listing versions are random (src/db/write/store.ts), so they
// cannot be compared: a replica's place is how far along the primary's WAL it has replayed, as the watch read it.
// The replicas at the listing of the one furthest along are the freshest. Between two watches, a request's reads
// may find a replica at another version than its last: one of the freshest that has moved on is ahead of all
// the others; one that reached the freshest's version is one of them. Other moves wait for the next watch.

/** What the watch reads of a database: its listing version and its WAL position (null where it cannot say). */
export interface WatchAnswer {
  version: string;
  wal: bigint | null;
}

export interface Freshness {
  /** The listing version last known on it. */
  listing: string | undefined;
  /** Its WAL position as the watch read it, or past every other's once a request found it ahead. */
  wal: bigint | undefined;
  /** When a request's read last moved its version on: a watch answer asked before that is older news. */
  reportedAt: number | undefined;
}

/** The replicas among `serving` at the newest listing; all of them when their WAL positions are not known. */
export function freshest<T extends Freshness>(serving: T[]): T[] {
  let leader: T | undefined;
  for (const replica of serving) {
    if (!leader || (replica.wal ?? -1n) > (leader.wal ?? -1n)) leader = replica;
  }
  if (leader?.wal === undefined) return serving;
  return serving.filter((replica) => replica.listing === leader.listing);
}

/** A request's read found `version` on `replica`, one of `serving` or not. */
export function reportVersion<T extends Freshness>(replica: T, version: string, serving: T[], now: number): void {
  if (replica.listing === version || replica.listing === undefined) return;
  const fresh = freshest(serving);
  const leader = fresh[0];
  if (leader?.wal === undefined) return;
  if (fresh.includes(replica)) {
    // It held the newest listing and has moved on: the newest is its own now.
    const furthest = serving.reduce((max, other) => ((other.wal ?? -1n) > max ? (other.wal as bigint) : max), -1n);
    replica.wal = furthest + 1n;
  } else if (leader.listing === version) {
    replica.wal = leader.wal;
  } else {
    return;
  }
  replica.listing = version;
  replica.reportedAt = now;
}
