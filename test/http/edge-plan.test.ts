// The Node edge answers only where every plugin's request-level hooks are honoured there (src/http/edge-plan.ts):
// the app's own plugins all are, under every setting that adds one; a plugin that adds a hook the table does not
// name turns the edge off for the routes it touches, says so once at start, and its hook then sees every request.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Plugin } from 'graphql-yoga';
import { afterAll, describe, expect, it } from 'vitest';
import { type AppSettings, createApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { type BeforeTheApp, guardEdge } from '../../src/http/edge.js';
import { planEdge, REQUEST_HOOKS } from '../../src/http/edge-plan.js';
import { GRAPHQL_PATH, LISTING_PATH } from '../../src/http/routes.js';
import { capturedLog } from '../helpers/captured-log.js';
import { engineName } from '../helpers/database.js';
import { edgeAndApp } from '../helpers/edge-pair.js';
import { TEST_KEYS } from '../helpers/graphql.js';
import { send } from '../helpers/http-server.js';

const { db } = edgeAndApp({ count: 10, seed: 3, publicUrl: 'http://listing.example' });
const closing: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const close of closing) await close();
});

/** The app on real HTTP with the edge in front, as src/server.ts serves it; its log lines kept. */
async function served(settings: Partial<AppSettings>, plugins: Plugin[] = []) {
  const { logger, lines } = capturedLog();
  const app = createApp({ db: db(), settings, logger, plugins, publicBase: () => 'http://listing.example' });
  const edge = { answered: 0 };
  const beforeTheApp: BeforeTheApp = (...args) => {
    const early = app.atTheEdge(...args);
    if (early === false) return false;
    return early.then((sent) => {
      if (sent) edge.answered += 1;
      return sent;
    });
  };
  const server = createServer(guardEdge(app, { maxBodyBytes: 100 * 1024, trustProxy: false, beforeTheApp }));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  closing.push(async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    await app.dispose();
  });
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { app, lines, url, edge };
}

const QUERY = JSON.stringify({ query: '{ packages(limit: 2, seed: 7) { results { id } } }' });
const POST = { method: 'POST', path: GRAPHQL_PATH, headers: { 'content-type': 'application/json' }, body: QUERY };
const V2 = { method: 'GET', path: `${LISTING_PATH}?limit=2&seed=7`, headers: { accept: 'application/json' } };

describe('the plan of which requests the Node edge answers', () => {
  it('names each plugin hook it does not honour, and the routes it leaves to yoga', () => {
    const plan = planEdge<Plugin>([
      { name: 'CORS', plugin: { onRequest() {}, onResponse() {} } },
      { name: 'v2 door', plugin: { onRequest() {}, onParams() {} } },
      { name: 'deadline', plugin: { onExecute() {} } },
    ]);
    expect(plan.unhonoured).toEqual(['v2 door: onParams']);
    expect(plan.answersOn(LISTING_PATH)).toBe(false);
    expect(plan.answersOn(GRAPHQL_PATH)).toBe(true);
    for (const hook of [...REQUEST_HOOKS, 'onPluginInit']) {
      const bare = planEdge<Plugin>([{ [hook]: () => undefined } as Plugin]);
      expect(bare.unhonoured, hook).toEqual([`plugin 1: ${hook}`]);
      expect(bare.answersOn(GRAPHQL_PATH) || bare.answersOn(LISTING_PATH), hook).toBe(false);
    }
  });

  it("honours every hook of the app's own plugins, under every setting that adds a plugin", () => {
    const profiles: Partial<AppSettings>[] = [
      {},
      {
        introspection: false,
        apiKeys: TEST_KEYS,
        v2ApiKeys: TEST_KEYS,
        corsOrigins: ['https://shop.example'],
        rateLimit: { requests: 100, windowMs: 60_000 },
        responseCacheBytes: 0,
        apq: { ...loadConfig({}).apq, maxQueries: 0 },
      },
    ];
    for (const settings of profiles) {
      const app = createApp({ db: db(), settings });
      expect(app.edgeUnhonoured, JSON.stringify(settings)).toEqual([]);
      void app.dispose();
    }
  });
});

describe(`a plugin the edge cannot honour, on ${engineName}`, () => {
  it('turns the edge off for its routes: yoga answers every request, and the start says so once', async () => {
    const { app, lines, url, edge } = await served({}, [{ onRequest() {} }]);
    expect(app.edgeUnhonoured).toEqual(['added plugin 1: onRequest']);
    for (let round = 0; round < 3; round++) {
      expect((await send(url, POST)).status).toBe(200);
      expect((await send(url, V2)).status).toBe(200);
    }
    // The query the edge runs itself, and the kept answers it sends: none of them at the edge.
    expect(edge.answered).toBe(0);
    expect(lines.filter((line) => line.includes('no Node edge for the hooks added plugin 1: onRequest'))).toHaveLength(
      1,
    );
  });

  it('leaves the edge on for an execution-only plugin, which runs at both doors', async () => {
    let executed = 0;
    const { app, lines, url, edge } = await served({}, [
      {
        onExecute() {
          executed += 1;
        },
      },
    ]);
    expect(app.edgeUnhonoured).toEqual([]);
    for (let round = 0; round < 3; round++) {
      expect((await send(url, POST)).status).toBe(200);
      expect((await send(url, V2)).status).toBe(200);
    }
    // Run once at the edge, then kept answers sent there: the v2 page's first answer is the app's.
    expect(edge.answered).toBe(5);
    expect(executed).toBe(2);
    expect(lines.filter((line) => line.includes('no Node edge'))).toEqual([]);
  });
});
