// Two servers on one test database and the same settings, one answering at the Node edge and one leaving every
// request to the app: the differential tests of the edge (test/cache/edge-hits.test.ts,
// test/graphql/edge-operations.test.ts) ask both the same requests and compare the answers.
import { afterAll, beforeAll } from 'vitest';
import type { AppSettings } from '../../src/app.js';
import { generatePackages } from '../../src/demo/generate.js';
import { importSource } from '../../src/import/importer.js';
import type { V2Package } from '../../src/v2/records.js';
import { memorySource } from '../import/helpers.js';
import { createTestDatabase, type TestDatabase } from './database.js';
import { TEST_KEYS } from './graphql.js';
import { type ServedApp, type ServeOptions, serveApp } from './http-server.js';

export interface PairOptions extends Omit<ServeOptions, 'edgeHits' | 'logger'> {
  publicUrl?: string | undefined;
  edge?: Partial<AppSettings>;
  app?: Partial<AppSettings>;
}

/**
 * A database of `count` listed packages made before the file's tests and dropped after them, with the servers
 * made on it. `pair(settings)` serves the settings twice: `edge` with answers at the edge, `app` without.
 */
export function edgeAndApp(options: { count: number; seed: number; publicUrl: string }) {
  const records = [...generatePackages({ count: options.count, seed: options.seed })].map((r) => ({
    ...r,
    status: 1,
  })) as V2Package[];
  const servers: ServedApp[] = [];
  const state: { db?: TestDatabase } = {};
  beforeAll(async () => {
    state.db = await createTestDatabase();
    await importSource(state.db, memorySource(records));
  });
  afterAll(async () => {
    for (const server of servers) await server.close();
    await state.db?.destroy();
  });
  /** The database, once made (in a test or a hook). */
  const db = () => state.db as TestDatabase;
  /** A server of its own on the database, closed after the file's tests. */
  const serve = async (...args: Parameters<typeof serveApp> extends [unknown, ...infer Rest] ? Rest : never) => {
    const server = await serveApp(db(), ...args);
    servers.push(server);
    return server;
  };
  /**
   * `served`: how both are served (the public URL, by default the file's, undefined for none; the listening
   * address; the connection bound), and what each side has of its own beside the settings (a Redis database
   * each, so that neither finds what the other kept or counted).
   */
  async function pair(settings: Partial<AppSettings>, served: PairOptions = {}) {
    const all: Partial<AppSettings> = { apiKeys: TEST_KEYS, rateLimit: { requests: 0, windowMs: 60_000 }, ...settings };
    const { publicUrl: _p, edge: ofEdge = {}, app: ofApp = {}, ...serving } = served;
    // Given as undefined: none, the links on the listening address.
    const publicUrl = 'publicUrl' in served ? served.publicUrl : options.publicUrl;
    const edge = await serve({ ...all, ...ofEdge }, publicUrl, undefined, serving);
    const app = await serve({ ...all, ...ofApp }, publicUrl, undefined, { ...serving, edgeHits: false });
    /** Closes both now rather than after the file's tests. */
    const close = async () => {
      for (const server of [edge, app]) {
        servers.splice(servers.indexOf(server), 1);
        await server.close();
      }
    };
    return { edge, app, close };
  }
  return { records, db, serve, pair };
}
