// A started server whose PostgreSQL goes away: refused and reset connections, a black hole (accepts, never
// answers), a table lock held by another session. Every answer stays bounded (health within a second, the v2
// path within the statement timeout), says 503 in each door's words, and the server recovers by itself.
// PostgreSQL only (TEST_DATABASE_URL): the embedded database cannot go away on its own.
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPostgresDatabaseUrl, onPostgres } from '../helpers/database.js';
import { runScript, type ServerProcess, spawnScript, startServer } from '../helpers/server-process.js';
import { startTcpProxy, type TcpProxy } from '../helpers/tcp-proxy.js';

let database: { url: string; drop: () => Promise<void> };
let proxy: TcpProxy;
let server: ServerProcess;

const TIMEOUTS = {
  DB_CONNECT_TIMEOUT: '1',
  DB_STATEMENT_TIMEOUT: '1',
  DB_QUERY_TIMEOUT: '1.5',
  REQUEST_TIMEOUT: '4',
  RATE_LIMIT: '0',
};

beforeAll(async () => {
  if (!onPostgres) return;
  database = await createPostgresDatabaseUrl();
  const target = new URL(database.url);
  proxy = await startTcpProxy({ host: target.hostname, port: Number(target.port || 5432) });
  server = await startServer({ DATABASE_URL: proxy.url(database.url), SEED_PACKAGES: '30', ...TIMEOUTS });
});
afterAll(async () => {
  await server?.stop('SIGKILL');
  await proxy?.close();
  await database?.drop();
});

async function timed(path: string, init?: RequestInit) {
  const started = performance.now();
  const response = await fetch(`${server.url}${path}`, init);
  const text = await response.text();
  return { status: response.status, headers: response.headers, text, ms: performance.now() - started };
}

let seed = 0;
/** A v2 page never asked for before: made by the database, not answered from the response cache. */
const v2 = () => timed(`/v2/local-package-list/?limit=5&seed=${++seed}`);
const graphql = () =>
  timed('/graphql', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ query: '{ packages(limit: 5) { count results { id photographer { name } } } }' }),
  });

async function expectUnavailable() {
  const health = await timed('/healthz');
  expect(health.status).toBe(503);
  expect(health.ms).toBeLessThan(1300);
  expect(JSON.parse(health.text)).toMatchObject({ status: 'unavailable', reason: expect.any(String) });
  expect((await timed('/livez')).status).toBe(200);

  const page = await v2();
  expect(page.status).toBe(503);
  expect(page.ms).toBeLessThan(3000);
  expect(page.text).toBe('{"detail":"Service temporarily unavailable."}');
  expect(page.headers.get('retry-after')).toBe('5');
  expect(page.headers.get('content-type')).toBe('application/json');

  const answer = await graphql();
  expect(answer.status).toBe(503);
  expect(answer.ms).toBeLessThan(3000);
  const body = JSON.parse(answer.text) as { errors: { extensions: { code: string } }[] };
  expect(body.errors).toHaveLength(1);
  expect(body.errors[0]?.extensions.code).toBe('SERVICE_UNAVAILABLE');

  // Without replicas the primary is asked at scrape time: the alert on a database down reads these.
  const metrics = await timed('/metrics');
  expect(metrics.ms).toBeLessThan(1500);
  expect(metrics.text).toMatch(/^db_up\{role="primary"\} 0$/m);
  expect(metrics.text).toMatch(/^db_serving\{role="primary"\} 0$/m);
}

/** Recovery without a restart: within a few seconds every route answers again. */
async function expectRecovered() {
  const until = Date.now() + 10_000;
  for (;;) {
    const [health, page, answer] = await Promise.all([timed('/healthz'), v2(), graphql()]);
    if (health.status === 200 && page.status === 200 && answer.status === 200) {
      expect((await timed('/metrics')).text).toMatch(/^db_up\{role="primary"\} 1$/m);
      return;
    }
    if (Date.now() > until) throw new Error(`not recovered: ${health.text} ${page.status} ${answer.text}`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

describe.runIf(onPostgres)('PostgreSQL outages', () => {
  it('answers normally through the proxy', async () => {
    expect((await v2()).status).toBe(200);
    expect((await graphql()).status).toBe(200);
  });

  it('refused and reset connections: bounded 503 answers, then recovery by itself', async () => {
    proxy.setMode('reset');
    await expectUnavailable();
    proxy.setMode('pass');
    await expectRecovered();
  });

  it('a black hole (accepts, never answers): bounded 503 answers, then recovery by itself', async () => {
    proxy.setMode('blackhole');
    await expectUnavailable();
    await expectUnavailable(); // the pool's connections all time out, one after the other, boundedly
    proxy.setMode('pass');
    await expectRecovered();
  });

  it('a lock held by another session: the v2 path answers 503 within the statement timeout', async () => {
    const admin = new pg.Client({ connectionString: database.url });
    await admin.connect();
    try {
      await admin.query('BEGIN');
      await admin.query('LOCK TABLE listing_entry IN ACCESS EXCLUSIVE MODE');
      const page = await v2();
      expect(page.status).toBe(503);
      expect(page.ms).toBeGreaterThan(900);
      expect(page.ms).toBeLessThan(2500);
      expect((await timed('/healthz')).status).toBe(200); // the database answers; only the listing is held
    } finally {
      await admin.query('ROLLBACK');
      await admin.end();
    }
    expect((await v2()).status).toBe(200);
  });

  it('a start waits for the database (DATABASE_WAIT), saying so, then gives up in one line', async () => {
    proxy.setMode('reset');
    const url = proxy.url(database.url);
    const failed = await runScript('src/server.ts', { DATABASE_URL: url, DATABASE_WAIT: '2', LOG_LEVEL: 'warn' });
    expect(failed.code).toBe(1);
    const lines = failed.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { level: string; msg: string });
    expect(lines[0]).toMatchObject({
      level: 'warn',
      msg: expect.stringMatching(/^waiting for PostgreSQL at 127\.0\.0\.1:/),
    });
    expect(lines.at(-1)).toMatchObject({
      level: 'fatal',
      msg: expect.stringMatching(/^cannot reach PostgreSQL at 127\.0\.0\.1:\d+\/\w+ after 2 s: /),
    });
    // Back within the wait: the start goes on.
    const late = spawnScript('src/server.ts', { DATABASE_URL: url, DATABASE_WAIT: '20', ...TIMEOUTS });
    await until(() => /waiting for PostgreSQL/.test(late.output()));
    proxy.setMode('pass');
    await until(() => /GraphQL and GraphiQL/.test(late.output()));
    const base = /GraphQL and GraphiQL: (http:\/\/[^\s"]+)\/graphql/.exec(late.output())?.[1];
    expect((await fetch(`${base}/healthz`)).status).toBe(200);
    late.child.kill('SIGTERM');
    expect((await late.exited).code).toBe(0);
  });
});

async function until(done: () => boolean, ms = 20_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!done()) {
    if (Date.now() > deadline) throw new Error('timed out waiting');
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
