// What automatic persisted queries may keep in Redis: APQ_REDIS_MAX_BYTES in all, from every instance, and
// APQ_MAX_BYTES_PER_CALLER registered by one caller, each over a window of APQ_TTL (a document kept in Redis expires
// APQ_TTL after its registration, so the bytes registered within the last APQ_TTL bound the bytes alive).
//
// The bytes are counted in Redis, in time buckets (BUCKETS per APQ_TTL; an hour each at the default TTL): one
// counter per bucket for everyone, one per bucket and caller, each expiring once no document it counted can be
// alive. A registration sums the buckets that may still hold live documents, and one Lua script (atomic, so
// instances registering at once cannot both take the last room) refuses the caller past its budget, and stores
// and counts the document only while the total leaves room (past it, the document is kept by the instance alone,
// and neither counted nor given a counter in Redis: nothing a caller does then adds to what Redis keeps). A
// document counts as a quarter more than its UTF-8 bytes (what Redis's allocator may round a value up to) and
// ENTRY_BYTES for its key, Redis's bookkeeping and the two counters it may begin.
//
// The counters are Redis keys like any other: under `maxmemory` with `allkeys-lru`, Redis may evict a cold one,
// and its bytes are then forgotten (the bound loosens by them; it never refuses more).
import type { SharedRedis } from '../http/redis.js';

/** Buckets per APQ_TTL: the window is counted to within one bucket. */
const BUCKETS = 24;
/** What a kept document costs Redis besides its text: its key, Redis's bookkeeping of it, a share of the counters. */
export const ENTRY_BYTES = 384;
const COUNTER_PREFIX = 'lgw:apq-bytes:';

/** What a document counts against the budgets. */
export const documentCost = (document: string): number => Math.ceil(Buffer.byteLength(document) * 1.25) + ENTRY_BYTES;

export interface ApqBudgetOptions {
  /** Bytes kept in Redis within a TTL by every instance together; 0: no document is kept in Redis. */
  totalBytes: number;
  /** Bytes one caller may register within a TTL; 0: no bound. */
  callerBytes: number;
  ttlMs: number;
}

/**
 * A registration's fate: `shared` (kept in Redis, or there already), `memory` (the total is reached: this instance
 * keeps it alone), `refused` (the caller's budget is spent, until `retryAfterSeconds` from now).
 */
export type Sharing = { kept: 'shared' | 'memory' } | { refused: true; retryAfterSeconds: number };

// KEYS: the document's key, then the total's buckets and the caller's, oldest first (the current one last).
// ARGV: the document, its cost, the TTL and the bucket length (seconds), seconds into the current bucket, and the
// bounds. Returns {2} stored, {1} there already, {0} not stored (the total is reached), {-1, age} refused, where age
// is the number of buckets the caller's oldest counted one lies behind the current one.
const SCRIPT = `
local n = (#KEYS - 1) / 2
local cost, ttl, bucket, into = tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4]), tonumber(ARGV[5])
local total_max, caller_max = tonumber(ARGV[6]), tonumber(ARGV[7])
if redis.call('EXISTS', KEYS[1]) == 1 then return {1} end
local function used(first)
  local sum, oldest = 0, nil
  for i = first, first + n - 1 do
    local v = tonumber(redis.call('GET', KEYS[i]) or '0')
    if v > 0 then
      sum = sum + v
      if oldest == nil then oldest = n - 1 - (i - first) end
    end
  end
  return sum, oldest
end
-- A bucket's counter is kept as long as a document it counts may be alive, and no longer.
local keep = ttl + bucket - into
if caller_max > 0 then
  local spent, oldest = used(n + 2)
  if spent + cost > caller_max then return {-1, oldest or 0} end
end
if total_max == 0 or used(2) + cost > total_max then return {0} end
for _, counter in ipairs({KEYS[n + 1], KEYS[#KEYS]}) do
  redis.call('INCRBY', counter, cost)
  redis.call('EXPIRE', counter, keep)
end
redis.call('SET', KEYS[1], ARGV[1], 'EX', ttl)
return {2}
`;

export interface ApqBudget {
  /**
   * Counts the document against the caller's budget and keeps it in Redis (under `key`) where the total allows;
   * undefined when Redis is away, late or failing (then nothing is counted, and nothing kept in Redis).
   */
  share(key: string, document: string, caller: string): Promise<Sharing | undefined>;
}

export function apqBudget(options: ApqBudgetOptions, redis: SharedRedis): ApqBudget {
  const ttlSeconds = Math.max(1, Math.ceil(options.ttlMs / 1000));
  const bucketSeconds = Math.max(1, Math.ceil(ttlSeconds / BUCKETS));
  // The buckets that may hold live documents: the current one and those begun less than a TTL before it ended.
  const window = Math.ceil(ttlSeconds / bucketSeconds) + 1;
  const buckets = (prefix: string, current: number) =>
    Array.from({ length: window }, (_, i) => `${prefix}${current - window + 1 + i}`);

  return {
    async share(key, document, caller) {
      const now = Math.floor(Date.now() / 1000);
      const current = Math.floor(now / bucketSeconds);
      const into = now - current * bucketSeconds;
      const keys = [
        key,
        ...buckets(`${COUNTER_PREFIX}all:`, current),
        ...buckets(`${COUNTER_PREFIX}caller:${caller}:`, current),
      ];
      const args = [document, documentCost(document), ttlSeconds, bucketSeconds, into];
      const bounds = [options.totalBytes, options.callerBytes];
      const outcome = (await redis.run((client) => client.eval(SCRIPT, keys.length, ...keys, ...args, ...bounds))) as
        | number[]
        | undefined;
      if (!outcome) return undefined;
      const [status = 0, age = 0] = outcome;
      if (status > 0) return { kept: 'shared' };
      if (status === 0) return { kept: 'memory' };
      // The caller's oldest counted bucket leaves the window when the bucket `window - age` buckets on begins.
      const retryAfterSeconds = Math.max(1, (current + window - age) * bucketSeconds - now);
      return { refused: true, retryAfterSeconds };
    },
  };
}
