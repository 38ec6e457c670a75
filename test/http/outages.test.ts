// A database outage in the log: one warning when it begins, one line when it ends (with how long it lasted),
// whatever the number of requests, probes and watches in between. The watch itself on a check of our own; then a
// real PostgreSQL cut off by a TCP proxy (PostgreSQL only: the embedded database cannot go away on its own).
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../src/app.js';
import { type Database, openDatabase } from '../../src/db/client.js';
import { OUTAGE_BEGAN, OUTAGE_ENDED, watchOutages } from '../../src/http/health.js';
import { createLogger } from '../../src/logger.js';
import { createPostgresDatabaseUrl, onPostgres } from '../helpers/database.js';
import { startTcpProxy, type TcpProxy } from '../helpers/tcp-proxy.js';

type Line = Record<string, unknown>;

function collected(level = 'info') {
  const lines: Line[] = [];
  const destination = new Writable({
    write(chunk, _encoding, done) {
      for (const text of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(text));
      done();
    },
  });
  const outageLines = () => lines.filter((l) => l.msg === OUTAGE_BEGAN || l.msg === OUTAGE_ENDED);
  return { logger: createLogger({ level, destination }), lines, outageLines };
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function until(done: () => boolean, ms = 15_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!done()) {
    if (Date.now() > deadline) throw new Error('timed out waiting');
    await pause(50);
  }
}

describe('the outage watch', () => {
  it('logs an outage once when it begins and once when it ends, however often it is asked', async () => {
    const { logger, outageLines } = collected();
    let reason: string | null = null;
    const watch = watchOutages(
      async () => reason,
      logger,
      () => false,
      60_000,
    );
    try {
      await watch.ask();
      expect(outageLines()).toEqual([]);
      reason = 'PostgreSQL: connect ECONNREFUSED 127.0.0.1:5432';
      for (let i = 0; i < 5; i++) await watch.ask();
      reason = 'PostgreSQL did not answer within 1 s';
      await watch.ask();
      await pause(120);
      reason = null;
      await watch.ask();
      await watch.ask();
      const [began, ended, ...more] = outageLines();
      expect(more).toEqual([]);
      expect(began).toMatchObject({
        level: 'warn',
        msg: OUTAGE_BEGAN,
        reason: expect.stringContaining('ECONNREFUSED'),
      });
      expect(ended).toMatchObject({
        level: 'info',
        msg: OUTAGE_ENDED,
        reason: expect.stringContaining('ECONNREFUSED'),
      });
      expect(ended?.outageSeconds).toBeGreaterThanOrEqual(0.1);
    } finally {
      watch.stop();
    }
  });

  it('asks by itself when nothing else has for a while, and not while the server stops', async () => {
    const { logger, outageLines } = collected();
    let reason: string | null = 'the embedded database did not answer within 1 s';
    let asked = 0;
    let stopping = false;
    const watch = watchOutages(
      async () => {
        asked += 1;
        return reason;
      },
      logger,
      () => stopping,
      40,
    );
    try {
      await until(() => outageLines().length === 1);
      reason = null;
      await until(() => outageLines().length === 2);
      expect(outageLines().map((l) => l.msg)).toEqual([OUTAGE_BEGAN, OUTAGE_ENDED]);
      stopping = true;
      reason = 'database unavailable: it is closed';
      const before = asked;
      await pause(200);
      expect(asked).toBe(before);
      expect(outageLines()).toHaveLength(2);
    } finally {
      watch.stop();
    }
  });

  it('takes the answers in the order they were asked: a slow failure cannot undo a later recovery', async () => {
    const { logger, outageLines } = collected();
    const answers: ((reason: string | null) => void)[] = [];
    const watch = watchOutages(
      () => new Promise((resolve) => answers.push(resolve)),
      logger,
      () => false,
      60_000,
    );
    try {
      const first = watch.ask();
      const second = watch.ask();
      answers[1]?.(null);
      await second;
      answers[0]?.('PostgreSQL did not answer within 1 s');
      await first;
      expect(outageLines()).toEqual([]);
    } finally {
      watch.stop();
    }
  });
});

describe.runIf(onPostgres)('a PostgreSQL outage in the log', () => {
  let database: { url: string; drop: () => Promise<void> };
  let proxy: TcpProxy;
  let db: Database;

  beforeAll(async () => {
    database = await createPostgresDatabaseUrl();
    const target = new URL(database.url);
    proxy = await startTcpProxy({ host: target.hostname, port: Number(target.port || 5432) });
    db = await openDatabase({ kind: 'postgresql', url: proxy.url(database.url) }, { writes: false });
  });
  afterAll(async () => {
    await db?.close();
    await proxy?.close();
    await database?.drop();
  });

  it('is one warning when it begins and one line when it ends, whatever the requests and probes between', async () => {
    const { logger, outageLines, lines } = collected();
    const app = createApp({ db, logger, settings: { rateLimit: { requests: 0, windowMs: 60_000 } } });
    const ask = (path: string) => app.fetch(`http://localhost${path}`);
    try {
      expect((await ask('/healthz')).status).toBe(200);
      proxy.setMode('reset');
      for (let i = 0; i < 4; i++) {
        expect((await ask('/healthz')).status).toBe(503);
        expect((await ask(`/v2/local-package-list/?limit=2&seed=${100 + i}`)).status).toBe(503);
      }
      expect(outageLines()).toHaveLength(1);
      proxy.setMode('pass');
      for (let i = 0; (await ask('/healthz')).status !== 200; i++) {
        if (i > 100) throw new Error('never back');
        await pause(100);
      }
      for (let i = 0; i < 3; i++) expect((await ask('/healthz')).status).toBe(200);
      const [began, ended] = outageLines();
      expect(began).toMatchObject({ level: 'warn', msg: OUTAGE_BEGAN, reason: expect.any(String) });
      expect(ended).toMatchObject({ level: 'info', msg: OUTAGE_ENDED, outageSeconds: expect.any(Number) });
      expect(outageLines()).toHaveLength(2);
      // No other line says the database is gone: the requests that met the outage left it to these two.
      expect(lines.filter((l) => /database unavailable/.test(String(l.msg)))).toHaveLength(1);
    } finally {
      await app.dispose();
    }
  });
});
