// When the primary moved past a listing version, as its watch saw it: the start of a replica's lag. Versions are
// random (src/db/write/store.ts), so their order is the order the watch saw them in on the primary. A replica
// found behind starts its clock at the time the primary was first seen past the replica's version, not at the
// time the replica was asked: a replica that comes back from an outage holding an old version is as far behind
// as it is, not given a new REPLICA_MAX_LAG.

/** Versions kept: the watch adds one a second at most, so this covers more than REPLICA_MAX_LAG's 3600 s. */
const KEPT = 4096;

export interface LagClock {
  /** The watch read the primary's version at `now`. */
  primaryAt(version: string, now: number): void;
  /** When the primary was first seen at a version after `version`; `now` when the watch never saw it there. */
  movedPast(version: string, now: number): number;
}

export function lagClock(): LagClock {
  /** The primary's versions in the order seen, each with when the watch first saw it. */
  const seen: { version: string; at: number }[] = [];
  return {
    primaryAt(version, now) {
      if (seen.at(-1)?.version === version) return;
      seen.push({ version, at: now });
      if (seen.length > KEPT) seen.splice(0, seen.length - KEPT);
    },
    movedPast(version, now) {
      const index = seen.findLastIndex((entry) => entry.version === version);
      return index >= 0 ? (seen[index + 1]?.at ?? now) : now;
    },
  };
}
