// Purge on change: when this instance's version watch (src/listing/version-watch.ts) first sees a new listing
// version, the previous version's surrogate key (src/cache/surrogate-keys.ts) is purged through each PURGE_URLS
// entry: a POST with the key in an `xkey-purge` header (what deploy/varnish/default.vcl reads) and as JSON
// (`{"keys":["listing-<version>"]}`, for a small adapter to a CDN's purge API). Each URL is tried up to
// ATTEMPTS times with a growing pause; a purge that still fails is one warning line and a count in /metrics. No
// request waits for a purge: a failing purger costs none, and a lost purge is bounded by CDN_MAX_AGE.
//
// The same key is purged a second time once every answer made from the old version has left (`repurgeAfterMs`:
// REQUEST_TIMEOUT, which bounds a request, plus a margin for its way to the CDN). An answer that read the old
// version just before the import committed, and reached the CDN just after the first purge, would otherwise be
// kept under the old key until CDN_MAX_AGE. Every instance schedules the second purge, so it is sent even when
// the one that sent the first has stopped; an instance that stops sends its pending ones at once (its own
// requests have all been answered by then).
//
// With REDIS_URL, one instance sends each purge: the first to claim it (SET NX, kept a day); the others see the
// claim and skip. Without Redis each instance purges (a purge is idempotent; the CDN gets one per instance).

import type { Logger } from 'pino';
import { Counter, type Registry } from 'prom-client';
import type { SharedRedis } from '../http/redis.js';
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

export interface PurgerOptions {
  urls: readonly string[];
  watch: Pick<VersionWatch, 'subscribe'>;
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
    help: 'Purges of a listing version sent to a PURGE_URLS entry, by outcome (ok, failed after every attempt).',
    labelNames: ['outcome'],
    registers: [options.registry],
  });
  const firstPause = options.firstPauseMs ?? FIRST_PAUSE_MS;
  const under = new Set<Promise<void>>();

  async function post(url: string, key: string, attempts: number): Promise<void> {
    let failure = '';
    for (let attempt = 1; attempt <= attempts; attempt++) {
      try {
        const response = await fetch(url, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'xkey-purge': key },
          body: JSON.stringify({ keys: [key] }),
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
      `CDN purge of ${key} failed ${attempts} time${attempts === 1 ? '' : 's'} at ${origin}${pathname} (${failure}); the CDN keeps that version's pages until CDN_MAX_AGE`,
    );
  }

  /** Whether this instance is the one to send the purge named (always, without Redis or when it does not answer). */
  async function claim(name: string): Promise<boolean> {
    if (!options.redis) return true;
    const answer = await options.redis.run((client) => client.set(name, '1', 'EX', CLAIM_SECONDS, 'NX'));
    return answer !== null; // 'OK': claimed; null: another instance did; undefined: Redis away, purge anyway
  }

  const track = (running: Promise<void>) => {
    const tracked = running.finally(() => under.delete(tracked));
    under.add(tracked);
  };
  const send = (key: string, attempts = ATTEMPTS) => Promise.all(options.urls.map((url) => post(url, key, attempts)));
  /** The second purges scheduled, by key. */
  const again = new Map<string, NodeJS.Timeout>();

  function purge(change: ListingChange): void {
    const key = versionKey(change.previous);
    track(
      (async () => {
        if (await claim(`purge:${change.previous}`)) await send(key);
      })(),
    );
    const timer = setTimeout(() => {
      again.delete(key);
      track(
        (async () => {
          if (await claim(`purge:${change.previous}:again`)) await send(key);
        })(),
      );
    }, options.repurgeAfterMs);
    timer.unref();
    again.set(key, timer);
  }

  const unsubscribe = options.urls.length === 0 ? () => {} : options.watch.subscribe(purge);

  return {
    settled: async () => {
      await Promise.all([...under]);
    },
    stop: async () => {
      unsubscribe();
      const waiting = [...again.entries()];
      again.clear();
      for (const [, timer] of waiting) clearTimeout(timer);
      await Promise.all(waiting.map(([key]) => send(key, 1)));
    },
  };
}
