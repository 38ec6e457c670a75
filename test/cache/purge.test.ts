// The purger on a real database and version watch, against a purge endpoint of the test's own: a new version
// purges every version committed since the one the watch last saw (two commits inside one watch interval
// included), at once and a second time after `repurgeAfterMs` (an answer of an old version may reach the CDN after
// the first); at most MAX_KEYS_PER_PURGE keys a POST, the same in its xkey-purge header and its JSON; an instance
// that starts purges the versions superseded within CDN_MAX_AGE; an instance that stops sends the second purges it
// still owes at once; with Redis, two instances that saw different changes send each version's two purges once
// between them.
import { existsSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Registry } from 'prom-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_KEYS_PER_PURGE, startPurger } from '../../src/cache/purge.js';
import { bumpListingVersion } from '../../src/db/write/store.js';
import { connectRedis, type SharedRedis } from '../../src/http/redis.js';
import { readListingVersion } from '../../src/listing/version.js';
import { type VersionWatch, watchListingVersion } from '../../src/listing/version-watch.js';
import { silentLogger } from '../../src/logger.js';
import { createTestDatabase, engineName, type TestDatabase } from '../helpers/database.js';
import { type Process, REDIS_SERVER, startRedis } from '../helpers/fleet.js';

const quiet = silentLogger();
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
/** Long enough that a loaded machine's commits and checks between a change and its first purge fit in it. */
const REPURGE_MS = 1_500;

interface Received {
  /** The keys its xkey-purge header names. */
  keys: string[];
  at: number;
}
let endpoint: Server;
let purgeUrl: string;
const received: Received[] = [];
/** POSTs whose JSON named other keys than their header. */
const disagreeing: string[] = [];
let db: TestDatabase;

beforeAll(async () => {
  endpoint = createServer((request, response) => {
    const header = String(request.headers['xkey-purge']);
    received.push({ keys: header.split(' '), at: Date.now() });
    let body = '';
    request.on('data', (chunk: Buffer) => {
      body += chunk.toString('utf8');
    });
    request.on('end', () => {
      if ((JSON.parse(body) as { keys: string[] }).keys.join(' ') !== header) disagreeing.push(`${header} | ${body}`);
      response.end('ok');
    });
  });
  await new Promise<void>((resolve) => endpoint.listen(0, '127.0.0.1', resolve));
  purgeUrl = `http://127.0.0.1:${(endpoint.address() as AddressInfo).port}/.xkey-purge`;
  db = await createTestDatabase();
  await commit();
}, 60_000);
afterAll(async () => {
  await new Promise((resolve) => endpoint?.close(resolve));
  await db?.destroy();
});

const current = () => readListingVersion((statement) => db.read.single(statement));
/** Commits a new listing version, as an import or a seed does; returns it. */
async function commit(): Promise<string> {
  await db.prisma.$transaction((tx) => bumpListingVersion(tx));
  return current();
}
const keysOf = (versions: string[]) => versions.map((version) => `listing-${version}`);
/** The keys of every POST received so far, one list a POST. */
const posts = () => received.map((r) => r.keys);
/** Until `count` keys have been received in all (the second purges), then a moment for any more. */
async function keysReceived(count: number): Promise<void> {
  const until = Date.now() + REPURGE_MS + 10_000;
  while (posts().flat().length < count) {
    if (Date.now() > until) throw new Error(`${count} keys not received: ${JSON.stringify(posts())}`);
    await sleep(20);
  }
  await sleep(300);
}

/** A watch that reads only when the test says (`check()`): everything committed between two checks is one interval. */
const watchOnDemand = () => watchListingVersion(db.read, 600_000, quiet);

/** `cdnMaxAgeSeconds` 0: a starting purger finds nothing superseded recently enough to purge. */
const purgerOn = (
  watch: Pick<VersionWatch, 'subscribe'>,
  {
    redis,
    repurgeAfterMs = REPURGE_MS,
    cdnMaxAgeSeconds = 0,
  }: Partial<Record<'repurgeAfterMs' | 'cdnMaxAgeSeconds', number>> & { redis?: SharedRedis } = {},
) =>
  startPurger({
    urls: [purgeUrl],
    watch,
    read: db.read,
    cdnMaxAgeSeconds,
    redis,
    registry: new Registry(),
    logger: quiet,
    repurgeAfterMs,
  });

describe(`CDN purges on ${engineName}`, () => {
  it('purges every version committed since the one last seen, two inside one watch interval, at once and again', async () => {
    received.length = 0;
    const watch = watchOnDemand();
    const purger = purgerOn(watch);
    await watch.check(); // the watch knows the version now
    await purger.settled();
    const before = await current();
    const middle = await commit(); // never seen by the watch: answers were made from it all the same
    await commit();
    const seen = Date.now();
    await watch.check();
    await purger.settled();
    expect(posts()).toEqual([keysOf([before, middle])]);
    await keysReceived(4);
    await purger.settled();
    expect(posts()).toEqual([keysOf([before, middle]), keysOf([before, middle])]);
    expect((received[1] as Received).at - seen).toBeGreaterThanOrEqual(REPURGE_MS);
    await purger.stop();
    watch.stop();
    expect(received).toHaveLength(2); // nothing was owed any more
    expect(disagreeing).toEqual([]);
  }, 30_000);

  it(`names at most ${MAX_KEYS_PER_PURGE} keys a POST, the same in its header and its JSON`, async () => {
    received.length = 0;
    const watch = watchOnDemand();
    const purger = purgerOn(watch, { repurgeAfterMs: 60_000 });
    await watch.check();
    await purger.settled();
    const superseded = [await current()];
    for (let i = 0; i < MAX_KEYS_PER_PURGE; i++) superseded.push(await commit());
    const newest = await commit();
    await watch.check();
    await purger.settled();
    expect(posts().map((keys) => keys.length)).toEqual([MAX_KEYS_PER_PURGE, 1]);
    expect(posts().flat()).toEqual(keysOf(superseded));
    expect(posts().flat()).not.toContain(`listing-${newest}`);
    expect(disagreeing).toEqual([]);
    await purger.stop();
    watch.stop();
  }, 60_000);

  it('an instance that starts purges the versions superseded within CDN_MAX_AGE before it', async () => {
    received.length = 0;
    const current0 = await current(); // current at the cutoff: superseded after it, so purged
    await sleep(300);
    const cutoff = Date.now();
    await sleep(300);
    const a = await commit();
    const b = await commit();
    await commit();
    const watch = watchOnDemand();
    const purger = purgerOn(watch, { cdnMaxAgeSeconds: (Date.now() - cutoff) / 1000 });
    await purger.settled();
    expect(posts()).toEqual([keysOf([current0, a, b])]);
    await keysReceived(6);
    await purger.settled();
    expect(posts()).toEqual([keysOf([current0, a, b]), keysOf([current0, a, b])]);
    await purger.stop();
    watch.stop();
  }, 30_000);

  it('an instance that stops sends the second purges it still owes, at once', async () => {
    received.length = 0;
    const watch = watchOnDemand();
    const purger = purgerOn(watch, { repurgeAfterMs: 60_000 });
    await watch.check();
    await purger.settled();
    const before = await current();
    await commit();
    await watch.check();
    await purger.settled();
    const stopped = Date.now();
    await purger.stop();
    expect(posts()).toEqual([keysOf([before]), keysOf([before])]);
    expect(Date.now() - stopped).toBeLessThan(1000);
    await commit(); // no longer listening
    await watch.check();
    await sleep(50);
    expect(received).toHaveLength(2);
    watch.stop();
  }, 30_000);

  describe.runIf(existsSync(REDIS_SERVER) || process.env.CI === 'true')('with Redis', () => {
    let redisServer: Process;
    const clients: SharedRedis[] = [];
    beforeAll(async () => {
      redisServer = await startRedis();
    }, 30_000);
    afterAll(async () => {
      await Promise.all(clients.map((c) => c.close()));
      await redisServer?.stop();
    });

    it('two instances that saw different changes send each version’s two purges once between them', async () => {
      received.length = 0;
      const [one, other] = [watchOnDemand(), watchOnDemand()];
      const purgers = [one, other].map((watch) => {
        // Generous: a claim that comes late is taken as Redis away (purge anyway), and the embedded database's
        // reads hold this process's event loop.
        const redis = connectRedis({ url: `redis://127.0.0.1:${redisServer.port}`, timeoutMs: 10_000, logger: quiet });
        clients.push(redis);
        return purgerOn(watch, { redis });
      });
      await Promise.all([one.check(), other.check()]);
      await sleep(200); // both connected
      const first = await current();
      const second = await commit();
      await one.check(); // one sees each commit
      await commit();
      await one.check();
      await other.check(); // the other sees both at once
      await Promise.all(purgers.map((p) => p.settled()));
      expect(posts().flat().sort()).toEqual(keysOf([first, second]).sort());
      await keysReceived(4);
      await Promise.all(purgers.map((p) => p.settled()));
      expect(posts().flat().sort()).toEqual(keysOf([first, first, second, second]).sort());
      await Promise.all(purgers.map((p) => p.stop()));
      for (const watch of [one, other]) watch.stop();
    }, 30_000);
  });
});
