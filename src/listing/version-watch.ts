// The version watch: reads the listing's version (and size) every LISTING_WATCH_INTERVAL, while something listens
// (the app always does: it reads ahead for each new version, src/listing/warm-up.ts),
// and tells its listeners when it changes, as this instance first sees it. Every instance watches on its own, so a fleet needs no broker:
// what one instance's import commits, each sees within an interval. The first read only learns the version; a
// change is a version other than the last one read. A failed read (the database away) is skipped quietly: the
// next one tries again, and the change is told once it is seen.
import type { Logger } from 'pino';
import { LISTING_STATE, type ReadPath } from '../db/sql.js';

export interface ListingChange {
  version: string;
  /** Listed packages in this version. */
  count: number;
  /** When this instance first saw the version. */
  changedAt: Date;
  /** The version before it, as this instance last saw it. */
  previous: string;
}

export interface VersionWatch {
  /** Calls `listener` on each change from now on; returns the function that stops it. */
  subscribe(listener: (change: ListingChange) => void): () => void;
  /** The listing as last read, if a read has answered yet. */
  current(): { version: string; count: number } | undefined;
  /** Reads now (as the timer does); resolves once the read and its listeners are done. */
  check(): Promise<void>;
  stop(): void;
}

export function watchListingVersion(
  read: Pick<ReadPath, 'single'>,
  intervalMs: number,
  logger: Pick<Logger, 'warn' | 'debug'>,
): VersionWatch {
  const listeners = new Set<(change: ListingChange) => void>();
  let last: { version: string; count: number } | undefined;
  let running: Promise<void> | undefined;

  async function readOnce(): Promise<void> {
    let state: { version: string; count: number };
    try {
      const [row] = await read.single<{ version: string; count: number }>(LISTING_STATE);
      if (!row) return;
      state = { version: String(row.version), count: Number(row.count) };
    } catch (error) {
      logger.debug({ err: error }, 'version watch: the listing version could not be read; trying again');
      return;
    }
    if (listeners.size === 0) return; // the last listener left while reading: the next one starts afresh
    const previous = last;
    last = state;
    if (!previous || previous.version === state.version) return;
    const change = { ...state, changedAt: new Date(), previous: previous.version };
    for (const listener of listeners) {
      try {
        listener(change);
      } catch (error) {
        logger.warn({ err: error }, 'version watch: a listener failed');
      }
    }
  }

  const check = () => {
    running ??= readOnce().finally(() => {
      running = undefined;
    });
    return running;
  };
  // Started by the first listener: an instance nobody listens to reads nothing.
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;

  return {
    subscribe(listener) {
      listeners.add(listener);
      if (!timer && !stopped) {
        timer = setInterval(() => void check(), intervalMs);
        timer.unref();
        void check();
      }
      return () => {
        listeners.delete(listener);
        if (listeners.size > 0) return;
        // Nobody listens any more: no reads, and the next listener starts afresh (no change told from before it).
        clearInterval(timer);
        timer = undefined;
        last = undefined;
      };
    },
    current: () => last,
    check,
    stop: () => {
      stopped = true;
      clearInterval(timer);
    },
  };
}
