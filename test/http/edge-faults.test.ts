// No request can end the process: each step the Node edge takes (who calls, the request budget, the cache lookup,
// the listing version, the execution, the write) is made to throw in turn, and every request is still answered,
// by the app (which then takes the request whole, with its own rules) or with a masked 500, never with a stack
// trace; the fault is reported with the request's id, and the next request is answered as usual. An error left
// unhandled fails this file (vitest reports unhandled rejections).
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createApp } from '../../src/app.js';
import { generatePackages } from '../../src/demo/generate.js';
import { guardEdge } from '../../src/http/edge.js';
import { listeningBase } from '../../src/http/public-base.js';
import { importSource } from '../../src/import/importer.js';
import type { V2Package } from '../../src/v2/records.js';
import { createTestDatabase, engineName, type TestDatabase } from '../helpers/database.js';
import { send } from '../helpers/http-server.js';
import { memorySource } from '../import/helpers.js';

/** The step made to throw, or none. */
const fault = vi.hoisted(() => ({ step: undefined as string | undefined }));
const thrown = (step: string) => {
  if (fault.step === step) throw new Error(`injected fault: ${step}`);
};

vi.mock('../../src/http/callers.js', async (original) => {
  const real = await original<typeof import('../../src/http/callers.js')>();
  return {
    ...real,
    // Only the edge identifies its callers with this one (the app's plugins use callerIdentity).
    identifyCaller: (options: Parameters<typeof real.identifyCaller>[0]) => {
      const identify = real.identifyCaller(options);
      return (...args: Parameters<typeof identify>) => {
        thrown('identify');
        return identify(...args);
      };
    },
  };
});
vi.mock('../../src/http/rate-limit.js', async (original) => {
  const real = await original<typeof import('../../src/http/rate-limit.js')>();
  return {
    ...real,
    countAtTheEdge: async (...args: Parameters<typeof real.countAtTheEdge>) => {
      thrown('budget');
      return real.countAtTheEdge(...args);
    },
  };
});
vi.mock('../../src/cache/answers.js', async (original) => {
  const real = await original<typeof import('../../src/cache/answers.js')>();
  return {
    ...real,
    createAnswerStore: (...args: Parameters<typeof real.createAnswerStore>) => {
      const store = real.createAnswerStore(...args);
      // The edge looks in this process's memory first (peek); the app asks get.
      const peek = store.peek.bind(store);
      return Object.assign(store, {
        peek: (key: string) => {
          thrown('cache lookup');
          return peek(key);
        },
      });
    },
  };
});
vi.mock('../../src/listing/version.js', async (original) =>
  (await import('../helpers/version-reads.js')).versionReadsWith(await original(), () => thrown('version read')),
);

const records = [...generatePackages({ count: 12, seed: 5 })].map((r) => ({ ...r, status: 1 })) as V2Package[];
const state: { db?: TestDatabase; url?: string; close?: () => Promise<void> } = {};
const faults: { error: unknown; requestId: string }[] = [];

beforeAll(async () => {
  state.db = await createTestDatabase();
  await importSource(state.db, memorySource(records));
  const app = createApp({
    db: state.db,
    settings: { rateLimit: { requests: 1000, windowMs: 60_000 } },
    publicBase: () => 'http://listing.example',
    // An execution step that throws (the edge executes through yoga's envelop, so this runs at both doors).
    plugins: [{ onExecute: () => thrown('execute') }],
  });
  const edge = guardEdge(app, {
    maxBodyBytes: 100 * 1024,
    trustProxy: false,
    beforeTheApp: app.atTheEdge,
    onFault: (error, requestId) => faults.push({ error, requestId }),
  });
  const server = createServer((request, response) => {
    // The write: the first head written for the request throws (the edge's, where it answers).
    if (fault.step === 'write') {
      const writeHead = response.writeHead.bind(response) as (...args: unknown[]) => ServerResponse;
      let first = true;
      response.writeHead = ((...args: unknown[]) => {
        if (first) {
          first = false;
          throw new Error('injected fault: write');
        }
        return writeHead(...args);
      }) as ServerResponse['writeHead'];
    }
    return edge(request, response);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  state.url = listeningBase('127.0.0.1', port);
  state.close = async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    await app.dispose();
  };
});
afterAll(async () => {
  await state.close?.();
  await state.db?.destroy();
});

const CARDS = '{ packages(limit: 3, seed: 7) { results { id title } } }';
const REQUESTS: { method: string; path: string; headers: Record<string, string>; body?: string }[] = [
  { method: 'GET', path: '/v2/local-package-list/?limit=2&seed=3', headers: { accept: 'application/json' } },
  { method: 'GET', path: `/graphql?query=${encodeURIComponent(CARDS)}`, headers: { accept: 'application/json' } },
  {
    method: 'POST',
    path: '/graphql',
    headers: { 'content-type': 'application/json', accept: 'application/json' },
    body: JSON.stringify({ query: CARDS }),
  },
];

const ask = (request: (typeof REQUESTS)[number]) => send(state.url as string, request);

describe(`a step of the Node edge that throws, on ${engineName}`, () => {
  for (const step of ['identify', 'budget', 'cache lookup', 'version read', 'execute', 'write']) {
    it(`(${step}) costs that request at most a masked 500, and the next one is answered`, async () => {
      // Asked once without the fault, so each is kept and the edge answers it (a hit) or runs it.
      for (const request of REQUESTS) expect((await ask(request)).status).toBe(200);
      for (const request of REQUESTS) {
        faults.length = 0;
        fault.step = step;
        const answer = await ask(request).finally(() => {
          fault.step = undefined;
        });
        const body = answer.body.toString();
        expect([200, 500], `${step}: ${request.method} ${request.path}`).toContain(answer.status);
        expect(body).not.toMatch(/injected fault|\n\s+at /);
        if (answer.status === 500) expect(body).toMatch(/Unexpected error/);
        expect(answer.headers['x-request-id']).toBeTruthy();
        // Reported once where the edge met it (the app's own faults are the app's to mask and log).
        for (const reported of faults) expect(reported.requestId).toBe(answer.headers['x-request-id']);
        const next = await ask(request);
        expect(next.status, `after ${step}: ${request.method} ${request.path}`).toBe(200);
      }
    });
  }

  it('reports an edge fault with the request id the answer carries', async () => {
    faults.length = 0;
    fault.step = 'identify';
    const answer = await ask(REQUESTS[1] as (typeof REQUESTS)[number]).finally(() => {
      fault.step = undefined;
    });
    expect(answer.status).toBe(200);
    expect(faults.map((reported) => String(reported.error))).toEqual(['Error: injected fault: identify']);
    expect(faults[0]?.requestId).toBe(answer.headers['x-request-id']);
  });
});
