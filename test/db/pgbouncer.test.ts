// Through PgBouncer in transaction pooling mode (Debian's package), 8 clients at once: every page is answered.
// Without DATABASE_POOLER=transaction, the real server finds the pooler when a statement prepared by name meets
// another server connection than the one it was prepared on, turns names off, sends that statement again
// unnamed, and says so once in its log and in /metrics: every page is still answered. Behind PgBouncer's defaults,
// which refuse the settings a connection sends at its start (deploy/pgbouncer.ini has it ignore them), it
// connects again without them, and says so.
// PostgreSQL only (TEST_DATABASE_URL); PgBouncer must be installed (apt-get install pgbouncer; CI installs it).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Database, openDatabase } from '../../src/db/client.js';
import { seedDemoData } from '../../src/demo/seed.js';
import { createPostgresDatabaseUrl, onPostgres } from '../helpers/database.js';
import { type ServedApp, send, serveApp } from '../helpers/http-server.js';
import { type Bouncer, pgbouncerInstalled, startPgBouncer } from '../helpers/pgbouncer.js';
import { type ServerProcess, startServer } from '../helpers/server-process.js';

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
});
