// Where cached answers live: in this process (an LRU bounded in bytes) and, with REDIS_URL, in Redis too, so
// instances share them. Keys already carry the listing version, so nothing here expires for freshness; Redis
// entries get a TTL only to bound Redis's memory: keys of old versions are never asked for again, and clients
// choosing ever new seeds and offsets would otherwise pile entries up (run Redis with maxmemory and
// allkeys-lru as well). An entry that expired is made again on the next request. Redis is asked through
// SharedRedis, so a slow or absent Redis costs a request nothing but the memory tier's misses.
//
// A kept answer is immutable: its headers are frozen, and every response made from it copies them.
import { LRUCache } from 'lru-cache';
import { compress, type Encoding } from '../http/compression.js';
import type { SharedRedis } from '../http/redis.js';

export interface Answer {
  status: number;
  /** The headers the answer carries from its route (content type, Vary, Allow), not per-request ones. */
  headers: Readonly<Record<string, string>>;
  body: Uint8Array;
}

/** An answer as kept in memory, with its compressed forms made as clients ask for them. */
interface Kept {
  answer: Answer;
  encoded: Map<Encoding, Promise<Uint8Array>>;
  /** The compressed forms made so far, for a caller that cannot wait (a hit sent at the Node edge). */
  ready: Map<Encoding, Uint8Array>;
  /** Written to Redis (or read from it); an answer made while Redis was away is written on its next hit. */
  shared: boolean;
}

/** An answer found in this process's memory, with the compressed forms made of it so far. */
export interface InMemory {
  answer: Answer;
  /** The body in `encoding` if it has been compressed already. */
  encodedNow(encoding: Encoding): Uint8Array | undefined;
}

export interface AnswerStore {
  get(key: string): Promise<Answer | undefined>;
  /** The answer if this process's memory holds it (Redis is not asked). */
  peek(key: string): InMemory | undefined;
  /** Keeps the answer (frozen) and returns it as kept. */
  set(key: string, answer: Answer): Answer;
  /** The body in `encoding`, compressed once per kept answer. */
  encoded(key: string, answer: Answer, encoding: Encoding): Promise<Uint8Array>;
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

const frozen = (answer: Answer): Answer => Object.freeze({ ...answer, headers: Object.freeze({ ...answer.headers }) });

export function createAnswerStore(options: { maxBytes: number; redis?: SharedRedis }): AnswerStore {
  const memory = new LRUCache<string, Kept>({
    maxSize: Math.max(1, options.maxBytes),
    sizeCalculation: (kept, key) => Math.ceil(kept.answer.body.byteLength * 1.3) + key.length + 256,
  });
  const keep = (key: string, answer: Answer, shared: boolean): Kept => {
    const kept: Kept = { answer: frozen(answer), encoded: new Map(), ready: new Map(), shared };
    memory.set(key, kept);
    return kept;
  };
  const { redis } = options;

  const share = (key: string, kept: Kept) => {
    if (redis?.state() !== 'ok') return;
    kept.shared = true;
    void redis?.run((client) => client.set(REDIS_PREFIX + key, pack(kept.answer), 'EX', REDIS_TTL_SECONDS));
  };

  const inMemory = (key: string): Kept | undefined => {
    const kept = memory.get(key);
    if (kept && !kept.shared) share(key, kept);
    return kept;
  };

  return {
    async get(key) {
      const kept = inMemory(key);
      if (kept) return kept.answer;
      const value = await redis?.run((client) => client.getBuffer(REDIS_PREFIX + key));
      const answer = value ? unpack(value) : undefined;
      return answer ? keep(key, answer, true).answer : undefined;
    },
    peek(key) {
      const kept = inMemory(key);
      return kept && { answer: kept.answer, encodedNow: (encoding) => kept.ready.get(encoding) };
    },
    set(key, answer) {
      const kept = keep(key, answer, false);
      share(key, kept);
      return kept.answer;
    },
    encoded(key, answer, encoding) {
      const kept = memory.get(key) ?? keep(key, answer, true);
      let bytes = kept.encoded.get(encoding);
      if (!bytes) {
        bytes = compress(kept.answer.body, encoding);
        kept.encoded.set(encoding, bytes);
        bytes.then(
          (made) => kept.ready.set(encoding, made),
          () => kept.encoded.delete(encoding),
        );
      }
      return bytes;
    },
  };
}
