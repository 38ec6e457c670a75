// The purge race, through a real Varnish on deploy/varnish/default.vcl: an answer made from version N that reaches
// the CDN after N's purge is filed under N's key, which nothing would purge again, so the CDN would serve it until
// CDN_MAX_AGE (a day). Here the answer is held on its way from the gateway to Varnish (a proxy of the test's own
// between them) across an import and its first purge, then let through: Varnish keeps the old page, and serves
// the new version again once the gateway's second purge (REQUEST_TIMEOUT plus a margin after the first) has
// come. Runs with the PostgreSQL suite; needs Debian's varnish and varnish-modules (CI installs them).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server, Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPURGE_MARGIN_MS } from '../../src/cache/purge.js';
import { generatePackages } from '../../src/demo/generate.js';
import { createPostgresDatabaseUrl, onPostgres } from '../helpers/database.js';
import { freePort } from '../helpers/processes.js';
import { runScript, type ServerProcess, startServer } from '../helpers/server-process.js';
import { startVarnish, type Varnish, varnishInstalled } from '../helpers/varnish.js';

const inCi = process.env.CI === 'true';
const runs = onPostgres && (varnishInstalled() || inCi);
const REQUEST_TIMEOUT_S = 8;
const MARK = 'Imported ';
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A TCP proxy that can hold what the upstream answers (buffered, in order) until released. */
async function startHoldingProxy(upstreamPort: number) {
  let holding = false;
  const held: [Socket, Buffer][] = [];
  const server: Server = createServer((client) => {
    const upstream = new Socket();
    client.on('error', () => upstream.destroy());
    upstream.on('error', () => client.destroy());
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.end());
    upstream.connect(upstreamPort, '127.0.0.1', () => client.pipe(upstream));
    upstream.on('data', (chunk: Buffer) => (holding ? held.push([client, chunk]) : client.write(chunk)));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  return {
    port: typeof address === 'object' && address ? address.port : 0,
    hold: () => {
      holding = true;
    },
    heldBytes: () => held.reduce((sum, [, chunk]) => sum + chunk.length, 0),
    release: () => {
      holding = false;
      for (const [client, chunk] of held.splice(0)) client.write(chunk);
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

async function okPurges(gateway: ServerProcess): Promise<number> {
  const text = await (await fetch(`${gateway.url}/metrics`)).text();
  return Number(/^cdn_purges_total\{outcome="ok"\} (\d+)/m.exec(text)?.[1] ?? 0);
}

let database: { url: string; drop: () => Promise<void> };
let gateway: ServerProcess;
let proxy: Awaited<ReturnType<typeof startHoldingProxy>>;
let varnish: Varnish;
let work: string;

beforeAll(async () => {
  if (!runs) return;
  if (!varnishInstalled()) throw new Error('CI=true: apt-get install varnish varnish-modules');
  work = mkdtempSync(join(tmpdir(), 'purge-race-'));
  database = await createPostgresDatabaseUrl();
  const [gatewayPort, edgePort] = [await freePort(), await freePort()];
  gateway = await startServer({
    DATABASE_URL: database.url,
    PORT: String(gatewayPort),
    PURGE_URLS: `http://127.0.0.1:${edgePort}/.xkey-purge`,
    REQUEST_TIMEOUT: String(REQUEST_TIMEOUT_S),
    SEED_PACKAGES: '30',
    RATE_LIMIT: '0',
  });
  proxy = await startHoldingProxy(gatewayPort);
  varnish = await startVarnish([proxy.port, proxy.port], edgePort);
}, 120_000);

afterAll(async () => {
  await gateway?.stop();
  await varnish?.stop();
  await proxy?.close();
  await database?.drop();
  if (work) rmSync(work, { recursive: true, force: true });
});

/** A page of the listing, one of its own for each attempt. */
const pageOf = (attempt: number) =>
  `/graphql?query=${encodeURIComponent(`{ packages(limit: 4, seed: ${31 + attempt}) { results { id title } } }`)}`;

/**
 * Holds an answer of the version now on its way to Varnish across an import and the gateway's first purge, then
 * lets it through. Resolves with when the first purge was seen, or null when the race did not happen this time
 * (a loaded machine: the gateway did not share the answer, or its second purge came before the test looked).
 */
async function race(attempt: number, mark: string): Promise<number | null> {
  const page = pageOf(attempt);
  const purgedBefore = await okPurges(gateway);
  proxy.hold();
  const late = fetch(`${varnish.url}${page}`).then(async (r) => ({
    cacheControl: r.headers.get('cache-control'),
    body: await r.text(),
  }));
  while (proxy.heldBytes() === 0) await sleep(20);
  const records = [...generatePackages({ count: 30 })].map((r) => ({ ...r, title: `${mark}${r.title}` }));
  const file = join(work, `import-${attempt}.json`);
  writeFileSync(file, JSON.stringify(records));
  const result = await runScript('src/cli/import.ts', { DATABASE_URL: database.url }, [file]);
  expect(result.code, result.stderr).toBe(0);
  while ((await okPurges(gateway)) < purgedBefore + 1) await sleep(50);
  const firstPurge = Date.now();
  proxy.release();
  const arrived = await late;
  expect(arrived.body).not.toContain(mark);
  const kept = await fetch(`${varnish.url}${page}`);
  const keptBody = await kept.text();
  const raced = arrived.cacheControl?.startsWith('public') && kept.headers.get('x-edge-cache') === 'hit';
  if (!raced || keptBody.includes(mark)) {
    console.log(
      `purge race, attempt ${attempt}: no race (${arrived.cacheControl}, ${kept.headers.get('x-edge-cache')})`,
    );
    return null;
  }
  return firstPurge;
}

describe.runIf(runs)('an answer that reaches the CDN after its version was purged', () => {
  it('is purged again: the CDN serves the new version within REQUEST_TIMEOUT and a margin', async () => {
    // The old answer arrives after the purge, and the CDN keeps it: the race, as it happens. Then the second purge
    // ends it.
    for (let attempt = 1; attempt <= 3; attempt++) {
      const mark = `${MARK}${attempt} `;
      const firstPurge = await race(attempt, mark);
      if (firstPurge === null) continue;
      const bound = REQUEST_TIMEOUT_S * 1000 + REPURGE_MARGIN_MS + 1500;
      let body = '';
      while (!body.includes(mark)) {
        expect(Date.now() - firstPurge, 'the CDN still serves the page made before the import').toBeLessThan(bound);
        await sleep(100);
        body = await (await fetch(`${varnish.url}${pageOf(attempt)}`)).text();
      }
      console.log(`purge race: the new version at the edge ${Date.now() - firstPurge} ms after the first purge`);
      return;
    }
    throw new Error('the race did not happen in 3 attempts: the held answer was never kept by Varnish');
  }, 180_000);
});
