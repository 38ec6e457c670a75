// The response cache changes nothing but speed, held as a property over random sequences of requests: with the
// cache on, every answer is the one the same server gives with it off (same status and headers but for Date,
// X-Request-Id and the caching headers, the same bytes once decoded, never a Content-Encoding the request did
// not admit), and a 304 stands only for a 200 whose representation If-None-Match names (RFC 9110).
//
// Four servers over real HTTP on one database: A (cache on, Redis, TRUST_PROXY, V2_API_KEYS) and B (cache on,
// the same Redis, no proxy trusted, no v2 keys), each beside its twin with the cache off. Sequences mix both
// pairs, so answers are shared through Redis between differently configured instances, and now and then change
// a price (the listing version moves; earlier ETags go stale). Seeded and reproducible: PROPERTY_SEED and
// PROPERTY_RUNS (default 2000); a failure prints the seed and the shortest failing sequence.
import { randomBytes } from 'node:crypto';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { hashKey } from '../../src/api-keys.js';
import type { AppSettings } from '../../src/app.js';
import { generatePackages } from '../../src/demo/generate.js';
import { importSource } from '../../src/import/importer.js';
import type { V2Package } from '../../src/v2/records.js';
import { createTestDatabase, engineName, type TestDatabase } from '../helpers/database.js';
import { PRIVATE_KEY, TEST_KEYS } from '../helpers/graphql.js';
import { type Exchange, type ServedApp, send, serveApp } from '../helpers/http-server.js';
import { memorySource } from '../import/helpers.js';
import { type Action, type Ask, action, difference } from './transparency-model.js';

const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
const RUNS = Number(process.env.PROPERTY_RUNS ?? 2000);
const SEED = Number(process.env.PROPERTY_SEED ?? Date.now() % 2 ** 31);
const V2_KEY = `lgw_v2-${randomBytes(8).toString('hex')}`;

let db: TestDatabase;
const servers: Record<'A' | 'A0' | 'B' | 'B0', ServedApp> = {} as never;
const records = [...generatePackages({ count: 24, seed: 77 })].map((r) => ({ ...r, status: 1 })) as V2Package[];

beforeAll(async () => {
  db = await createTestDatabase();
  await importSource(db, memorySource(records));
  const common: Partial<AppSettings> = { apiKeys: TEST_KEYS, rateLimit: { requests: 0, windowMs: 60_000 } };
  const a: Partial<AppSettings> = {
    ...common,
    trustProxy: true,
    v2ApiKeys: [{ name: 'legacy', scopes: new Set(), hash: hashKey(V2_KEY) }],
  };
  servers.A = await serveApp(db, { ...a, redisUrl: REDIS_URL });
  servers.A0 = await serveApp(db, { ...a, responseCacheBytes: 0 });
  servers.B = await serveApp(db, { ...common, redisUrl: REDIS_URL });
  servers.B0 = await serveApp(db, { ...common, responseCacheBytes: 0 });
});
afterAll(async () => {
  for (const server of Object.values(servers)) await server?.close();
  await db?.destroy();
});

/** What a sequence has seen: the ETags of cache-on answers, and those seen before the last change (stale). */
interface Seen {
  etags: string[];
  stale: string[];
}

function headersOf(ask: Ask, seen: Seen): Record<string, string> {
  const headers: Record<string, string> = {};
  if (ask.accept !== undefined) headers.accept = ask.accept;
  if (ask.acceptEncoding !== undefined) headers['accept-encoding'] = ask.acceptEncoding;
  if (ask.body !== undefined) headers['content-type'] = 'application/json';
  const last = seen.etags.at(-1) ?? '"none"';
  const tag = {
    none: undefined,
    '*': '*',
    seen: last,
    stale: seen.stale.at(-1) ?? last,
    'made-up': '"made-up-tag"',
    'weak-seen': `W/${last}`,
    list: `"other", ${last}`,
  }[ask.ifNoneMatch];
  if (tag !== undefined) headers['if-none-match'] = tag;
  if (ask.forwarded === 'forwarded-host') headers['x-forwarded-host'] = 'evil.example';
  if (ask.forwarded === 'forwarded-proto') headers['x-forwarded-proto'] = 'https';
  if (ask.forwarded === 'host') headers.host = 'evil.example';
  const key = { none: undefined, private: PRIVATE_KEY, v2: V2_KEY, wrong: 'wrong' }[ask.auth];
  if (key !== undefined) headers.authorization = `Bearer ${key}`;
  return headers;
}

async function run(actions: Action[]): Promise<void> {
  const seen: Seen = { etags: [], stale: [] };
  for (const step of actions) {
    if (step.kind === 'change') {
      const record = structuredClone(records[step.index] as V2Package);
      await importSource(
        db,
        memorySource([
          { ...record, price: `${Math.floor(step.cents / 100)}.${String(step.cents % 100).padStart(2, '0')}` },
        ]),
      );
      seen.stale = [...seen.etags];
      continue;
    }
    const headers = headersOf(step, seen);
    const request = { method: step.method, path: step.path, headers, ...(step.body ? { body: step.body } : {}) };
    const on = servers[step.pair];
    const off = servers[`${step.pair}0`];
    const answers: [Exchange, Exchange] = [await send(on.url, request), await send(off.url, request)];
    const etag = answers[0].headers.etag;
    if (etag) seen.etags.push(etag);
    const wrong = difference(step, { ifNoneMatch: headers['if-none-match'] }, ...answers, { on: on.url, off: off.url });
    if (wrong) throw new Error(`${step.method} ${step.path} on ${step.pair}: ${wrong}`);
  }
}

describe(`the response cache is transparent, on ${engineName}`, () => {
  it(`holds for ${RUNS} random sequences of requests (seed ${SEED})`, { timeout: 600_000 }, async () => {
    console.log(`cache transparency: ${RUNS} sequences, seed ${SEED} (PROPERTY_SEED=${SEED} reproduces them)`);
    await fc.assert(
      fc.asyncProperty(fc.array(action, { minLength: 1, maxLength: 6 }), (actions) => run(actions)),
      { numRuns: RUNS, seed: SEED },
    );
  });
});
