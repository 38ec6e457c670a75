// The listing's version as the response cache waits for it: within the Node edge's short wait (LATE past it, the
// app then answers with its own bounds), and the last one this instance read, with when: while the database is
// away, a kept answer of that version may be sent stale for STALE_IF_ERROR seconds after it.

/** The listing's version was not read within the wait the Node edge gives it. */
export const LATE = 'late';

/**
 * The version, or LATE when it takes longer than `ms` (the read goes on, for the requests that wait for it).
 * Requests that share a read (src/listing/version.ts) share its wait too: one timer and one promise per read, not
 * per request; the first to ask starts the wait, so none waits longer than `ms`.
 */
export function versionWithin(reading: Promise<string | null>, ms: number): Promise<string | null | typeof LATE> {
  let within = waits.get(reading);
  if (!within) {
    within = new Promise<string | null | typeof LATE>((resolve, reject) => {
      const timer = setTimeout(() => resolve(LATE), ms);
      timer.unref();
      reading.then(
        (version) => {
          clearTimeout(timer);
          resolve(version);
        },
        (error: unknown) => {
          clearTimeout(timer);
          reject(error);
        },
      );
    });
    waits.set(reading, within);
  }
  return within;
}

/** Each read's wait, while the read is referenced. */
const waits = new WeakMap<Promise<string | null>, Promise<string | null | typeof LATE>>();

/** The last version read and when, told of each read; what a stale answer is looked up under. */
export function lastVersionRead(staleIfErrorSeconds: number) {
  let last: { version: string; at: number } | undefined;
  return {
    seen(version: string): void {
      if (staleIfErrorSeconds === 0) return; // nothing is ever sent stale: no clock read per request
      if (last?.version === version) last.at = performance.now();
      else last = { version, at: performance.now() };
    },
    /** The last version and how long ago it was read, while that is within STALE_IF_ERROR; else null. */
    stale(): { version: string; staleSeconds: number } | null {
      if (!last || staleIfErrorSeconds === 0) return null;
      const staleSeconds = (performance.now() - last.at) / 1000;
      return staleSeconds > staleIfErrorSeconds ? null : { version: last.version, staleSeconds };
    },
  };
}
