// The servers the cache's transparency tests compare (transparency.test.ts, transparency-examples.test.ts), over
// real HTTP on one database, each as src/server.ts serves it: the Node edge in front, answering kept answers before
// the app. A (cache on, Redis, TRUST_PROXY, V2_API_KEYS, CORS for any site) and B (cache on, the same Redis, no
// proxy trusted, no v2 keys, CORS for one site), each beside its twin with the cache off (A0, B0).
//
// The request budget and APQ's registration budgets are off: they count callers, and A and B count theirs in
// Redis, across runs of the test, where the twins count in memory; a refusal they made would be a difference of
// its own, not the cache's.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll } from 'vitest';
import { hashKey } from '../../src/api-keys.js';
import type { AppSettings } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { generatePackages } from '../../src/demo/generate.js';
import { importSource } from '../../src/import/importer.js';
import type { V2Package } from '../../src/v2/records.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';
import { TEST_KEYS } from '../helpers/graphql.js';
import { type ServedApp, serveApp } from '../helpers/http-server.js';
import { memorySource } from '../import/helpers.js';

export const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
/** The v2 API key A requires. */
export const V2_KEY = `lgw_v2-${randomBytes(8).toString('hex')}`;
/** The one site B's CORS allows. */
export const ALLOWED_ORIGIN = 'https://shop.example';

export type ServerName = 'A' | 'A0' | 'B' | 'B0';

/** The listed packages, and the four servers on them, made before the file's tests and closed after them. */
export function transparencyServers() {
  const records = [...generatePackages({ count: 24, seed: 77 })].map((r) => ({ ...r, status: 1 })) as V2Package[];
  const servers = {} as Record<ServerName, ServedApp>;
  const state: { db?: TestDatabase } = {};
  beforeAll(async () => {
    const db = await createTestDatabase();
    state.db = db;
    await importSource(db, memorySource(records));
    const defaults = loadConfig({});
    const common: Partial<AppSettings> = {
      apiKeys: TEST_KEYS,
      rateLimit: { requests: 0, windowMs: 60_000 },
      apq: { ...defaults.apq, registrationsPerMinute: 0, maxBytesPerCaller: 0 },
    };
    const a: Partial<AppSettings> = {
      ...common,
      trustProxy: true,
      v2ApiKeys: [{ name: 'legacy', scopes: new Set(), hash: hashKey(V2_KEY) }],
    };
    const b: Partial<AppSettings> = { ...common, corsOrigins: [ALLOWED_ORIGIN] };
    const edge = { edgeHits: true };
    servers.A = await serveApp(db, { ...a, redisUrl: REDIS_URL }, undefined, undefined, edge);
    servers.A0 = await serveApp(db, { ...a, responseCacheBytes: 0 }, undefined, undefined, edge);
    servers.B = await serveApp(db, { ...b, redisUrl: REDIS_URL }, undefined, undefined, edge);
    servers.B0 = await serveApp(db, { ...b, responseCacheBytes: 0 }, undefined, undefined, edge);
  });
  afterAll(async () => {
    for (const server of Object.values(servers)) await server?.close();
    await state.db?.destroy();
  });
  return { records, servers, db: () => state.db as TestDatabase };
}
