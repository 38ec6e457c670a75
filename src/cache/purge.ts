// Purge on change: when this instance's version watch (src/listing/version-watch.ts) first sees a new listing
// version, the surrogate keys (src/cache/surrogate-keys.ts) of every version it superseded are purged through each
// PURGE_URLS entry: a POST naming the keys in an `xkey-purge` header, separated by spaces (what
// deploy/varnish/default.vcl reads), and as JSON (`{"keys":["listing-<version>",...]}`, for a small adapter to a
// CDN's purge API), at most MAX_KEYS_PER_PURGE keys a POST. Each URL is tried up to ATTEMPTS times with a growing
// pause; a purge that still fails is one warning line and a count in /metrics. No request waits for a purge: a
// failing purger costs none, and a lost purge is bounded by CDN_MAX_AGE.
//
// Which versions: the watch reports the version it last saw and the one it sees now, but two imports inside one
// watch interval commit a version it never saw, and answers made from that one were kept too (by this instance,
// or by another, served from Redis or a replica). Versions are random, so the superseded ones are read from the
// database's record of commits (listing_version_history, src/listing/version-history.ts): every version from the
// one last seen up to the new one. The record is the same for every instance, so what one purges is what any
// other would; a replica only ever serves a version the record holds; and it outlives a restart, so an instance
// that starts purges the versions superseded within CDN_MAX_AGE before it (an import run while no instance was
// up, or one whose purge an instance that crashed still owed). Keeping the versions this instance tagged answers
// with instead would miss those: they were tagged by a process that is gone.
//
// The same keys are purged a second time once every answer made from the old versions has left (`repurgeAfterMs`:
// REQUEST_TIMEOUT, which bounds a request, plus a margin for its way to the CDN, plus how long a replica behind
// may still serve an old version after the commit, src/db/replicas.ts). An answer that read an old version just
// before the import committed, and reached the CDN just after the first purge, would otherwise be kept under the
// old key until CDN_MAX_AGE. Every instance schedules the second purge, so it is sent even when the one that sent
// the first has stopped; an instance that stops sends its pending ones at once (its own requests have all been
// answered by then).
//
// With REDIS_URL, one instance sends each version's purge: the first to claim it (SET NX per version, kept a
// day); the others see the claim and leave that version out. Without Redis each instance purges (a purge is
// idempotent; the CDN gets one per instance).

import type { Logger } from 'pino';
import { Counter, type Registry } from 'prom-client';
import type { ReadPath } from '../db/sql.js';
import type { SharedRedis } from '../http/redis.js';
import { supersededVersions } from '../listing/version-history.js';
import type { ListingChange, VersionWatch } from '../listing/version-watch.js';
import { versionKey } from './surrogate-keys.js';

export const ATTEMPTS = 5;
/** The first pause between attempts; each next one is twice as long (0.25, 0.5, 1, 2 s). */
const FIRST_PAUSE_MS = 250;
/** How long one attempt may take. */
const ATTEMPT_TIMEOUT_MS = 2_000;
/** Beyond REQUEST_TIMEOUT, what an answer may take to reach the CDN before the second purge is sent. */
export const REPURGE_MARGIN_MS = 2_000;
/** How long a claim on a version's purge is kept in Redis. */
const CLAIM_SECONDS = 86_400;
/**
 * Keys named by one POST: under any CDN's bound for one purge call (Cloudflare takes 30 tags, Fastly 256 keys),
 * and well under Varnish's 8 kB header line (a key is 27 bytes at most).
 */
export const MAX_KEYS_PER_PURGE = 30;

export interface PurgerOptions {
  urls: readonly string[];
  watch: Pick<VersionWatch, 'subscribe'>;
  /** The primary's read path: the record of commits says which versions a new one superseded. */
  read: Pick<ReadPath, 'single'>;
  /** CDN_MAX_AGE: at start, versions superseded longer ago than this are gone from the CDN already. */
  cdnMaxAgeSeconds: number;
  redis: SharedRedis | undefined;
  registry: Registry;
  logger: Pick<Logger, 'warn' | 'info'>;
  /** How long after the first purge of a version the second one is sent. */
  repurgeAfterMs: number;
  /** Pauses between attempts (tests shorten them). */
  firstPauseMs?: number;
}

export interface Purger {
  /** Resolves once the purges under way have ended (tests, shutdown). */
  settled(): Promise<void>;
  /** Stops listening, and sends the second purges still waiting, once each, without a claim. */
  stop(): Promise<void>;
}

export function startPurger(options: PurgerOptions): Purger {
  const sent = new Counter({
    name: 'cdn_purges_total',
    help: `Purge requests (each naming up to ${MAX_KEYS_PER_PURGE} superseded listing versions) sent to a PURGE_URLS entry, by outcome (ok, failed after every attempt).`,
    labelNames: ['outcome'],
    registers: [options.registry],
  });
  const firstPause = options.firstPauseMs ?? FIRST_PAUSE_MS;
  const under = new Set<Promise<void>>();

  async function post(url: string, keys: string[], attempts: number): Promise<void> {
    let failure = '';
    for (let attempt = 1; attempt <= attempts; attempt++) {
      try {
        const response = await fetch(url, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'xkey-purge': keys.join(' ') },
          body: JSON.stringify({ keys }),
          signal: AbortSignal.timeout(ATTEMPT_TIMEOUT_MS),
        });
        await response.arrayBuffer();
        if (response.ok) {
          sent.inc({ outcome: 'ok' });
          return;
        }
        failure = `HTTP ${response.status}`;
      } catch (error) {
        failure = (error as Error).name === 'TimeoutError' ? 'no answer in 2 s' : (error as Error).message;
      }
      if (attempt < attempts) await new Promise((resolve) => setTimeout(resolve, firstPause * 2 ** (attempt - 1)));
    }
    sent.inc({ outcome: 'failed' });
    // The URL without its query or credentials: a purge API's token may be in either.
    const { origin, pathname } = new URL(url);
    options.logger.warn(
      `CDN purge of ${keys.join(' ')} failed ${attempts} time${attempts === 1 ? '' : 's'} at ${origin}${pathname} (${failure}); the CDN keeps those versions' pages until CDN_MAX_AGE`,
    );
  }

  /**
   * The versions this instance is the one to purge (`again`: the second time): all of them without Redis or
   * when it does not answer; else those no other instance claimed first.
   */
  async function claimed(versions: string[], again: boolean): Promise<string[]> {
    if (!options.redis || versions.length === 0) return versions;
    const names = versions.map((version) => `purge:${version}${again ? ':again' : ''}`);
    const answers = await options.redis.run((client) => {
      const batch = client.pipeline();
      for (const name of names) batch.set(name, '1', 'EX', CLAIM_SECONDS, 'NX');
      return batch.exec();
    });
    if (!answers) return versions; // Redis away: purge anyway
    // 'OK': claimed; null: another instance did; an error: purge anyway.
    return versions.filter((_, i) => answers[i]?.[0] || answers[i]?.[1] !== null);
  }

  const track = (running: Promise<void>) => {
    const tracked = running.finally(() => under.delete(tracked));
    under.add(tracked);
  };
  /** Every URL is POSTed the versions' keys, MAX_KEYS_PER_PURGE at a time. */
  async function send(versions: string[], attempts = ATTEMPTS): Promise<void> {
    const keys = versions.map(versionKey);
    for (let start = 0; start < keys.length; start += MAX_KEYS_PER_PURGE) {
      const some = keys.slice(start, start + MAX_KEYS_PER_PURGE);
      await Promise.all(options.urls.map((url) => post(url, some, attempts)));
    }
  }
  /** The second purges scheduled, each with the versions it names. */
  const again = new Map<NodeJS.Timeout, Promise<string[]>>();

  /** Purges what `version` superseded since `previous` (both absent at start: what the current one did). */
  function purge(previous?: string, version?: string): void {
    const versions = supersededVersions(options.read, {
      previous,
      version,
      withinSeconds: options.cdnMaxAgeSeconds,
    }).catch((error) => {
      options.logger.warn(
        { err: error },
        `CDN purge: the listing versions before ${version ?? 'the current one'} could not be read; purging ${previous ?? 'none'} alone`,
      );
      return previous === undefined ? [] : [previous];
    });
    track(
      (async () => {
        await send(await claimed(await versions, false));
      })(),
    );
    const timer = setTimeout(() => {
      again.delete(timer);
      track(
        (async () => {
          await send(await claimed(await versions, true));
        })(),
      );
    }, options.repurgeAfterMs);
    timer.unref();
    again.set(timer, versions);
  }

  let unsubscribe = () => {};
  if (options.urls.length > 0) {
    unsubscribe = options.watch.subscribe((change: ListingChange) => purge(change.previous, change.version));
    // What was superseded while this instance was not watching (none of the instances, perhaps).
    purge();
  }

  return {
    settled: async () => {
      await Promise.all([...under]);
    },
    stop: async () => {
      unsubscribe();
      const waiting = [...again.entries()];
      again.clear();
      for (const [timer] of waiting) clearTimeout(timer);
      const versions = new Set((await Promise.all(waiting.map(([, named]) => named))).flat());
      await send([...versions], 1);
    },
  };
}
