// The replica router on databases of our own making (their versions, WAL positions and failures set by the test,
// the clock faked): reads go to the replicas at the newest listing (versions are random: the newest is the one
// furthest along the WAL, or one a request found ahead), a request's re-runs never return to a database that
// failed it, the lag clock keeps running while the primary cannot be asked, and a replica behind serves the old
// version no longer than the router says (the CDN's second purge waits that long).
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { type ReadRouter, type ReadTarget, routeReads } from '../../src/db/replicas.js';
import type { ReadPath } from '../../src/db/sql.js';

interface FakeDatabase extends ReadTarget {
  /** The listing version it answers with; undefined: it cannot be asked. */
  at: string | undefined;
  wal: bigint;
}

function fake(role: string, at: string | undefined, wal = 100n): FakeDatabase {
  const read = { role } as unknown as ReadPath;
  const database: FakeDatabase = {
    role,
    at,
    wal,
    read,
    pool: { total: () => 0, idle: () => 0, waiting: () => 0 },
    version: async () => {
      if (database.at === undefined) throw new Error('connect ECONNREFUSED');
      return { version: database.at, wal: database.wal };
    },
  };
  return database;
}

const roleOf = (read: ReadPath | undefined) => read?.role;
const picks = (router: ReadRouter, n: number) => Array.from({ length: n }, () => roleOf(router.forRequest({})));

let router: ReadRouter | undefined;
beforeEach(() => vi.useFakeTimers({ now: 1_000_000 }));
afterEach(() => {
  router?.close();
  vi.useRealTimers();
});

describe('reads at the newest version seen', () => {
  it('go to the replica that has replayed an import, not round robin with one that has not', async () => {
    const primary = fake('primary', '5', 300n);
    router = await routeReads(primary, [fake('replica 1', '5', 200n), fake('replica 2', '4', 100n)], 10_000);
    expect(router.statuses().map((s) => s.serving)).toEqual([false, true, true]);
    expect(new Set(picks(router, 10))).toEqual(new Set(['replica 1']));
  });

  it("follow a version a request's own reads found, before the next watch sees it", async () => {
    router = await routeReads(fake('primary', '4'), [fake('replica 1', '4'), fake('replica 2', '4')], 10_000);
    expect(new Set(picks(router, 4))).toEqual(new Set(['replica 1', 'replica 2']));
    router.seen('replica 2', '5');
    expect(new Set(picks(router, 10))).toEqual(new Set(['replica 2']));
    router.seen('replica 1', '5'); // caught up
    expect(new Set(picks(router, 10))).toEqual(new Set(['replica 1', 'replica 2']));
  });
});

describe("a request's reads made again", () => {
  it('try each database once: the freshest replicas, then the primary, then none', async () => {
    const primary = fake('primary', '5');
    const [one, two] = [fake('replica 1', '5'), fake('replica 2', '5')];
    router = await routeReads(primary, [one, two], 10_000);
    const avoid = new Set<object>([one.read]);
    expect(roleOf(router.pick(avoid))).toBe('replica 2');
    avoid.add(two.read);
    expect(roleOf(router.pick(avoid))).toBe('primary');
    avoid.add(primary.read);
    expect(router.pick(avoid)).toBeUndefined();
  });

  it('go to a replica behind the others only once the primary has failed the request too', async () => {
    const primary = fake('primary', '5');
    const [one, two] = [fake('replica 1', '5', 200n), fake('replica 2', '4', 100n)];
    router = await routeReads(primary, [one, two], 10_000);
    expect(roleOf(router.pick(new Set([one.read])))).toBe('primary');
    expect(roleOf(router.pick(new Set([one.read, primary.read])))).toBe('replica 2');
  });
});

describe('the lag clock', () => {
  it('runs on while the primary cannot be asked: a stale replica gets no new REPLICA_MAX_LAG', async () => {
    const primary = fake('primary', '7');
    const replica = fake('replica 1', '6');
    router = await routeReads(primary, [replica], 3000);
    const status = () => router?.statuses()[1];
    expect(status()).toMatchObject({ serving: true, lagSeconds: 0 });
    await vi.advanceTimersByTimeAsync(2000);
    expect(status()?.lagSeconds).toBe(2);
    primary.at = undefined; // the primary goes away; the replica still has not replayed version 7
    await vi.advanceTimersByTimeAsync(2000);
    expect(status()).toMatchObject({ serving: false, lagSeconds: 4 });
    primary.at = '7'; // back: the replica is as far behind as it was, not level again
    await vi.advanceTimersByTimeAsync(1000);
    expect(status()).toMatchObject({ serving: false, lagSeconds: 5 });
    replica.at = '7';
    await vi.advanceTimersByTimeAsync(1000);
    expect(status()).toMatchObject({ serving: true, lagSeconds: 0 });
  });

  it('lets a replica behind serve the version before the primary’s for at most staleMs after the commit', async () => {
    const primary = fake('primary', '1');
    const replica = fake('replica 1', '1');
    router = await routeReads(primary, [replica], 3000);
    await vi.advanceTimersByTimeAsync(1);
    primary.at = '2'; // committed just after a watch: the worst case
    const committed = Date.now();
    let servedUntil = committed;
    for (let step = 0; step < 100 && roleOf(router.forRequest({})) === 'replica 1'; step++) {
      servedUntil = Date.now();
      await vi.advanceTimersByTimeAsync(100);
    }
    expect(servedUntil - committed).toBeGreaterThan(3000);
    expect(servedUntil - committed).toBeLessThanOrEqual(router.staleMs);
  });

  it('counts from when the primary first had the version a returning replica lacks', async () => {
    const primary = fake('primary', '3');
    const replica = fake('replica 1', '3');
    router = await routeReads(primary, [replica], 3000);
    replica.at = undefined; // the replica goes away
    await vi.advanceTimersByTimeAsync(1000);
    primary.at = '4'; // an import while it is away
    await vi.advanceTimersByTimeAsync(5000);
    replica.at = '3'; // back, without the import
    await vi.advanceTimersByTimeAsync(1000);
    expect(router.statuses()[1]).toMatchObject({ reachable: true, serving: false, lagSeconds: 5 });
  });
});
