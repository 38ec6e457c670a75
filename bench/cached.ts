// The cached scenarios, on servers of their own with the response cache on: answers from this process's memory,
// revalidated with If-None-Match (304), and, when Redis can be reached, answers shared through Redis: a second
// instance whose memory cache is too small to keep the page serves the entry the first instance made. Beside each
// row, its hit limit: node:http writing the same answer (bytes and headers) from memory.
import { Redis } from 'ioredis';
import { send } from '../test/helpers/exchange.js';
import { freePort, type ServerProcess, startProcess } from './harness.js';
import { startHitLimit } from './limits.js';
import type { Row } from './report.js';
import { cachedScenarios, restPage, type Scenario } from './scenarios.js';

export interface CachedRun {
  /** The server's environment: engine, log level, no seeding, no rate limit. */
  env: Record<string, string>;
  nodeArgs: string[];
  /** Redis for the shared-cache scenario (BENCH_REDIS_URL; PostgreSQL only); skipped when unset or unreachable. */
  redisUrl: string | undefined;
  chosen(id: string): boolean;
  measure(target: ServerProcess, scenario: Scenario): Promise<Row>;
  log(line: string): void;
}

async function startServer(run: CachedRun, env: Record<string, string>): Promise<ServerProcess> {
  const port = await freePort();
  return startProcess(
    'dist/server.js',
    { ...run.env, ...env, PORT: String(port) },
    `http://127.0.0.1:${port}`,
    run.nodeArgs,
  );
}

async function reachable(url: string): Promise<boolean> {
  const redis = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 0, connectTimeout: 1000 });
  try {
    await redis.connect();
    return (await redis.ping()) === 'PONG';
  } catch {
    return false;
  } finally {
    redis.disconnect();
  }
}

/** The first page from a server: its ETag and where the answer came from (X-Cache). */
async function firstPage(server: ServerProcess): Promise<{ etag: string; cache: string | null }> {
  const page = restPage(0);
  // As autocannon asks, with no content coding (fetch would ask for gzip, whose representation has its own ETag).
  const response = await fetch(`${server.url}${page.path}`, {
    headers: { ...page.headers, 'accept-encoding': page.headers['accept-encoding'] ?? 'identity' },
  });
  await response.arrayBuffer();
  const etag = response.headers.get('etag');
  if (!response.ok || !etag) throw new Error(`a cached server answered the first page ${response.status}, no ETag`);
  return { etag, cache: response.headers.get('x-cache') };
}

export async function cachedRows(run: CachedRun): Promise<Row[]> {
  const sharing = run.chosen('rest-redis') && run.redisUrl !== undefined && (await reachable(run.redisUrl));
  if (run.chosen('rest-redis') && !sharing)
    run.log('  the Redis scenario is skipped: it needs PostgreSQL and Redis at BENCH_REDIS_URL');
  if (!sharing && !cachedScenarios('').some((s) => run.chosen(s.id))) return [];

  const rows: Row[] = [];
  // One public address for both instances: the v2 links are built on it, so their pages are the same bytes.
  const shared = { REDIS_URL: run.redisUrl as string, PUBLIC_URL: 'http://listing.bench' };
  const first = await startServer(run, sharing ? shared : {});
  try {
    const { etag } = await firstPage(first);
    for (const scenario of cachedScenarios(etag).filter((s) => run.chosen(s.id))) {
      rows.push(await run.measure(first, scenario));
      const limit = await startHitLimit(await send(first.url, scenario.request));
      try {
        const label = 'hit limit: node:http writing the same answer from memory';
        rows.push(await run.measure(limit, { ...scenario, id: `limit-hit-${scenario.id}`, label }));
      } finally {
        await limit.stop();
      }
    }
    if (!sharing) return rows;
    // One byte of memory cache: the page (440 kB) is never kept in this process; every hit is a Redis read.
    const second = await startServer(run, { ...shared, RESPONSE_CACHE_BYTES: '1' });
    try {
      const { cache } = await firstPage(second);
      if (cache !== 'hit') throw new Error(`the second instance's first page was a ${cache}, not the shared entry`);
      run.log("  the second instance's first page was a hit: the entry the first instance put in Redis");
      rows.push(
        await run.measure(second, {
          id: 'rest-redis',
          label: 'REST v2 first page, from Redis, on a second instance',
          request: restPage(0),
        }),
      );
    } finally {
      await second.stop();
    }
    return rows;
  } finally {
    await first.stop();
  }
}
