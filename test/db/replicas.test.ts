// Read replicas on real streaming replication: a private primary and standby (test/helpers/replication.ts). Pages
// are read from the standby while it keeps up; while its replay is paused past REPLICA_MAX_LAG it is skipped; a
// stopped standby costs no request. The re-run path fires, as the traces show: a request whose replicas' connections
// break under it runs again on each database once; a standby cancelling a statement for a change it replays
// (40001) costs the request a re-run on the primary, not an error; a standby that is only slow (statement timeout,
// full pool) fails those requests and keeps serving. Runs with the PostgreSQL suite (TEST_DATABASE_URL), once.
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { type Database, openDatabase } from '../../src/db/client.js';
import { migrate } from '../../src/db/migrate.js';
import { bumpListingVersion } from '../../src/db/write/store.js';
import { seedDemoData } from '../../src/demo/seed.js';
import { onPostgres } from '../helpers/database.js';
import { type ServedApp, send, serveApp } from '../helpers/http-server.js';
import { type ExportedSpan, type OtlpReceiver, startOtlpReceiver } from '../helpers/otlp-receiver.js';
import { type Replication, replicationInstalled, startReplication } from '../helpers/replication.js';
import { startTcpProxy } from '../helpers/tcp-proxy.js';

const inCi = process.env.CI === 'true';
const runs = onPostgres && (replicationInstalled() || inCi);

let replication: Replication;
let writer: Database;
let db: Database;
let app: ServedApp;
let receiver: OtlpReceiver;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

beforeAll(async () => {
  if (!runs) return;
  receiver = await startOtlpReceiver(); // before the apps: their GraphQL phases are traced
  replication = await startReplication();
  writer = await openDatabase({ kind: 'postgresql', url: replication.primary.url('postgres') });
  await migrate(writer);
  await seedDemoData(writer, { packages: 40 });
  await waitForReplay();
  db = await openDatabase(
    {
      kind: 'postgresql',
      url: replication.primary.url('postgres'),
      replicaUrls: [replication.standby.url('postgres')],
      replicaMaxLagMs: 1000,
    },
    { writes: false },
  );
  // The reads routed per request are counted: the instance's own version watch (every second) is slowed out of them.
  app = await serveApp(db, {
    rateLimit: { requests: 0, windowMs: 60_000 },
    responseCacheBytes: 0,
    listingWatchMs: 3_600_000,
  });
}, 120_000);
afterAll(async () => {
  await app?.close();
  await db?.close();
  await writer?.close();
  await replication?.stop();
  await receiver?.close();
});

/** Until the standby has replayed everything the primary has written (a lock of an open transaction included). */
async function waitForReplay(): Promise<void> {
  // A transaction with an id flushes the WAL when it commits: what an open transaction wrote goes to the standby.
  await writer.read.single({ text: 'SELECT pg_current_xact_id()::text AS xid' });
  const [current] = await writer.read.single<{ lsn: string }>({
    text: 'SELECT pg_current_wal_insert_lsn()::text AS lsn',
  });
  const lsn = current?.lsn;
  const standby = await openDatabase({ kind: 'postgresql', url: replication.standby.url('postgres') });
  try {
    for (let i = 0; i < 200; i++) {
      const [row] = await standby.read.single<{ caught: boolean }>({
        text: `SELECT pg_last_wal_replay_lsn() >= '${lsn}'::pg_lsn AS caught`,
      });
      if (row?.caught) return;
      await sleep(50);
    }
    throw new Error('the standby did not replay within 10 s');
  } finally {
    await standby.close();
  }
}

async function onStandby(sql: string): Promise<void> {
  const standby = await openDatabase({ kind: 'postgresql', url: replication.standby.url('postgres') });
  await standby.read.single({ text: sql }).finally(() => standby.close());
}

/** An import as the page sees it: every title changes and the listing version with it, in one transaction. */
async function importChangingTitles(mark: string): Promise<void> {
  await writer.enableWrites();
  await writer.prisma.$transaction(async (tx) => {
    await tx.$executeRawUnsafe(`UPDATE package SET title = '${mark} ' || title`);
    await bumpListingVersion(tx);
  });
}

const PAGE = '{ packages(limit: 40, seed: 3) { count results { title } } }';

async function titles(): Promise<string[]> {
  const answer = await send(app.url, {
    method: 'POST',
    path: '/graphql',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ query: PAGE }),
  });
  expect(answer.status).toBe(200);
  const body = JSON.parse(answer.body.toString()) as { data: { packages: { results: { title: string }[] } } };
  return body.data.packages.results.map((p) => p.title);
}

function routed(): Record<string, number> {
  return Object.fromEntries(db.statuses().map((s) => [s.role, s.routed]));
}

async function health(): Promise<{ databases: { role: string; serving: boolean; lagSeconds?: number }[] }> {
  const answer = await send(app.url, { method: 'GET', path: '/healthz', headers: {} });
  expect(answer.status).toBe(200);
  return JSON.parse(answer.body.toString());
}

/** A named page operation, so its trace can be found. */
async function page(served: ServedApp, name: string): Promise<{ status: number; body: string }> {
  const answer = await send(served.url, {
    method: 'POST',
    path: '/graphql',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ query: `query ${name} ${PAGE}` }),
  });
  return { status: answer.status, body: answer.body.toString() };
}

const operationOf = (span: ExportedSpan) =>
  span.name === 'graphql.execute' ? span.attributes['graphql.operation.name'] : undefined;

async function connected(url: string): Promise<pg.Client> {
  const client = new pg.Client({ connectionString: url });
  client.on('error', () => {});
  await client.connect();
  return client;
}

/** The listing's tables but listing_version, quoted, for one LOCK TABLE. */
async function tablesBesideVersion(client: pg.Client): Promise<string> {
  const { rows } = await client.query<{ name: string }>(
    `SELECT format('%I', tablename) AS name FROM pg_tables
     WHERE schemaname = 'public' AND tablename NOT IN ('listing_version', '_prisma_migrations')`,
  );
  return rows.map((row) => row.name).join(', ');
}

/** Until a statement of ours on the standby waits for a lock. */
async function waitForLockWaitOnStandby(): Promise<void> {
  const standby = await connected(replication.standby.url('postgres'));
  try {
    for (let i = 0; i < 100; i++) {
      const { rows } = await standby.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM pg_stat_activity
         WHERE application_name = 'package-listing-gateway' AND wait_event_type = 'Lock'`,
      );
      if ((rows[0]?.n ?? 0) > 0) return;
      await sleep(50);
    }
    throw new Error('no statement waited for a lock on the standby within 5 s');
  } finally {
    await standby.end();
  }
}

/** Until the watch finds the standby serving again. */
async function waitUntilServing(database: Database): Promise<void> {
  for (let i = 0; i < 100 && !database.statuses()[1]?.serving; i++) await sleep(100);
  expect(database.statuses()[1]?.serving).toBe(true);
}

describe.runIf(runs)('read replicas on streaming replication', () => {
  it('reads every page from the standby while it keeps up; the primary serves none', async () => {
    const before = routed();
    for (let i = 0; i < 20; i++) expect(await titles()).toHaveLength(40);
    const after = routed();
    expect((after['replica 1'] ?? 0) - (before['replica 1'] ?? 0)).toBe(20);
    expect(after.primary).toBe(before.primary);
    expect((await health()).databases).toEqual([
      { role: 'primary', reachable: true, serving: false },
      { role: 'replica 1', reachable: true, serving: true, lagSeconds: 0 },
    ]);
  });

  it('serves the old listing whole while the standby lags, then skips it past REPLICA_MAX_LAG', async () => {
    await onStandby('SELECT pg_wal_replay_pause()');
    try {
      await importChangingTitles('lagged');
      // Within the allowed lag: the standby's listing, never a page with some new titles.
      const early = await titles();
      expect(early.every((title) => !title.startsWith('lagged '))).toBe(true);
      // The watch (every second) sees it behind for longer than REPLICA_MAX_LAG (1 s): at most about 3 s.
      const started = Date.now();
      let replica = (await health()).databases[1];
      while (replica?.serving && Date.now() - started < 5000) {
        await sleep(100);
        replica = (await health()).databases[1];
      }
      expect(replica).toMatchObject({ role: 'replica 1', serving: false });
      expect(replica?.lagSeconds).toBeGreaterThanOrEqual(1);
      const late = await titles();
      expect(late.every((title) => title.startsWith('lagged '))).toBe(true);
    } finally {
      await onStandby('SELECT pg_wal_replay_resume()');
    }
    await waitForReplay();
    await sleep(1500); // the watch finds it level again
    const before = routed()['replica 1'] ?? 0;
    expect((await titles()).every((title) => title.startsWith('lagged '))).toBe(true);
    expect(routed()['replica 1']).toBe(before + 1);
  }, 30_000);

  it("runs a request again on each database once when its replicas' connections break under it", async () => {
    // The standby twice, each through a proxy of its own: replicas 1 and 2. Both cut at the request's first read.
    const target = { host: '127.0.0.1', port: replication.standby.port };
    const proxies = [await startTcpProxy(target), await startTcpProxy(target)];
    const twice = await openDatabase(
      {
        kind: 'postgresql',
        url: replication.primary.url('postgres'),
        replicaUrls: proxies.map((proxy) => proxy.url(replication.standby.url('postgres'))),
        replicaMaxLagMs: 10_000,
      },
      { writes: false },
    );
    const served = await serveApp(twice, { rateLimit: { requests: 0, windowMs: 60_000 }, responseCacheBytes: 0 });
    try {
      expect((await page(served, 'Warm')).status).toBe(200);
      let armed = true;
      const stop = twice.statements.listen(() => {
        if (!armed) return;
        armed = false;
        for (const proxy of proxies) proxy.setMode('reset');
      });
      const before = Object.fromEntries(twice.statuses().map((s) => [s.role, s.routed]));
      const answer = await page(served, 'CutTwice');
      stop();
      expect(answer.status).toBe(200);
      expect(answer.body).not.toContain('"errors"');
      const after = Object.fromEntries(twice.statuses().map((s) => [s.role, s.routed]));
      for (const role of ['replica 1', 'replica 2', 'primary']) expect(after[role]).toBe((before[role] ?? 0) + 1);

      // The trace says so: the operation ran three times, its reads on each database in turn.
      const spans = await receiver.waitFor((all) => all.some((span) => operationOf(span) === 'CutTwice'));
      const execute = spans.find((span) => operationOf(span) === 'CutTwice');
      expect(Number(execute?.attributes['graphql.operation.runs'])).toBe(3);
      expect(execute?.events.map((event) => event.attributes.reason)).toEqual(['database failed', 'database failed']);
      expect(execute?.events.at(-1)?.attributes['db.server.role']).toBe('primary');
      const statements = spans.filter((span) => span.traceId === execute?.traceId && span.name.startsWith('SQL '));
      const where = new Set(
        statements.map((span) => `${span.attributes['db.server.role']} ${span.attributes['server.port']}`),
      );
      expect(where).toEqual(
        new Set([
          `replica 1 ${proxies[0]?.port}`,
          `replica 2 ${proxies[1]?.port}`,
          `primary ${replication.primary.port}`,
        ]),
      );
      for (const span of statements) expect(span.attributes['server.address']).toBe('127.0.0.1');
    } finally {
      await served.close();
      await twice.close();
      for (const proxy of proxies) await proxy.close();
    }
  }, 30_000);

  it('a statement the standby cancels for a change it replays (40001) runs again on the primary', async () => {
    // No wait before a replayed change cancels what is in its way; one table lock held on the primary, replayed.
    await onStandby('ALTER SYSTEM SET max_standby_streaming_delay = 0');
    await onStandby('SELECT pg_reload_conf()');
    const holder = await connected(replication.primary.url('postgres'));
    try {
      await holder.query('BEGIN');
      // Every table but the version's: a page's statement takes the version's lock first, then waits here.
      await holder.query(`LOCK TABLE ${await tablesBesideVersion(holder)} IN ACCESS EXCLUSIVE MODE`);
      await waitForReplay();
      const before = routed();
      const answer = page(app, 'Conflicted');
      await waitForLockWaitOnStandby();
      // An exclusive lock on the version's table, replayed: it cancels the waiting statement, which holds that table.
      const other = await connected(replication.primary.url('postgres'));
      await other.query('BEGIN; LOCK TABLE listing_version IN ACCESS EXCLUSIVE MODE; COMMIT');
      await other.end();
      await holder.query('ROLLBACK'); // the primary answers the re-run
      const { status, body } = await answer;
      expect(status).toBe(200);
      expect(body).not.toContain('"errors"');
      expect(routed()['replica 1']).toBe((before['replica 1'] ?? 0) + 1);
      expect(routed().primary).toBe((before.primary ?? 0) + 1);
      const spans = await receiver.waitFor((all) => all.some((span) => operationOf(span) === 'Conflicted'));
      const execute = spans.find((span) => operationOf(span) === 'Conflicted');
      expect(Number(execute?.attributes['graphql.operation.runs'])).toBe(2);
    } finally {
      await holder.end();
      await onStandby('ALTER SYSTEM RESET max_standby_streaming_delay');
      await onStandby('SELECT pg_reload_conf()');
    }
    await waitUntilServing(db);
  }, 30_000);

  it('a slow standby (statement timeout, full pool) fails those requests only and keeps serving', async () => {
    const settings = { ...loadConfig({}).pool, size: 2, statementTimeoutMs: 1500, connectTimeoutMs: 400 };
    const small = await openDatabase(
      {
        kind: 'postgresql',
        url: replication.primary.url('postgres'),
        replicaUrls: [replication.standby.url('postgres')],
        replicaMaxLagMs: 10_000,
      },
      { writes: false, pool: settings },
    );
    const served = await serveApp(small, { rateLimit: { requests: 0, windowMs: 60_000 }, responseCacheBytes: 0 });
    const holder = await connected(replication.primary.url('postgres'));
    try {
      await holder.query('BEGIN');
      await holder.query(`LOCK TABLE ${await tablesBesideVersion(holder)} IN ACCESS EXCLUSIVE MODE`);
      await waitForReplay();
      const before = Object.fromEntries(small.statuses().map((s) => [s.role, s.routed]));
      // Two requests wait on the lock past the statement timeout; the rest wait for the pool past its timeout.
      const burst = Promise.all(Array.from({ length: 6 }, (_, i) => page(served, `Slow${i}`)));
      await sleep(1200); // a watch or two meanwhile, on their own connection
      expect(small.statuses()[1]).toMatchObject({ role: 'replica 1', reachable: true, serving: true });
      for (const answer of await burst) {
        expect(answer.status).toBe(503);
        expect(answer.body).toContain('SERVICE_UNAVAILABLE');
      }
      const after = Object.fromEntries(small.statuses().map((s) => [s.role, s.routed]));
      expect(after.primary).toBe(before.primary); // nothing was made again on the primary
      expect(after['replica 1']).toBe((before['replica 1'] ?? 0) + 6);
      expect(small.statuses()[1]).toMatchObject({ reachable: true, serving: true });
    } finally {
      await holder.query('ROLLBACK').catch(() => {});
      await holder.end();
      await served.close();
      await small.close();
    }
  }, 30_000);

  it('answers every request when the standby stops, from the primary', async () => {
    const failures: string[] = [];
    const load = (async () => {
      for (let i = 0; i < 60; i++) {
        const answer = await send(app.url, {
          method: 'POST',
          path: '/graphql',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ query: PAGE }),
        });
        if (answer.status !== 200 || answer.body.includes('"errors"')) failures.push(`${answer.status} ${answer.body}`);
        await sleep(20);
      }
    })();
    await sleep(200);
    await replication.standby.stop('immediate');
    await load;
    expect(failures).toEqual([]);
    await sleep(1500);
    const [primary, replica] = (await health()).databases;
    expect(primary).toMatchObject({ serving: true, reachable: true });
    expect(replica).toMatchObject({ serving: false, reachable: false });
    const before = routed().primary ?? 0;
    await titles();
    expect(routed().primary).toBe(before + 1);
  }, 30_000);
});
