// Every superseded version purged, through a real Varnish on deploy/varnish/default.vcl: two imports commit inside
// one of the gateway's watch intervals (LISTING_WATCH_INTERVAL=20), and a page made from the version between them
// is kept by Varnish under that version's key. The watch sees only the first version and the last; the gateway's
// purge names every version in between too (the record of commits), in one POST that Varnish's xkey takes, so the
// page kept under the middle version is gone, and the new version served, as soon as the watch has seen the change.
// Runs with the PostgreSQL suite; needs Debian's varnish and varnish-modules (CI installs them).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Database, openDatabase } from '../../src/db/client.js';
import { generatePackages } from '../../src/demo/generate.js';
import { importSource } from '../../src/import/importer.js';
import { createPostgresDatabaseUrl, onPostgres } from '../helpers/database.js';
import { freePort } from '../helpers/processes.js';
import { type ServerProcess, startServer } from '../helpers/server-process.js';
import { startVarnish, type Varnish, varnishInstalled } from '../helpers/varnish.js';
import { memorySource } from '../import/helpers.js';

const inCi = process.env.CI === 'true';
const runs = onPostgres && (varnishInstalled() || inCi);
const WATCH_S = 20;
const REQUEST_TIMEOUT_S = 2;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

let database: { url: string; drop: () => Promise<void> };
let gateway: ServerProcess;
let varnish: Varnish;
let writer: Database;
let started = 0;

beforeAll(async () => {
  if (!runs) return;
  if (!varnishInstalled()) throw new Error('CI=true: apt-get install varnish varnish-modules');
  database = await createPostgresDatabaseUrl();
  const [gatewayPort, edgePort] = [await freePort(), await freePort()];
  gateway = await startServer({
    DATABASE_URL: database.url,
    PORT: String(gatewayPort),
    PURGE_URLS: `http://127.0.0.1:${edgePort}/.xkey-purge`,
    LISTING_WATCH_INTERVAL: String(WATCH_S),
    REQUEST_TIMEOUT: String(REQUEST_TIMEOUT_S),
    SEED_PACKAGES: '30',
    RATE_LIMIT: '0',
  });
  started = Date.now(); // its watch read the version as it started, and reads again WATCH_S later
  varnish = await startVarnish([gatewayPort, gatewayPort], edgePort);
  writer = await openDatabase({ kind: 'postgresql', url: database.url });
}, 120_000);

afterAll(async () => {
  await writer?.close();
  await gateway?.stop();
  await varnish?.stop();
  await database?.drop();
});

const page = (seed: number) =>
  `/graphql?query=${encodeURIComponent(`{ packages(limit: 4, seed: ${seed}) { results { id title } } }`)}`;

async function edge(path: string): Promise<{ cache: string | null; body: string }> {
  const response = await fetch(`${varnish.url}${path}`);
  return { cache: response.headers.get('x-edge-cache'), body: await response.text() };
}

/** Asks twice: the second answer is Varnish's kept copy. */
async function kept(path: string): Promise<string> {
  await edge(path);
  const again = await edge(path);
  expect(again.cache, `${path} kept by Varnish`).toBe('hit');
  return again.body;
}

async function okPurges(): Promise<number> {
  const text = await (await fetch(`${gateway.url}/metrics`)).text();
  return Number(/^cdn_purges_total\{outcome="ok"\} (\d+)/m.exec(text)?.[1] ?? 0);
}

/** An import retitling every package with `mark`: a new listing version. */
async function importMarked(mark: string): Promise<void> {
  const records = [...generatePackages({ count: 30 })].map((r) => ({ ...r, title: `${mark}${r.title}` }));
  const report = await importSource(writer, memorySource(records));
  expect(report.status, JSON.stringify(report)).toBe('imported');
}

async function waitFor(what: string, ms: number, done: () => Promise<boolean>): Promise<void> {
  const until = Date.now() + ms;
  while (!(await done())) {
    if (Date.now() > until) throw new Error(`${what}: not within ${ms} ms`);
    await sleep(100);
  }
}

describe.runIf(runs)('two versions committed inside one watch interval', () => {
  it('the page kept under the version between them is purged with the one before, twice', async () => {
    const first = await kept(page(1)); // the seeded version's
    await importMarked('Middle ');
    const middle = await kept(page(2)); // the version the watch never sees
    expect(middle).toContain('Middle ');
    await importMarked('Last ');
    expect(await okPurges(), 'the watch read between the imports: no middle version left').toBe(0);
    expect(Date.now() - started).toBeLessThan(WATCH_S * 1000);

    await waitFor('the first purge', WATCH_S * 1000 + 10_000, async () => (await okPurges()) >= 1);
    const [afterFirst, afterMiddle] = [await edge(page(1)), await edge(page(2))];
    expect(first).not.toContain('Last ');
    expect(afterFirst.body).toContain('Last ');
    expect(afterMiddle.cache, 'the page kept under the middle version is still served').toBe('miss');
    expect(afterMiddle.body).toContain('Last ');
    // The second purge, REQUEST_TIMEOUT and a margin later, is one POST too.
    await waitFor('the second purge', REQUEST_TIMEOUT_S * 1000 + 5_000, async () => (await okPurges()) >= 2);
    await sleep(500);
    expect(await okPurges()).toBe(2);
  }, 90_000);
});
