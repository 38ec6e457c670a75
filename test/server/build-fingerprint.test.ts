// Every cache key carries the build's fingerprint (src/build-fingerprint.ts): during a rolling deploy, an instance
// built from changed code never serves the bytes the old build kept in the shared Redis, while instances of one
// build share them wherever the build was installed. Real server processes, one PostgreSQL database, one Redis.
// PostgreSQL only (TEST_DATABASE_URL): several instances read one database.
import { randomInt } from 'node:crypto';
import { appendFileSync, cpSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPostgresDatabaseUrl, onPostgres } from '../helpers/database.js';
import { runScript, type ServerProcess, startServer } from '../helpers/server-process.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
const cleanup: (() => unknown)[] = [];

/** A copy of the built project (its dist/, the rest linked), fingerprinted as `npm run build` does. */
async function installedCopy(change?: string): Promise<string> {
  const root = mkdtempSync(join(tmpdir(), 'build-copy-'));
  cleanup.push(() => rmSync(root, { recursive: true, force: true }));
  cpSync(join(ROOT, 'dist'), join(root, 'dist'), { recursive: true });
  for (const name of ['node_modules', 'prisma', 'package.json', 'package-lock.json']) {
    symlinkSync(join(ROOT, name), join(root, name));
  }
  // A change to the code that changes no answer: only the fingerprint tells the builds apart.
  if (change) appendFileSync(join(root, 'dist', change), '\n// changed\n');
  const done = await runScript('src/cli/fingerprint.ts', {}, [join(root, 'dist')]);
  expect(done.code).toBe(0);
  return root;
}

/** Whether Redis holds an answer whose body is `bytes` (entries are JSON headers, a newline, the body). */
async function redisHolds(redis: Redis, bytes: string): Promise<boolean> {
  for await (const keys of redis.scanStream({ match: 'lgw:answer:*', count: 1000 })) {
    for (const key of keys as string[]) if ((await redis.get(key))?.endsWith(`\n${bytes}`)) return true;
  }
  return false;
}

/** Resolves once the instance says it reaches Redis (until then it keeps answers in its memory only). */
async function reachingRedis(server: ServerProcess): Promise<void> {
  for (let i = 0; i < 50; i++) {
    const health = (await (await fetch(`${server.url}/healthz`)).json()) as { redis?: string };
    if (health.redis === 'ok') return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`${server.url} never reached Redis`);
}

describe.runIf(onPostgres)('the build fingerprint in the cache keys of instances sharing Redis', () => {
  let url: string;
  let servers: ServerProcess[] = [];
  const redis = new Redis(REDIS_URL, { lazyConnect: true });

  beforeAll(async () => {
    const database = await createPostgresDatabaseUrl();
    cleanup.push(database.drop);
    url = database.url;
    const seeded = await runScript('src/cli/seed.ts', { DATABASE_URL: url }, ['--packages', '30']);
    expect(seeded.code).toBe(0);
    await redis.connect();
  }, 60_000);
  afterAll(async () => {
    await Promise.all(servers.map((server) => server.stop('SIGTERM')));
    redis.disconnect();
    for (const step of cleanup.reverse()) await step();
  });

  it("is never served another build's answer, and shares one build's answers between its installs", async () => {
    const [same, changed] = await Promise.all([installedCopy(), installedCopy('rest/render.js')]);
    // One public address: the v2 links (and so the answers) do not name the instance.
    const env = { DATABASE_URL: url, REDIS_URL, RATE_LIMIT: '0', PUBLIC_URL: 'http://listing.example' };
    servers = await Promise.all([startServer(env), startServer(env, same), startServer(env, changed)]);
    const [original, sameBuild, changedBuild] = servers as [ServerProcess, ServerProcess, ServerProcess];
    for (const server of servers) await reachingRedis(server);
    // A seed of this run's own: no earlier run kept this page.
    const page = `/v2/local-package-list/?limit=5&seed=${randomInt(1, 2 ** 31)}`;
    const first = await fetch(`${original.url}${page}`);
    expect(first.headers.get('x-cache')).toBe('miss');
    const bytes = await first.text();
    for (let i = 0; i < 50 && !(await redisHolds(redis, bytes)); i++) await new Promise((r) => setTimeout(r, 100));
    expect(await redisHolds(redis, bytes)).toBe(true);

    // Each instance asked once: the same build's other install hits Redis, the changed build makes its own.
    const fromSame = await fetch(`${sameBuild.url}${page}`);
    expect(fromSame.headers.get('x-cache')).toBe('hit');
    expect(await fromSame.text()).toBe(bytes);
    const fromChanged = await fetch(`${changedBuild.url}${page}`);
    expect(fromChanged.headers.get('x-cache')).toBe('miss');
    expect(await fromChanged.text()).toBe(bytes);
    expect(fromChanged.headers.get('etag')).not.toBe(first.headers.get('etag'));
  }, 60_000);
});
