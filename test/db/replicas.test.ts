// Read replicas on real streaming replication: a private primary and standby (test/helpers/replication.ts). Pages
// are read from the standby while it keeps up; while its replay is paused past REPLICA_MAX_LAG it is skipped; a
// stopped standby costs no request. Runs with the PostgreSQL suite (TEST_DATABASE_URL), once.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Database, openDatabase } from '../../src/db/client.js';
import { migrate } from '../../src/db/migrate.js';
import { bumpListingVersion } from '../../src/db/write/store.js';
import { seedDemoData } from '../../src/demo/seed.js';
import { onPostgres } from '../helpers/database.js';
import { type ServedApp, send, serveApp } from '../helpers/http-server.js';
import { type Replication, replicationInstalled, startReplication } from '../helpers/replication.js';

const inCi = process.env.CI === 'true';
const runs = onPostgres && (replicationInstalled() || inCi);

let replication: Replication;
let writer: Database;
let db: Database;
let app: ServedApp;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

beforeAll(async () => {
  if (!runs) return;
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
  app = await serveApp(db, { rateLimit: { requests: 0, windowMs: 60_000 }, responseCacheBytes: 0 });
}, 120_000);
afterAll(async () => {
  await app?.close();
  await db?.close();
  await writer?.close();
  replication?.stop();
});

/** Until the standby has replayed everything the primary has written. */
async function waitForReplay(): Promise<void> {
  const [current] = await writer.read.single<{ lsn: string }>({ text: 'SELECT pg_current_wal_lsn()::text AS lsn' });
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
    replication.standby.stop('immediate');
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
