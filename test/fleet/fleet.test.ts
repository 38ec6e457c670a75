// The gateway as a fleet, every part a real process on loopback: a private PostgreSQL primary and streaming
// standby, PgBouncer in transaction mode in front of each, a private Redis, two gateway instances (the compiled
// server, started at once) and HAProxy running deploy/haproxy.cfg. Steady load goes through HAProxy while an
// import lands on the primary and the standby, one instance and Redis are stopped in turn; then the last database
// goes too, and one request shows HAProxy passing the instance's 503 on instead of asking again. HAProxy's public
// frontend is held to refusing /metrics and /healthz. Bounded: a few seconds per phase; everything is stopped by
// PID at the end. Runs with the PostgreSQL suite (TEST_DATABASE_URL), once;
// needs Debian's postgresql, pgbouncer, haproxy and redis-server (CI installs them).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { onPostgres } from '../helpers/database.js';
import { send } from '../helpers/http-server.js';
import { StopList } from '../helpers/processes.js';
import { runScript, type ServerProcess } from '../helpers/server-process.js';
import { allRecords, databases, type Fleet, fleetInstalled, startFleet } from './fleet-up.js';
import { type LoadRun, type Outcome, startLoad } from './load.js';

const inCi = process.env.CI === 'true';
const installed = fleetInstalled();
const runs = onPostgres && (installed || inCi);
if (onPostgres && !runs) console.warn('fleet test skipped: apt-get install pgbouncer haproxy redis-server');

const PACKAGES = 120;
const MARK = 'imported ';
const stops = new StopList();
let fleet: Fleet;
let gateways: ServerProcess[] = [];
let work: string;
/** What the note reports: requests and failures per phase, times to recover, replica lag seen. */
const figures: Record<string, unknown> = {};
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

beforeAll(async () => {
  if (!runs) return;
  if (!installed) throw new Error('CI=true: apt-get install pgbouncer haproxy redis-server');
  work = mkdtempSync(join(tmpdir(), 'fleet-'));
  fleet = await startFleet({ packages: PACKAGES }, stops);
  gateways = [...fleet.gateways];
}, 120_000);

afterAll(async () => {
  console.log(`fleet figures: ${JSON.stringify(figures)}`);
  await stops.stopAll();
  if (work) rmSync(work, { recursive: true, force: true });
}, 60_000);

/** Requests each instance sent to each database so far (db_routed_requests_total). */
async function routed(gateway: ServerProcess): Promise<Record<string, number>> {
  const text = await (await fetch(`${gateway.url}/metrics`)).text();
  const counts: Record<string, number> = {};
  for (const match of text.matchAll(/^db_routed_requests_total\{role="([^"]+)"\} (\d+)$/gm)) {
    counts[match[1] as string] = Number(match[2]);
  }
  return counts;
}

/** How many v2 requests each instance answered with `status` (http_request_duration_seconds), summed. */
async function answered(fleet: ServerProcess[], status: number): Promise<number> {
  let total = 0;
  for (const gateway of fleet) {
    const text = await (await fetch(`${gateway.url}/metrics`)).text();
    for (const match of text.matchAll(/^http_request_duration_seconds_count\{([^}]*)\} (\d+)$/gm)) {
      const labels = match[1] as string;
      if (labels.includes(`status="${status}"`) && labels.includes('route="/v2/local-package-list/"')) {
        total += Number(match[2]);
      }
    }
  }
  return total;
}

/** The keys of Redis whose value is `body`'s bytes (a cached answer ends with its body). */
async function keysHolding(client: Redis, body: Buffer, except: ReadonlySet<string>): Promise<string[]> {
  const found: string[] = [];
  for (const key of await client.keys('*')) {
    if (except.has(key)) continue;
    const value = await client.getBuffer(key).catch(() => null); // not a string: no cached answer
    if (value && value.length > body.length && value.subarray(value.length - body.length).equals(body)) {
      found.push(key);
    }
  }
  return found;
}

function summary(outcomes: Outcome[]) {
  const failed = outcomes.filter((o) => !o.ok);
  return { requests: outcomes.length, failed: failed.length, failures: failed.slice(0, 5).map((o) => o.problem) };
}

/** Runs the load through HAProxy for `ms`, with `during` started after `after` ms. */
async function underLoad(ms: number, during?: () => Promise<void>, after = 500): Promise<LoadRun> {
  const load = startLoad(fleet.url, { clients: 4, mark: MARK });
  await sleep(after);
  await during?.();
  await sleep(Math.max(0, ms - after));
  return load.stop();
}

describe.runIf(runs)('a fleet: primary and standby, PgBouncer, Redis, two instances behind HAProxy', () => {
  it('reads every page from the standby: the primary serves none while it is healthy', async () => {
    const before = await Promise.all(gateways.map(routed));
    const run = await underLoad(3000);
    const after = await Promise.all(gateways.map(routed));
    figures.steady = summary(run.outcomes);
    expect(summary(run.outcomes).failed).toBe(0);
    for (const [i, counts] of after.entries()) {
      expect(counts.primary).toBe(before[i]?.primary);
      expect(counts['replica 1']).toBeGreaterThan(before[i]?.['replica 1'] ?? 0);
    }
  }, 20_000);

  it('refuses /metrics and /healthz on the public frontend, however the path is spelled', async () => {
    const balancer = fleet.url;
    for (const path of [
      '/metrics',
      '/%6Detrics',
      '/%6detrics',
      '/%256Detrics',
      '/METRICS',
      '//metrics',
      '/metrics?format=text',
      '/v2/../metrics',
      `${fleet.url}/metrics`,
      '/healthz',
      '/%68ealthz',
      '/healthz?x=1',
    ]) {
      const answer = await send(balancer, { method: 'GET', path, headers: {} });
      // HAProxy's own 404: no instance was asked (it would have said which).
      expect({ path, status: answer.status, servedBy: answer.headers['x-served-by'] }).toEqual({
        path,
        status: 404,
        servedBy: undefined,
      });
      expect(answer.body.toString()).not.toMatch(/http_request|databases|status/);
    }
    // The rest of the service is served there, and each instance still serves both on its own address.
    const page = await send(balancer, { method: 'GET', path: '/v2/local-package-list/?limit=1', headers: {} });
    expect(page.status).toBe(200);
    expect(page.headers['x-served-by']).toMatch(/^gateway-/);
    expect((await send(balancer, { method: 'GET', path: '/livez', headers: {} })).status).toBe(200);
    for (const gateway of gateways) {
      expect((await fetch(`${gateway.url}/healthz`)).status).toBe(200);
      expect(await (await fetch(`${gateway.url}/metrics`)).text()).toContain('http_request_duration_seconds');
    }
  });

  it('serves an answer cached by one instance from the other, at its first ask', async () => {
    const ask = { method: 'GET', path: '/v2/local-package-list/?limit=7&offset=3&seed=987654' };
    const headers = { accept: 'application/json' };
    const [one, two] = gateways as [ServerProcess, ServerProcess];
    const client = new Redis({ host: '127.0.0.1', port: fleet.redis.port, maxRetriesPerRequest: 1 });
    try {
      const before = new Set(await client.keys('*'));
      const first = await send(one.url, { ...ask, headers });
      expect(first.headers['x-cache']).toBe('miss');
      // The first instance writes the answer to Redis after it has sent it: wait until Redis holds it.
      let stored = await keysHolding(client, first.body, before);
      for (let i = 0; i < 40 && stored.length === 0; i++) {
        await sleep(50);
        stored = await keysHolding(client, first.body, before);
      }
      expect(stored).toHaveLength(1);
      // The other instance has never seen this request: its first answer comes from Redis.
      const second = await send(two.url, { ...ask, headers });
      expect(second.status).toBe(200);
      expect(second.headers['x-cache']).toBe('hit');
      expect(second.body.equals(first.body)).toBe(true);
      expect(second.body.toString()).toContain('http://listing.example/v2/local-package-list/?limit=7');
    } finally {
      client.disconnect();
    }
  });

  it('serves an import on the primary from both instances once the standby replays it, never a mixed page', async () => {
    // Every title changed: an answer mixing the two versions would show some titles of each.
    const records = await allRecords(gateways[0] as ServerProcess);
    expect(records).toHaveLength(PACKAGES);
    const file = join(work, 'import.json');
    writeFileSync(file, JSON.stringify(records.map((r) => ({ ...r, title: `${MARK}${r.title}` }))));
    let imported = 0;
    const lags: number[] = [];
    const seenBy: number[] = [];
    const run = await underLoad(
      500,
      async () => {
        const result = await runScript(
          'src/cli/import.ts',
          { DATABASE_URL: fleet.replication.primary.url('postgres') },
          [file],
        );
        expect(result.code, result.stderr).toBe(0);
        imported = Date.now();
        // Until every instance answers with the imported listing.
        for (const gateway of gateways) {
          for (;;) {
            lags.push(...(await databases(gateway)).map((d) => d.lagSeconds ?? 0));
            const page = await (await fetch(`${gateway.url}/v2/local-package-list/?limit=5&seed=11`)).json();
            if ((page as { results: { title: string }[] }).results.every((r) => r.title.startsWith(MARK))) break;
            expect(Date.now() - imported).toBeLessThan(10_000);
            await sleep(50);
          }
          seenBy.push(Date.now() - imported);
        }
      },
      500,
    );
    figures.import = {
      ...summary(run.outcomes),
      servedByBothAfterMs: Math.max(...seenBy),
      maxLagSeconds: Math.max(...lags),
    };
    expect(run.outcomes.filter((o) => o.mixed)).toEqual([]);
    expect(summary(run.outcomes).failed).toBe(0);
    // Both versions were served while the import landed, each whole.
    expect(run.outcomes.some((o) => o.version === 'new')).toBe(true);
  }, 40_000);

  it('costs no request when the standby stops; reads go to the primary', async () => {
    let stoppedAt = 0;
    let skippedAfterMs = 0;
    const run = await underLoad(6000, async () => {
      await fleet.replication.standby.stop('immediate');
      stoppedAt = Date.now();
      // Until every instance has stopped reading from it (a read that fails there skips it at once).
      for (const gateway of gateways) {
        while ((await databases(gateway))[1]?.serving) await sleep(20);
      }
      skippedAfterMs = Date.now() - stoppedAt;
    });
    const late = run.outcomes.filter((o) => o.at - stoppedAt > 5000);
    figures.standbyStopped = { ...summary(run.outcomes), requestsAfter5s: late.length, skippedAfterMs };
    expect(summary(run.outcomes).failed).toBe(0);
    expect(late.length).toBeGreaterThan(0);
    for (const gateway of gateways) {
      expect((await databases(gateway))[1]).toMatchObject({ reachable: false, serving: false });
    }
    const counts = await routed(gateways[0] as ServerProcess);
    expect(counts.primary).toBeGreaterThan(0);
  }, 20_000);

  it('costs at most the requests in flight on an instance that stops', async () => {
    let exitCode: number | null = null;
    // On SIGTERM the instance accepts no new connection (HAProxy sends those requests to the other instance) and
    // answers those it has accepted; HAProxy retries no answer an instance gave.
    const run = await underLoad(4000, async () => {
      exitCode = await (gateways[1] as ServerProcess).stop('SIGTERM');
    });
    figures.instanceStopped = summary(run.outcomes);
    expect(exitCode).toBe(0);
    expect(summary(run.outcomes).failed).toBeLessThanOrEqual(4);
    gateways = gateways.slice(0, 1);
  }, 30_000);

  it('costs no request when Redis stops', async () => {
    const run = await underLoad(4000, () => fleet.redis.stop());
    figures.redisStopped = summary(run.outcomes);
    expect(summary(run.outcomes).failed).toBe(0);
    const health = await (await fetch(`${gateways[0]?.url}/healthz`)).json();
    expect(health).toMatchObject({ status: 'ok', redis: 'unreachable' });
  }, 20_000);

  it("passes the instance's 503 and Retry-After on when no database is left, asking it once", async () => {
    // The standby is stopped already; stopping the primary's pooler leaves the instance no database. Asked at
    // once, before HAProxy's checks (2 x 500 ms) take the instance out and HAProxy answers 503 itself.
    const before = await answered(gateways, 503);
    await fleet.bouncers[0].stop();
    const stoppedAt = Date.now();
    // A page no one asked for yet, so no cache can answer it.
    const path = '/v2/local-package-list/?limit=3&seed=5150';
    const answer = await send(fleet.url, { method: 'GET', path, headers: {} });
    figures.databaseOutage = { status: answer.status, answeredAfterMs: Date.now() - stoppedAt };
    expect(answer.headers['x-served-by']).toBe('gateway-1');
    expect(answer.status).toBe(503);
    expect(answer.headers['retry-after']).toBe('5');
    expect(JSON.parse(answer.body.toString())).toEqual({ detail: 'Service temporarily unavailable.' });
    // One request asked, one answered: HAProxy did not send it again.
    expect((await answered(gateways, 503)) - before).toBe(1);
  }, 20_000);
});
