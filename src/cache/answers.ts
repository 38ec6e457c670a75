// Where cached answers live: in this process (an LRU bounded in bytes) and, with REDIS_URL, in Redis too, so
// instances share them. Keys already carry the listing version, so nothing here expires for freshness; Redis
// entries get a TTL only to bound Redis's memory: keys of old versions are never asked for again, and clients
// choosing ever new seeds and offsets would otherwise pile entries up (run Redis with maxmemory and
// allkeys-lru as well). An entry that expired is made again on the next request.
import { Redis } from 'ioredis';
import { LRUCache } from 'lru-cache';
import type { Logger } from 'pino';
import { compress, type Encoding } from '../http/compression.js';

export interface Answer {
  status: number;
  /** The headers the answer carries from its route (content type, Vary, Allow), not per-request ones. */
  headers: Record<string, string>;
  body: Uint8Array;
}

/** An answer as kept in memory, with its compressed forms made as clients ask for them. */
interface Kept extends Answer {
  encoded: Map<Encoding, Promise<Uint8Array>>;
  /** Written to Redis (or read from it); an answer made while Redis was away is written on its next hit. */
  shared: boolean;
}

export interface AnswerStore {
  get(key: string): Promise<Answer | undefined>;
  set(key: string, answer: Answer): void;
  /** The body in `encoding`, compressed once per kept answer. */
  encoded(key: string, answer: Answer, encoding: Encoding): Promise<Uint8Array>;
  close(): Promise<void>;
}

const REDIS_PREFIX = 'lgw:answer:';
const REDIS_TTL_SECONDS = 600;

/** Redis value: the JSON of status and headers, a newline, the body. */
function pack(answer: Answer): Buffer {
  return Buffer.concat([Buffer.from(`${JSON.stringify([answer.status, answer.headers])}\n`), answer.body]);
}

function unpack(value: Buffer): Answer | undefined {
  const end = value.indexOf(10);
  if (end < 0) return undefined;
  try {
    const [status, headers] = JSON.parse(value.subarray(0, end).toString('utf8')) as [number, Record<string, string>];
    return { status, headers, body: value.subarray(end + 1) };
  } catch {
    return undefined;
  }
}

export function createAnswerStore(options: { maxBytes: number; redisUrl?: string; logger: Logger }): AnswerStore {
  const memory = new LRUCache<string, Kept>({
    maxSize: Math.max(1, options.maxBytes),
    sizeCalculation: (answer, key) => Math.ceil(answer.body.byteLength * 1.3) + key.length + 256,
  });
  const keep = (key: string, answer: Answer, shared: boolean): Kept => {
    const kept = { ...answer, encoded: new Map(), shared };
    memory.set(key, kept);
    return kept;
  };

  let redis: Redis | undefined;
  if (options.redisUrl) {
    // No offline queue and one retry: while Redis is away (or not yet connected) a lookup misses at once.
    redis = new Redis(options.redisUrl, { enableOfflineQueue: false, maxRetriesPerRequest: 1, lazyConnect: false });
    let warned = false;
    redis.on('error', (error: Error) => {
      if (warned) return;
      warned = true;
      options.logger.warn({ err: { message: error.message } }, 'response cache: Redis unreachable, using memory only');
    });
    redis.on('ready', () => {
      warned = false;
    });
  }

  const share = (key: string, kept: Kept) => {
    if (redis?.status !== 'ready') return;
    kept.shared = true;
    redis.set(REDIS_PREFIX + key, pack(kept), 'EX', REDIS_TTL_SECONDS).catch(() => {});
  };

  return {
    async get(key) {
      const kept = memory.get(key);
      if (kept) {
        if (!kept.shared) share(key, kept);
        return kept;
      }
      if (redis?.status !== 'ready') return undefined;
      const value = await redis.getBuffer(REDIS_PREFIX + key).catch(() => null);
      const answer = value ? unpack(value) : undefined;
      return answer ? keep(key, answer, true) : undefined;
    },
    set(key, answer) {
      share(key, keep(key, answer, false));
    },
    encoded(key, answer, encoding) {
      const kept = memory.get(key) ?? keep(key, answer, true);
      let bytes = kept.encoded.get(encoding);
      if (!bytes) {
        bytes = compress(kept.body, encoding);
        kept.encoded.set(encoding, bytes);
      }
      return bytes;
    },
    async close() {
      redis?.disconnect();
    },
  };
}
