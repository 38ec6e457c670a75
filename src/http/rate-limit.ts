// Requests per client per window on both doors (/graphql and the v2 path), counted per API key where the request
// carries a valid one, else per client address. rate-limiter-flexible keeps the counts: in this process by
// default, in Redis with REDIS_URL so that every instance draws on one budget. When Redis cannot be reached the
// counts fall back to this process (its insurance limiter) rather than refusing or waving everyone through.

import type { Plugin } from 'graphql-yoga';
import { Redis } from 'ioredis';
import type { Logger } from 'pino';
import { type RateLimiterAbstract, RateLimiterMemory, RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';
import type { Caller, ServerContext } from './callers.js';
import { refusalResponse } from './refusals.js';
import { GRAPHQL_PATH, LISTING_PATH } from './routes.js';

export interface RateLimitOptions {
  /** Requests per window per client; 0 turns limiting off. */
  requests: number;
  windowMs: number;
  redisUrl: string | undefined;
  callerOf: (request: Request, server?: ServerContext) => Caller;
  logger: Logger;
}

const LIMITED = new Set([GRAPHQL_PATH, LISTING_PATH]);

function createLimiter(options: RateLimitOptions): { limiter: RateLimiterAbstract; close: () => Promise<void> } {
  const shape = { points: options.requests, duration: Math.ceil(options.windowMs / 1000), keyPrefix: 'listing-rl' };
  if (!options.redisUrl) return { limiter: new RateLimiterMemory(shape), close: async () => {} };
  // No offline queue: while Redis is away a command fails at once and the insurance limiter answers.
  const redis = new Redis(options.redisUrl, { enableOfflineQueue: false, maxRetriesPerRequest: 1 });
  let warned = false;
  redis.on('error', (error: Error) => {
    if (warned) return;
    warned = true; // ioredis retries every few hundred ms; one line per outage is enough
    options.logger.warn({ err: { message: error.message } }, 'rate limits: Redis unreachable, counting in memory');
  });
  redis.on('ready', () => {
    warned = false;
  });
  const limiter = new RateLimiterRedis({
    ...shape,
    storeClient: redis,
    insuranceLimiter: new RateLimiterMemory(shape),
  });
  return { limiter, close: async () => void redis.disconnect() };
}

export function rateLimit(options: RateLimitOptions): Plugin {
  if (options.requests === 0) return {};
  const { limiter, close } = createLimiter(options);
  const window = `${options.windowMs / 1000} s`;
  return {
    async onRequest({ request, url, serverContext, fetchAPI, endResponse }) {
      if (!LIMITED.has(url.pathname) || request.method === 'OPTIONS') return;
      const caller = options.callerOf(request, serverContext as ServerContext);
      try {
        await limiter.consume(caller.rateKey);
      } catch (rejection) {
        if (!(rejection instanceof RateLimiterRes)) throw rejection;
        const wait = Math.max(1, Math.ceil(rejection.msBeforeNext / 1000));
        endResponse(
          refusalResponse(fetchAPI.Response, request, url.pathname, {
            status: 429,
            code: 'RATE_LIMITED',
            message: `Too many requests: the limit is ${options.requests} per ${window} per client. Retry in ${wait} s.`,
            v2Detail: `Request was throttled. Expected available in ${wait} second${wait === 1 ? '' : 's'}.`,
            headers: { 'retry-after': String(wait) },
          }),
        );
      }
    },
    onDispose: close,
  };
}
