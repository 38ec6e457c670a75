// Requests per client per window on both doors (/graphql and the v2 path), counted per API key where the request
// carries a valid one, else per client address. rate-limiter-flexible keeps the counts: in this process by
// default, in Redis with REDIS_URL so that every instance draws on one budget. While Redis is away, late or
// failing (src/http/redis.ts) the counts fall back to this process rather than refusing, waving everyone
// through, or making the request wait.
import type { Plugin } from 'graphql-yoga';
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';
import type { CallerOf, ServerContext } from './callers.js';
import type { SharedRedis } from './redis.js';
import { type Refusal, refusalResponse } from './refusals.js';
import { GRAPHQL_PATH, LISTING_PATH } from './routes.js';

export interface RateLimitOptions {
  /** Requests per window per client; 0 turns limiting off. */
  requests: number;
  windowMs: number;
  redis: SharedRedis | undefined;
}

const LIMITED = new Set([GRAPHQL_PATH, LISTING_PATH]);

/** The outcome of counting a request: allowed, or refused with how long until the next one is allowed. */
export type Count = { allowed: true } | { allowed: false; msBeforeNext: number };

const counted = (consumed: Promise<RateLimiterRes>): Promise<Count> =>
  consumed.then(
    () => ({ allowed: true }),
    (rejection) => {
      if (rejection instanceof RateLimiterRes) return { allowed: false, msBeforeNext: rejection.msBeforeNext };
      throw rejection;
    },
  );

export interface CounterOptions {
  /** Counts per window per key. */
  requests: number;
  windowMs: number;
  redis: SharedRedis | undefined;
  /** Names the budget: counters with different prefixes never share counts. */
  keyPrefix: string;
}

/** Counts per key and window: in Redis when it answers (one budget for every instance), else in this process. */
export function createCounter(options: CounterOptions): (key: string) => Promise<Count> {
  const shape = {
    points: options.requests,
    duration: Math.ceil(options.windowMs / 1000),
    keyPrefix: options.keyPrefix,
  };
  const local = new RateLimiterMemory(shape);
  const { redis } = options;
  if (!redis) return (key) => counted(local.consume(key));
  let shared: RateLimiterRedis | undefined;
  return async (key) => {
    const fromRedis = await redis.run((client) => {
      shared ??= new RateLimiterRedis({ ...shape, storeClient: client, insuranceLimiter: local });
      return counted(shared.consume(key));
    });
    return fromRedis ?? counted(local.consume(key));
  };
}

/** The budget of requests per caller; `count` is what both the edge and the app's plugin call, once a request. */
export interface RequestBudget {
  count(rateKey: string): Promise<Count>;
  /** The refusal of a request over the budget. */
  refusal(msBeforeNext: number): Refusal;
}

/** The request budget, or undefined when limiting is off (RATE_LIMIT=0). */
export function requestBudget(options: RateLimitOptions): RequestBudget | undefined {
  if (options.requests === 0) return undefined;
  const count = createCounter({ ...options, keyPrefix: 'listing-rl' });
  const window = `${options.windowMs / 1000} s`;
  return {
    count,
    refusal(msBeforeNext) {
      const wait = Math.max(1, Math.ceil(msBeforeNext / 1000));
      return {
        status: 429,
        code: 'RATE_LIMITED',
        message: `Too many requests: the limit is ${options.requests} per ${window} per client. Retry in ${wait} s.`,
        v2Detail: `Request was throttled. Expected available in ${wait} second${wait === 1 ? '' : 's'}.`,
        headers: { 'retry-after': String(wait) },
      };
    },
  };
}

/** Requests counted at the Node edge before the app saw them (a kept answer looked for): not counted again. */
const countedAtTheEdge = new WeakMap<object, Count>();

/**
 * Counts a node:http request at the edge, once however often asked; the app's plugin takes the outcome instead of
 * counting it again.
 */
export async function countAtTheEdge(budget: RequestBudget, request: object, rateKey: string): Promise<Count> {
  const known = countedAtTheEdge.get(request);
  if (known) return known;
  const outcome = await budget.count(rateKey);
  countedAtTheEdge.set(request, outcome);
  return outcome;
}

/** Whether a request is one the budget counts (the doors, not a preflight). */
const budgeted = (pathname: string, method: string) => LIMITED.has(pathname) && method !== 'OPTIONS';

export function rateLimit(budget: RequestBudget | undefined, callerOf: CallerOf): Plugin {
  if (!budget) return {};
  return {
    async onRequest({ request, url, serverContext, fetchAPI, endResponse }) {
      if (!budgeted(url.pathname, request.method)) return;
      const server = serverContext as ServerContext;
      const outcome =
        (server.req && countedAtTheEdge.get(server.req)) ?? (await budget.count(callerOf(request, server).rateKey));
      if (outcome.allowed) return;
      endResponse(refusalResponse(fetchAPI.Response, request, url.pathname, budget.refusal(outcome.msBeforeNext)));
    },
  };
}
