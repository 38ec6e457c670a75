// Purge on change: when this instance's version watch (src/listing/version-watch.ts) first sees a new listing
// version, the previous version's surrogate key (src/cache/surrogate-keys.ts) is purged through each PURGE_URLS
// entry: a POST with the key in an `xkey-purge` header (what deploy/varnish/default.vcl reads) and as JSON
// (`{"keys":["listing-<version>"]}`, for a small adapter to a CDN's purge API). Each URL is tried up to
// ATTEMPTS times with a growing pause; a purge that still fails is one warning line and a count in /metrics. No
// request waits for a purge: a failing purger costs none, and a lost purge is bounded by CDN_MAX_AGE.
//
// With REDIS_URL, one instance purges each version: the first to claim it (SET NX, kept a day); the others see
// the claim and skip. Without Redis each instance purges (a purge is idempotent; the CDN gets one per instance).

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
/** How long a claim on a version's purge is kept in Redis. */
const CLAIM_SECONDS = 86_400;

export interface PurgerOptions {
  urls: readonly string[];
  watch: Pick<VersionWatch, 'subscribe'>;
  redis: SharedRedis | undefined;
  registry: Registry;
  logger: Pick<Logger, 'warn' | 'info'>;
  /** Pauses between attempts (tests shorten them). */
  firstPauseMs?: number;
}

export interface Purger {
  /** Resolves once the purges under way have ended (tests, shutdown). */
  settled(): Promise<void>;
  stop(): void;
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

  async function post(url: string, key: string): Promise<void> {
    let failure = '';
    for (let attempt = 1; attempt <= ATTEMPTS; attempt++) {
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
      if (attempt < ATTEMPTS) await new Promise((resolve) => setTimeout(resolve, firstPause * 2 ** (attempt - 1)));
    }
    sent.inc({ outcome: 'failed' });
    // The URL without its query or credentials: a purge API's token may be in either.
    const { origin, pathname } = new URL(url);
    options.logger.warn(
      `CDN purge of ${key} failed ${ATTEMPTS} times at ${origin}${pathname} (${failure}); the CDN keeps that version's pages until CDN_MAX_AGE`,
    );
  }

  /** Whether this instance is the one to purge the version (always, without Redis or when it does not answer). */
  async function claim(version: string): Promise<boolean> {
    if (!options.redis) return true;
    const answer = await options.redis.run((client) => client.set(`purge:${version}`, '1', 'EX', CLAIM_SECONDS, 'NX'));
    return answer !== null; // 'OK': claimed; null: another instance did; undefined: Redis away, purge anyway
  }

  async function purge(change: ListingChange): Promise<void> {
    if (!(await claim(change.previous))) return;
    const key = versionKey(change.previous);
    await Promise.all(options.urls.map((url) => post(url, key)));
  }

  const unsubscribe =
    options.urls.length === 0
      ? () => {}
      : options.watch.subscribe((change) => {
          const running = purge(change).finally(() => under.delete(running));
          under.add(running);
        });

  return {
    settled: async () => {
      await Promise.all([...under]);
    },
    stop: unsubscribe,
  };
}
