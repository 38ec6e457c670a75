// STALE_IF_ERROR: while PostgreSQL is away, a request whose answer was kept under the last version read gets that
// answer, marked stale (X-Cache: stale, Age), for as long as the setting allows after the version was last read;
// a request with no kept answer, or past the bound, still gets the 503 with Retry-After. /readyz stays 200 (the
// database's state in its body) while /healthz says 503. PostgreSQL only: the embedded database cannot go away.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPostgresDatabaseUrl, onPostgres } from '../helpers/database.js';
import { type ServerProcess, startServer } from '../helpers/server-process.js';
import { startTcpProxy, type TcpProxy } from '../helpers/tcp-proxy.js';

const STALE_SECONDS = 4;
let database: { url: string; drop: () => Promise<void> };
let proxy: TcpProxy;
let server: ServerProcess;

beforeAll(async () => {
  if (!onPostgres) return;
  database = await createPostgresDatabaseUrl();
  const target = new URL(database.url);
  proxy = await startTcpProxy({ host: target.hostname, port: Number(target.port || 5432) });
  server = await startServer({
    DATABASE_URL: proxy.url(database.url),
    SEED_PACKAGES: '30',
    STALE_IF_ERROR: String(STALE_SECONDS),
    DB_CONNECT_TIMEOUT: '1',
    DB_QUERY_TIMEOUT: '1.5',
    REQUEST_TIMEOUT: '4',
    RATE_LIMIT: '0',
  });
});
afterAll(async () => {
  await server?.stop('SIGKILL');
  await proxy?.close();
  await database?.drop();
});

const V2 = '/v2/local-package-list/?limit=3&seed=11';
const CARDS = `/graphql?query=${encodeURIComponent('{ packages(limit: 3, seed: 11) { results { id title } } }')}`;

async function ask(path: string) {
  const response = await fetch(`${server.url}${path}`, { headers: { accept: 'application/json' } });
  return { status: response.status, headers: response.headers, text: await response.text() };
}

describe.runIf(onPostgres)('kept answers while PostgreSQL is away (STALE_IF_ERROR)', () => {
  it('are sent marked stale within the bound, and the 503 past it or where none was kept', async () => {
    const fresh = { v2: await ask(V2), cards: await ask(CARDS) };
    expect([fresh.v2.status, fresh.cards.status]).toEqual([200, 200]);
    const outageBegan = Date.now();
    proxy.setMode('reset');
    try {
      for (const [path, before] of [
        [V2, fresh.v2],
        [CARDS, fresh.cards],
      ] as const) {
        const stale = await ask(path);
        expect(stale.status, path).toBe(200);
        expect(stale.headers.get('x-cache')).toBe('stale');
        expect(Number(stale.headers.get('age'))).toBeLessThanOrEqual(STALE_SECONDS);
        expect(stale.text).toBe(before.text);
      }
      // Never kept: the 503 as before.
      const unseen = await ask('/v2/local-package-list/?limit=3&seed=12');
      expect(unseen.status).toBe(503);
      expect(unseen.headers.get('retry-after')).toBe('5');

      const ready = await ask('/readyz');
      expect(ready.status).toBe(200);
      expect(JSON.parse(ready.text)).toMatchObject({ status: 'degraded', database: expect.any(String) });
      expect((await ask('/healthz')).status).toBe(503);

      // Past the bound the kept answer is no longer sent.
      await new Promise((resolve) => setTimeout(resolve, STALE_SECONDS * 1000 - (Date.now() - outageBegan) + 500));
      const late = await ask(V2);
      expect(late.status).toBe(503);
      expect(late.headers.get('x-cache')).not.toBe('stale');
    } finally {
      proxy.setMode('pass');
    }
    // Back: fresh answers again, and /readyz says ok.
    const until = Date.now() + 10_000;
    for (;;) {
      const again = await ask(V2);
      if (again.status === 200 && again.headers.get('x-cache') !== 'stale') break;
      if (Date.now() > until) throw new Error(`not recovered: ${again.status}`);
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    expect(JSON.parse((await ask('/readyz')).text)).toMatchObject({ status: 'ok', database: 'ok' });
  });
});
