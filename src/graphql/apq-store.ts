// Where the documents registered by automatic persisted queries live: in this process (an LRU bounded by count
// and by bytes) and, with REDIS_URL, in Redis too, so a document registered on one instance is found by hash on
// every other. Redis entries expire (APQ_TTL) so documents no client asks for any more leave Redis's memory; a
// client whose hash has expired gets PersistedQueryNotFound and registers it again. What Redis keeps is bounded
// in all and per caller (src/graphql/apq-budget.ts): past the total a document is kept in this process alone (its
// client is served; a counter and one log line say so), past the caller's budget it is refused. Redis is asked
// through SharedRedis: while it is away, late or failing, each instance goes on with its memory alone, unbounded
// per caller but for APQ_REGISTRATIONS.
import { LRUCache } from 'lru-cache';
import type { Logger } from 'pino';
import { Counter, type Registry } from 'prom-client';
import type { SharedRedis } from '../http/redis.js';
import { apqBudget, type Sharing } from './apq-budget.js';

export interface ApqStoreOptions {
  /** Documents kept in memory. */
  maxQueries: number;
  /** Bytes of documents kept in memory (a document's text counts twice: JavaScript may keep it in UTF-16). */
  maxBytes: number;
  /** How long a registered document is kept after its registration. */
  ttlMs: number;
  /** Bytes of documents every instance keeps in Redis within a TTL; 0: none. */
  redisMaxBytes: number;
  /** Bytes of documents one caller may have kept in Redis within a TTL (counted there); 0: no bound. */
  maxBytesPerCaller: number;
  redis: SharedRedis | undefined;
  /** Where the count of registrations by outcome goes (the app's /metrics). */
  registry?: Registry;
  logger?: Pick<Logger, 'warn' | 'info'>;
}

export interface ApqStore {
  /** The document registered under the hash (lowercase hex), or undefined. */
  get(hash: string): Promise<string | undefined>;
  /** Keeps the document for `caller` (its rate key), unless the caller's budget is spent (then nothing is kept). */
  set(hash: string, document: string, caller: string): Promise<Sharing>;
}

const REDIS_PREFIX = 'lgw:apq:';
/** What an entry costs besides its text: the key, the LRU's bookkeeping. */
const OVERHEAD_BYTES = 200;

export function createApqStore(options: ApqStoreOptions): ApqStore {
  const { maxQueries, maxBytes, ttlMs, redis, logger } = options;
  const memory = new LRUCache<string, string>({
    max: maxQueries,
    maxSize: maxBytes,
    sizeCalculation: (document) => document.length * 2 + OVERHEAD_BYTES,
    ttl: ttlMs,
  });
  const budget = redis
    ? apqBudget({ totalBytes: options.redisMaxBytes, callerBytes: options.maxBytesPerCaller, ttlMs }, redis)
    : undefined;
  const registrations = new Counter({
    name: 'apq_registrations_total',
    help: 'Documents registered by automatic persisted queries, by outcome: shared (kept in Redis too), memory (Redis holds APQ_REDIS_MAX_BYTES: this instance alone), local (no Redis, or Redis away), refused (the caller spent APQ_MAX_BYTES_PER_CALLER).',
    labelNames: ['outcome'],
    registers: options.registry ? [options.registry] : [],
  });
  /** Whether the last registration found Redis's share full: said once, and again when there is room. */
  let full = false;
  const note = (outcome: 'shared' | 'memory') => {
    if ((outcome === 'memory') === full || options.redisMaxBytes === 0) return;
    full = outcome === 'memory';
    if (full) {
      logger?.warn(
        `APQ: Redis holds APQ_REDIS_MAX_BYTES (${options.redisMaxBytes} bytes) of registered documents: new ones are kept in this instance's memory only until older ones expire`,
      );
    } else logger?.info('APQ: registered documents are kept in Redis again');
  };
  return {
    async get(hash) {
      const kept = memory.get(hash);
      if (kept !== undefined) return kept;
      const shared = await redis?.run((client) => client.get(REDIS_PREFIX + hash));
      if (typeof shared !== 'string') return undefined;
      memory.set(hash, shared);
      return shared;
    },
    async set(hash, document, caller) {
      const sharing = await budget?.share(REDIS_PREFIX + hash, document, caller);
      if (sharing && 'refused' in sharing) {
        registrations.inc({ outcome: 'refused' });
        return sharing;
      }
      memory.set(hash, document);
      registrations.inc({ outcome: sharing?.kept ?? 'local' });
      if (sharing) note(sharing.kept);
      return sharing ?? { kept: 'memory' };
    },
  };
}
