// The request line as operators read it, at every door (the app's plugin, the Node edge's hits and plain
// queries): who called (the API key's name, never the key; the client's address as the rate limits see it, the
// trusted proxy's X-Forwarded-For entry with TRUST_PROXY, the socket's otherwise), and the probes and the scrape at
// debug, still counted in the metric.
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AppSettings } from '../../src/app.js';
import { loggedPath } from '../../src/http/request-log.js';
import { createLogger } from '../../src/logger.js';
import { createTestDatabase, engineName, type TestDatabase } from '../helpers/database.js';
import { PRIVATE_KEY, TEST_KEYS } from '../helpers/graphql.js';
import { type ServedApp, type ServeOptions, send, serveApp } from '../helpers/http-server.js';

type Line = Record<string, unknown>;

let db: TestDatabase;
const servers: ServedApp[] = [];

beforeAll(async () => {
  db = await createTestDatabase();
});
afterAll(async () => {
  for (const server of servers) await server.close();
  await db?.destroy();
});

/** A served app whose log lines (at `level`) are collected. */
async function served(settings: Partial<AppSettings>, level = 'info', options: ServeOptions = {}) {
  const lines: Line[] = [];
  const destination = new Writable({
    write(chunk, _encoding, done) {
      for (const text of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(text));
      done();
    },
  });
  const logger = createLogger({ level, destination });
  const all = { apiKeys: TEST_KEYS, rateLimit: { requests: 0, windowMs: 60_000 }, ...settings };
  const server = await serveApp(db, all, 'http://listing.example', undefined, { ...options, logger });
  servers.push(server);
  const ask = async (path: string, headers: Record<string, string> = {}, body?: string) => {
    const answer = await send(server.url, { method: body === undefined ? 'GET' : 'POST', path, headers, body });
    // The line is written once the answer has gone: give the event loop a turn.
    await new Promise((resolve) => setImmediate(resolve));
    const line = lines.find((l) => l.msg === 'request' && l.requestId === answer.headers['x-request-id']);
    return { answer, line };
  };
  return { server, lines, ask };
}

const PAGE = '/v2/local-package-list/?limit=3&seed=11';
const QUERY = JSON.stringify({ query: '{ packages(limit: 2, seed: 3) { count } }' });
const JSON_POST = { 'content-type': 'application/json', accept: 'application/json' };
const WITH_KEY = { ...JSON_POST, authorization: `Bearer ${PRIVATE_KEY}` };

describe(`request lines on ${engineName}`, () => {
  it("name the caller's key and address at the app's door and the edge's, never the key itself", async () => {
    const { ask, lines, server } = await served({});
    const miss = await ask(PAGE);
    const hit = await ask(PAGE);
    expect(hit.answer.headers['x-cache']).toBe('hit');
    const query = await ask('/graphql', WITH_KEY, QUERY);
    expect(server.edgeAnswered()).toBeGreaterThanOrEqual(2); // the hit and the plain query: the edge's lines
    expect(query.answer.status).toBe(200);
    expect(miss.line).toMatchObject({ level: 'info', path: '/v2/local-package-list/', address: '127.0.0.1' });
    expect(miss.line).not.toHaveProperty('key');
    expect(hit.line).toMatchObject({ level: 'info', status: 200, address: '127.0.0.1' });
    expect(query.line).toMatchObject({ level: 'info', path: '/graphql', key: 'tests', address: '127.0.0.1' });

    const app = await served({}, 'info', { edgeHits: false });
    const atTheApp = await app.ask('/graphql', WITH_KEY, QUERY);
    expect(app.server.edgeAnswered()).toBe(0);
    expect(atTheApp.line).toMatchObject({ path: '/graphql', status: 200, key: 'tests', address: '127.0.0.1' });
    expect(JSON.stringify([...lines, ...app.lines])).not.toContain(PRIVATE_KEY);
  });

  it("take the trusted proxy's X-Forwarded-For entry with TRUST_PROXY, and the socket's address without", async () => {
    const forwarded = { 'x-forwarded-for': '203.0.113.9, 198.51.100.7' };
    const trusting = await served({ trustProxy: true });
    expect((await trusting.ask(PAGE, forwarded)).line).toMatchObject({ address: '198.51.100.7' });
    expect((await trusting.ask(PAGE, forwarded)).line).toMatchObject({ address: '198.51.100.7' }); // an edge hit
    expect((await trusting.ask('/graphql', { ...JSON_POST, ...forwarded }, QUERY)).line).toMatchObject({
      address: '198.51.100.7',
    });
    const wary = await served({ trustProxy: false });
    expect((await wary.ask(PAGE, forwarded)).line).toMatchObject({ address: '127.0.0.1' });
    expect((await wary.ask('/graphql', { ...JSON_POST, ...forwarded }, QUERY)).line).toMatchObject({
      address: '127.0.0.1',
    });
  });

  it('log the probes and the scrape at debug, and count them all the same', async () => {
    const atInfo = await served({});
    for (const path of ['/healthz', '/livez', '/metrics']) {
      const { answer, line } = await atInfo.ask(path);
      expect(answer.status, path).toBe(200);
      expect(line, path).toBeUndefined();
    }
    expect((await atInfo.ask('/v2/openapi.json')).line).toMatchObject({ level: 'info', status: 200 });
    const scrape = (await atInfo.ask('/metrics')).answer.body.toString();
    for (const route of ['/healthz', '/livez', '/metrics']) {
      expect(scrape).toMatch(
        new RegExp(`^http_request_duration_seconds_count\\{method="GET",route="${route}",status="200"\\} [1-9]`, 'm'),
      );
    }
    const atDebug = await served({}, 'debug');
    for (const path of ['/healthz', '/livez', '/metrics']) {
      expect((await atDebug.ask(path)).line, path).toMatchObject({ level: 'debug', path, status: 200 });
    }
  });
});

describe('a path as a line shows it', () => {
  it('drops the query, escapes what is not printable ASCII, and cuts a long one', () => {
    expect(loggedPath('/wp-login.php?user=admin&token=s3cr3t')).toBe('/wp-login.php');
    expect(loggedPath('/a b\u0000\u00e9\u2028')).toBe('/a%20b%00%E9%u2028');
    const long = loggedPath(`/${'x'.repeat(500)}`);
    expect(long).toHaveLength(201);
    expect(long.endsWith('…')).toBe(true);
  });
});
