// SIGTERM in the middle of traffic on keep-alive connections: the requests in flight finish (none is reset),
// answers from then on say `Connection: close`, the database closes only after the last request, exit code 0.
// The first case is PostgreSQL only (TEST_DATABASE_URL): a table lock held by another session keeps requests in
// flight long enough. The second runs on the embedded database, whose work holds the event loop, so requests
// clients have sent wait unread in their sockets when the signal comes: they are answered too, none is reset.
import { Agent, request } from 'node:http';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPostgresDatabaseUrl, onPostgres } from '../helpers/database.js';
import { type ServerProcess, startServer } from '../helpers/server-process.js';
import { copyOfTemplate } from '../helpers/templates.js';

let database: { url: string; drop: () => Promise<void> };
let server: ServerProcess;

beforeAll(async () => {
  if (!onPostgres) return;
  database = await createPostgresDatabaseUrl();
  server = await startServer({
    DATABASE_URL: database.url,
    SEED_PACKAGES: '30',
    RATE_LIMIT: '0',
    SHUTDOWN_TIMEOUT: '15',
    DB_STATEMENT_TIMEOUT: '15',
    DB_QUERY_TIMEOUT: '16',
    REQUEST_TIMEOUT: '20',
  });
});
afterAll(async () => {
  await server?.stop('SIGKILL');
  await database?.drop();
});

interface Outcome {
  started: number;
  ended: number;
  status?: number;
  connection?: string;
  error?: string;
  reusedSocket: boolean;
}

function send(agent: Agent, url: URL, path: string): Promise<Outcome> {
  const started = performance.now();
  return new Promise((resolve) => {
    const req = request({ host: url.hostname, port: url.port, path, agent }, (response) => {
      response.resume();
      response.on('end', () =>
        resolve({
          started,
          ended: performance.now(),
          status: response.statusCode,
          connection: String(response.headers.connection),
          reusedSocket: req.reusedSocket,
        }),
      );
    });
    req.on('error', (error: NodeJS.ErrnoException) =>
      resolve({
        started,
        ended: performance.now(),
        error: error.code ?? error.message,
        reusedSocket: req.reusedSocket,
      }),
    );
    req.end();
  });
}

describe.runIf(onPostgres)('graceful shutdown', () => {
  it('finishes the requests in flight on SIGTERM, resets none, closes the database last, exits 0', async () => {
    const url = new URL(server.url);
    const agent = new Agent({ keepAlive: true, maxSockets: 6 });
    const outcomes: Outcome[] = [];
    let exited = false;
    // A seed of its own for every request: no answer comes from the cache, so every request in flight at the
    // signal waits behind the lock and is answered after it. (A cached answer sent just before the server saw the
    // signal could reach the client just after it, still kept alive.)
    const clients = Array.from({ length: 6 }, async (_, i) => {
      for (let n = 0; !exited; n++) {
        outcomes.push(await send(agent, url, `/v2/local-package-list/?limit=5&seed=${i * 100_000 + n}`));
      }
    });

    await new Promise((resolve) => setTimeout(resolve, 500));
    const admin = new pg.Client({ connectionString: database.url });
    await admin.connect();
    await admin.query('BEGIN');
    await admin.query('LOCK TABLE listing_entry IN ACCESS EXCLUSIVE MODE');
    await new Promise((resolve) => setTimeout(resolve, 400)); // requests pile up behind the lock

    const signalledAt = performance.now();
    const exit = server.stop('SIGTERM');
    setTimeout(() => void admin.query('ROLLBACK').then(() => admin.end()), 800);
    const code = await exit;
    exited = true;
    await Promise.all(clients);
    agent.destroy();

    expect(code).toBe(0);
    const inFlight = outcomes.filter((o) => o.started < signalledAt && o.ended > signalledAt);
    expect(inFlight.length).toBeGreaterThanOrEqual(3);
    for (const outcome of inFlight) expect(outcome).toMatchObject({ status: 200 });
    // Answers given while stopping tell the client not to reuse the connection.
    for (const outcome of inFlight) expect(outcome.connection).toBe('close');
    // After the stop began, a request either got its answer, or found the server gone before it was taken in: a
    // refused connection, or a reused idle connection the server had just closed (never a request it had begun).
    for (const outcome of outcomes.filter((o) => o.error)) {
      expect(outcome.started).toBeGreaterThan(signalledAt);
      expect(outcome.error === 'ECONNREFUSED' || (outcome.error === 'ECONNRESET' && outcome.reusedSocket)).toBe(true);
    }
    const log = server.output();
    expect(log).toMatch(
      /"reason":"SIGTERM","inFlight":[1-9]\d*,"msg":"SIGTERM: stopping; finishing the requests in flight"/,
    );
    expect(log).toContain('"msg":"stopped"');
    expect(log).not.toMatch(/Cannot use a pool|"level":"(error|fatal)"/);
  });
});

describe('graceful shutdown with requests sent but not yet read', () => {
  it('answers every request sent on a kept-alive connection, resets none, exits 0', async () => {
    const busy = await startServer({ DATA_DIR: copyOfTemplate(), SEED_PACKAGES: '60', RATE_LIMIT: '0' });
    const url = new URL(busy.url);
    const agent = new Agent({ keepAlive: true, maxSockets: 8 });
    const outcomes: Outcome[] = [];
    let exited = false;
    try {
      const clients = Array.from({ length: 8 }, async (_, i) => {
        for (let n = 0; !exited; n++) {
          outcomes.push(await send(agent, url, `/v2/local-package-list/?limit=60&seed=${i}&offset=${n % 7}`));
        }
      });
      await new Promise((resolve) => setTimeout(resolve, 1500));
      const signalledAt = performance.now();
      const code = await busy.stop('SIGTERM');
      exited = true;
      await Promise.all(clients);

      expect(code).toBe(0);
      expect(outcomes.filter((o) => o.ended > signalledAt && o.status === 200).length).toBeGreaterThanOrEqual(1);
      // Nothing sent on a kept-alive connection was reset. A client found the server gone only on a new
      // connection: refused, or reset while it still sat in the accept queue of the listener being closed.
      expect(outcomes.filter((o) => o.error && o.reusedSocket)).toEqual([]);
      for (const outcome of outcomes.filter((o) => o.error))
        expect(['ECONNREFUSED', 'ECONNRESET']).toContain(outcome.error);
      expect(busy.output()).not.toMatch(/"level":"(error|fatal)"/);
    } finally {
      exited = true;
      agent.destroy();
      await busy.stop('SIGKILL');
    }
  });
});
