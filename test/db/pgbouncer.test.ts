// Through PgBouncer in transaction pooling mode (Debian's package), 8 clients at once: every page is answered.
// Without DATABASE_POOLER=transaction, the real server finds the pooler when a statement prepared by name meets
// another server connection than the one it was prepared on, turns names off, sends that statement again
// unnamed, and says so once in its log and in /metrics: every page is still answered. Behind PgBouncer's defaults,
// which refuse the settings a connection sends at its start (deploy/pgbouncer.ini has it ignore them), it
// connects again without them, and says so. A replica behind PgBouncer whose server goes away costs a request no
// more than the watch's check: PgBouncer holds what is sent to it until it reaches the server again, and the
// gateway gives those statements up once the replica is found gone, reading them again from the primary.
// PostgreSQL only (TEST_DATABASE_URL); PgBouncer must be installed (apt-get install pgbouncer; CI installs it).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Database, openDatabase } from '../../src/db/client.js';
import { seedDemoData } from '../../src/demo/seed.js';
import { createPostgresDatabaseUrl, onPostgres } from '../helpers/database.js';
import { type ServedApp, send, serveApp } from '../helpers/http-server.js';
import { type Bouncer, pgbouncerInstalled, startPgBouncer } from '../helpers/pgbouncer.js';
import { type ServerProcess, startServer } from '../helpers/server-process.js';
import { startTcpProxy } from '../helpers/tcp-proxy.js';

const inCi = process.env.CI === 'true';
const runs = onPostgres && (pgbouncerInstalled() || inCi);
if (onPostgres && !runs) console.warn('PgBouncer test skipped: no pgbouncer (apt-get install pgbouncer).');

let database: { url: string; drop: () => Promise<void> };
let bouncer: Bouncer;
let stockBouncer: Bouncer | undefined;
const opened: Database[] = [];
const served: ServedApp[] = [];
let server: ServerProcess | undefined;

beforeAll(async () => {
  if (!runs) return;
  if (!pgbouncerInstalled()) throw new Error('CI=true and no pgbouncer: apt-get install pgbouncer');
  database = await createPostgresDatabaseUrl();
  const direct = await openDatabase({ kind: 'postgresql', url: database.url });
  await seedDemoData(direct, { packages: 60 });
  await direct.close();
  const target = new URL(database.url);
  bouncer = await startPgBouncer({ host: target.hostname, port: Number(target.port || 5432) }, 3);
});
afterAll(async () => {
  await server?.stop();
  for (const app of served) await app.close();
  for (const db of opened) await db.close();
  await bouncer?.stop();
  await stockBouncer?.stop();
  await database?.drop();
});

const databaseName = () => new URL(database.url).pathname.slice(1);

async function appThrough(pooler: 'none' | 'transaction'): Promise<ServedApp> {
  const db = await openDatabase(
    { kind: 'postgresql', url: bouncer.url(databaseName()), pooler, directUrl: database.url },
    { writes: false },
  );
  opened.push(db);
  const app = await serveApp(db, { rateLimit: { requests: 0, windowMs: 60_000 }, responseCacheBytes: 0 });
  served.push(app);
  return app;
}

const FULL = '{ packages(limit: 10, seed: 5) { count results { id photographer { name } images { id } } } }';

/** 8 clients at once, each asking `rounds` times for a v2 page and a GraphQL page; the statuses of all answers. */
async function pagePairs(app: { url: string }, rounds = 30): Promise<number[]> {
  const statuses: number[] = [];
  await Promise.all(
    Array.from({ length: 8 }, async (_, client) => {
      for (let i = 0; i < rounds; i++) {
        const seed = client * 100 + i;
        const v2 = await send(app.url, {
          method: 'GET',
          path: `/v2/local-package-list/?limit=5&seed=${seed}`,
          headers: {},
        });
        const graphql = await send(app.url, {
          method: 'POST',
          path: '/graphql',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ query: FULL.replace('seed: 5', `seed: ${seed}`) }),
        });
        statuses.push(v2.status, graphql.body.includes('"errors"') ? 500 : graphql.status);
      }
    }),
  );
  return statuses;
}

describe.runIf(runs)('through PgBouncer in transaction mode', () => {
  it('answers every page, 8 clients at once (DATABASE_POOLER=transaction)', async () => {
    const statuses = await pagePairs(await appThrough('transaction'));
    expect(statuses).toHaveLength(480);
    expect(statuses.filter((status) => status !== 200)).toEqual([]);
  });

  it('without it, the server finds the pooler, turns names off, says so once, and answers every page', async () => {
    server = await startServer({
      DATABASE_URL: bouncer.url(databaseName()),
      DATABASE_DIRECT_URL: database.url,
      SEED_PACKAGES: '0',
      RATE_LIMIT: '0',
      RESPONSE_CACHE_BYTES: '0',
    });
    const statuses = await pagePairs(server);
    expect(statuses).toHaveLength(480);
    expect(statuses.filter((status) => status !== 200)).toEqual([]);
    const warnings = server
      .output()
      .split('\n')
      .filter((line) => line.includes('DATABASE_POOLER=transaction'));
    expect(warnings).toHaveLength(1);
    expect(JSON.parse(warnings[0] as string)).toMatchObject({
      level: 'warn',
      msg: expect.stringMatching(/^primary: .*transaction mode/),
    });
    const metrics = await send(server.url, { method: 'GET', path: '/metrics', headers: {} });
    expect(metrics.body.toString()).toMatch(/^db_pooler_detected_total\{role="primary"\} 1$/m);
  });

  it("behind PgBouncer's defaults, which refuse the connection's settings, connects without them", async () => {
    const target = new URL(database.url);
    stockBouncer = await startPgBouncer({ host: target.hostname, port: Number(target.port || 5432) }, 3, {
      stock: true,
    });
    const found: string[] = [];
    const db = await openDatabase(
      { kind: 'postgresql', url: stockBouncer.url(databaseName()), pooler: 'none', directUrl: database.url },
      { writes: false, onPoolerFound: (line) => found.push(line) },
    );
    opened.push(db);
    const app = await serveApp(db, { rateLimit: { requests: 0, windowMs: 60_000 }, responseCacheBytes: 0 });
    served.push(app);
    const statuses = await pagePairs(app, 10);
    expect(statuses).toHaveLength(160);
    expect(statuses.filter((status) => status !== 200)).toEqual([]);
    expect(found).toEqual([
      expect.stringMatching(
        /^primary: .* refused the settings .*unsupported startup parameter.*DATABASE_POOLER=transaction/,
      ),
      expect.stringMatching(/^primary: a statement prepared by name failed .*DATABASE_POOLER=transaction/),
    ]);
  });

  it('a replica behind it whose server goes away: what waits there is read again from the primary', async () => {
    const target = new URL(database.url);
    const proxy = await startTcpProxy({ host: target.hostname, port: Number(target.port || 5432) });
    const replicaBouncer = await startPgBouncer({ host: '127.0.0.1', port: proxy.port }, 2);
    const db = await openDatabase(
      {
        kind: 'postgresql',
        url: database.url,
        replicaUrls: [replicaBouncer.url(databaseName())],
        replicaMaxLagMs: 10_000,
        pooler: 'transaction',
      },
      { writes: false },
    );
    const app = await serveApp(db, { rateLimit: { requests: 0, windowMs: 60_000 }, responseCacheBytes: 0 });
    const v2Page = (seed: number) =>
      send(app.url, { method: 'GET', path: `/v2/local-package-list/?limit=5&seed=${seed}`, headers: {} });
    try {
      for (let seed = 1; seed <= 4; seed++) expect((await v2Page(seed)).status).toBe(200);
      expect(db.statuses()[1]).toMatchObject({ role: 'replica 1', serving: true });
      expect(db.statuses()[1]?.routed).toBeGreaterThanOrEqual(4);
      // PgBouncer keeps the gateway's connections and holds what they send, retrying the server every 15 s.
      proxy.setMode('reset');
      const started = Date.now();
      const answers = await Promise.all([11, 12, 13, 14].map(v2Page));
      const tookMs = Date.now() - started;
      expect(answers.map((answer) => answer.status)).toEqual([200, 200, 200, 200]);
      // Found gone at the first lost read, or by the watch within two seconds; unattended, each would wait
      // DB_QUERY_TIMEOUT (7 s).
      expect(tookMs).toBeLessThan(4000);
      expect(db.statuses()[1]).toMatchObject({ serving: false });
      expect(db.statuses()[0]?.routed).toBeGreaterThanOrEqual(4);
    } finally {
      await app.close();
      await db.close();
      await replicaBouncer.stop();
      await proxy.close();
    }
  }, 30_000);
});
