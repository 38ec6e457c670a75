// The purger against a purge endpoint of the test's own: a new version purges the previous version's key at
// once and a second time after `repurgeAfterMs` (an answer of the old version may reach the CDN after the first);
// with Redis, two instances send each of the two purges once between them; an instance that stops sends the
// second purges it still owes at once.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Registry } from 'prom-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPurger } from '../../src/cache/purge.js';
import { connectRedis, type SharedRedis } from '../../src/http/redis.js';
import type { ListingChange } from '../../src/listing/version-watch.js';
import { silentLogger } from '../../src/logger.js';
import { fleetToolsInstalled, type Process, startRedis } from '../helpers/fleet.js';

const quiet = silentLogger();
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface Received {
  key: string;
  at: number;
}
let endpoint: Server;
let purgeUrl: string;
const received: Received[] = [];

beforeAll(async () => {
  endpoint = createServer((request, response) => {
    received.push({ key: String(request.headers['xkey-purge']), at: Date.now() });
    request.resume();
    request.on('end', () => response.end('ok'));
  });
  await new Promise<void>((resolve) => endpoint.listen(0, '127.0.0.1', resolve));
  purgeUrl = `http://127.0.0.1:${(endpoint.address() as AddressInfo).port}/.xkey-purge`;
});
afterAll(() => new Promise((resolve) => endpoint?.close(resolve)));

/** A version watch the test drives: `change(n)` tells every listener that version n follows n - 1. */
function fakeWatch() {
  const listeners = new Set<(change: ListingChange) => void>();
  return {
    subscribe(listener: (change: ListingChange) => void) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    change(version: number) {
      const change = { version: String(version), previous: String(version - 1), count: 1, changedAt: new Date() };
      for (const listener of listeners) listener(change);
    },
  };
}

const purgerOn = (watch: ReturnType<typeof fakeWatch>, redis?: SharedRedis, repurgeAfterMs = 400) =>
  startPurger({ urls: [purgeUrl], watch, redis, registry: new Registry(), logger: quiet, repurgeAfterMs });

describe('CDN purges', () => {
  it('purges the previous version at once, and again once its last answers have left', async () => {
    received.length = 0;
    const watch = fakeWatch();
    const purger = purgerOn(watch);
    const seen = Date.now();
    watch.change(101);
    await purger.settled();
    expect(received.map((r) => r.key)).toEqual(['listing-100']);
    await sleep(600);
    await purger.settled();
    expect(received.map((r) => r.key)).toEqual(['listing-100', 'listing-100']);
    expect((received[1] as Received).at - seen).toBeGreaterThanOrEqual(400);
    await purger.stop();
    expect(received).toHaveLength(2); // nothing was owed any more
  });

  it('an instance that stops sends the second purges it still owes, at once', async () => {
    received.length = 0;
    const watch = fakeWatch();
    const purger = purgerOn(watch, undefined, 60_000);
    watch.change(201);
    await purger.settled();
    const stopped = Date.now();
    await purger.stop();
    expect(received.map((r) => r.key)).toEqual(['listing-200', 'listing-200']);
    expect(Date.now() - stopped).toBeLessThan(1000);
    watch.change(202); // no longer listening
    await sleep(50);
    expect(received).toHaveLength(2);
  });

  describe.runIf(fleetToolsInstalled() || process.env.CI === 'true')('with Redis', () => {
    let redisServer: Process;
    const clients: SharedRedis[] = [];
    beforeAll(async () => {
      redisServer = await startRedis();
    });
    afterAll(async () => {
      await Promise.all(clients.map((c) => c.close()));
      await redisServer?.stop();
    });

    it('two instances send each of the two purges once between them', async () => {
      received.length = 0;
      const watch = fakeWatch();
      const purgers = [0, 1].map(() => {
        const redis = connectRedis({ url: `redis://127.0.0.1:${redisServer.port}`, timeoutMs: 500, logger: quiet });
        clients.push(redis);
        return purgerOn(watch, redis);
      });
      await sleep(200); // both connected
      watch.change(301);
      await Promise.all(purgers.map((p) => p.settled()));
      expect(received.map((r) => r.key)).toEqual(['listing-300']);
      await sleep(600);
      await Promise.all(purgers.map((p) => p.settled()));
      expect(received.map((r) => r.key)).toEqual(['listing-300', 'listing-300']);
      await Promise.all(purgers.map((p) => p.stop()));
    });
  });
});
