// Where the documents registered by automatic persisted queries live: in this process (an LRU bounded by count
// and by bytes) and, with REDIS_URL, in Redis too, so a document registered on one instance is found by hash on
// every other. Redis entries expire (APQ_TTL) so documents no client asks for any more leave Redis's memory; a
// client whose hash has expired gets PersistedQueryNotFound and registers it again. Redis is asked through
// SharedRedis: while it is away, late or failing, each instance goes on with its memory alone.
import { LRUCache } from 'lru-cache';
import type { SharedRedis } from '../http/redis.js';

export interface ApqStoreOptions {
  /** Documents kept in memory. */
  maxQueries: number;
  /** Bytes of documents kept in memory (a document's text counts twice: JavaScript may keep it in UTF-16). */
  maxBytes: number;
  /** How long a registered document is kept after its registration. */
  ttlMs: number;
  redis: SharedRedis | undefined;
}

export interface ApqStore {
  /** The document registered under the hash (lowercase hex), or undefined. */
  get(hash: string): Promise<string | undefined>;
  set(hash: string, document: string): Promise<void>;
}

const REDIS_PREFIX = 'lgw:apq:';
/** What an entry costs besides its text: the key, the LRU's bookkeeping. */
const OVERHEAD_BYTES = 200;

export function createApqStore({ maxQueries, maxBytes, ttlMs, redis }: ApqStoreOptions): ApqStore {
  const memory = new LRUCache<string, string>({
    max: maxQueries,
    maxSize: maxBytes,
    sizeCalculation: (document) => document.length * 2 + OVERHEAD_BYTES,
    ttl: ttlMs,
  });
  const ttlSeconds = Math.max(1, Math.ceil(ttlMs / 1000));
  return {
    async get(hash) {
      const kept = memory.get(hash);
      if (kept !== undefined) return kept;
      const shared = await redis?.run((client) => client.get(REDIS_PREFIX + hash));
      if (typeof shared !== 'string') return undefined;
      memory.set(hash, shared);
      return shared;
    },
    async set(hash, document) {
      memory.set(hash, document);
      await redis?.run((client) => client.set(REDIS_PREFIX + hash, document, 'EX', ttlSeconds));
    },
  };
}
