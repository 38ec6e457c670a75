// The cached scenarios, on servers of their own with the response cache on: answers from this process's memory,
// revalidated with If-None-Match (304), and, when Redis can be reached, answers shared through Redis: a second
// instance whose memory cache is too small to keep the page serves the entry the first instance made. Beside each
// row, its hit limit: node:http writing the same answer (bytes and headers) from memory. With a baseline
// (BENCH_BASELINE), each build has its servers, started together, and each scenario and its hit limit are
// measured on the baseline, then on the current build.
import { Redis } from 'ioredis';
import { send } from '../test/helpers/exchange.js';
import { type Build, startBuild } from './builds.js';
import type { ServerProcess } from './harness.js';
import { startHitLimit } from './limits.js';
import type { Row } from './report.js';
import { cachedScenarios, restPage, type Scenario } from './scenarios.js';

export interface CachedRun {
  /** The server's environment: engine, log level, no seeding, no rate limit. */
  env: Record<string, string>;
  /** The builds to serve, each scenario measured on each in turn (bench/builds.ts). */
  builds: Build[];
  /** Redis for the shared-cache scenario (BENCH_REDIS_URL; PostgreSQL only); skipped when unset or unreachable. */
  redisUrl: string | undefined;
  chosen(id: string): boolean;
  measure(target: ServerProcess, scenario: Scenario, build?: Build): Promise<Row>;
  log(line: string): void;
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
  // One public address for every instance: the v2 links are built on it, so their pages are the same bytes. The
  // builds may share Redis: a cache key holds the build's fingerprint (src/cache/fingerprint.ts).
  const shared = { REDIS_URL: run.redisUrl as string, PUBLIC_URL: 'http://listing.bench' };
  const firsts: { build: Build; server: ServerProcess; etag: string }[] = [];
  try {
    for (const build of run.builds) {
      const server = await startBuild(build, { ...run.env, ...(sharing ? shared : {}) });
      const first = { build, server, etag: '' };
      firsts.push(first); // stopped below, whatever happens next
      first.etag = (await firstPage(server)).etag;
    }
    const ids = cachedScenarios('').map((s) => s.id);
    for (const id of ids.filter((s) => run.chosen(s))) {
      for (const { build, server, etag } of firsts) {
        const scenario = cachedScenarios(etag).find((s) => s.id === id) as Scenario;
        rows.push(await run.measure(server, scenario, build));
        const limit = await startHitLimit(await send(server.url, scenario.request));
        try {
          const label = 'hit limit: node:http writing the same answer from memory';
          rows.push(await run.measure(limit, { ...scenario, id: `limit-hit-${id}`, label }, build));
        } finally {
          await limit.stop();
        }
      }
    }
    if (!sharing) return rows;
    for (const { build } of firsts) {
      // One byte of memory cache: the page (440 kB) is never kept in this process; every hit is a Redis read.
      const second = await startBuild(build, { ...run.env, ...shared, RESPONSE_CACHE_BYTES: '1' });
      try {
        const { cache } = await firstPage(second);
        if (cache !== 'hit') throw new Error(`the second instance's first page was a ${cache}, not the shared entry`);
        run.log(`  the second instance's first page was a hit: the entry the first instance put in Redis${build.tag}`);
        const label = 'REST v2 first page, from Redis, on a second instance';
        rows.push(await run.measure(second, { id: 'rest-redis', label, request: restPage(0) }, build));
      } finally {
        await second.stop();
      }
    }
    return rows;
  } finally {
    await Promise.all(firsts.map(({ server }) => server.stop()));
  }
}
