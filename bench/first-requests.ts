// The first request of each path after a start and after an import, against the second (not part of the suite).
// Nothing that grows with the listing may be left to a first request: the listing summary is made at import and
// read before the server listens and as soon as it sees a new version (src/listing/warm-up.ts).
//
//   DATABASE_URL=postgresql://postgres@127.0.0.1:5432/bench100k SEED_PACKAGES=100000 npm run bench:first-requests
//   DATA_DIR=$(mktemp -d) SEED_PACKAGES=2000 npm run bench:first-requests
//
// The database is seeded with SEED_PACKAGES demo packages when empty. After the first round, five packages are
// imported again with new titles (a new listing version, whatever ran before), and the round is repeated once the server has seen it.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generatePackages } from '../src/demo/generate.js';
import { renderJson } from '../src/rest/render.js';
import {
  freePort,
  type Request,
  runCommand,
  type ServerProcess,
  sleep,
  startOptions,
  startProcess,
} from './harness.js';
import {
  BENCH_KEY_ENTRY,
  cardsRequest,
  DEEP_OFFSET,
  FILTER_90,
  fullPageRequest,
  graphqlRequest,
  restPage,
  SLIM_PAGE_QUERY,
} from './scenarios.js';

const FACETS = `query Facets($filter: PackageFilter) { packages(limit: 24, seed: 7, filter: $filter) {
  count facets { category { values { id count } } price { values { count } } instantBooking { values { count } }
  featured { values { count } } photographer { values { id count } } } } }`;

/** Each path's request (a new listing version reads every filter afresh: the same ones serve both rounds). */
const PATHS: [string, Request][] = [
  ['v2 page, offset 0', restPage(0)],
  [`v2 page, offset ${DEEP_OFFSET.toLocaleString('en')} (or the last)`, restPage(DEEP_OFFSET)],
  ['GraphQL full page of 50', fullPageRequest()],
  ['GraphQL slim page of 50', graphqlRequest(SLIM_PAGE_QUERY, {})],
  ['GraphQL cards, filter ~90%', cardsRequest(FILTER_90)],
  ['GraphQL facets, filter ~90%', graphqlRequest(FACETS, { filter: FILTER_90 }, 'Facets')],
  ['GraphQL categories', graphqlRequest('{ categories { code name packageCount } }', {})],
  ['GraphQL search "golden hour"', cardsRequest({ search: 'golden hour' })],
  ['GraphQL search with a typo "weding"', cardsRequest({ search: 'weding' })],
];

async function timed(url: string, request: Request): Promise<number> {
  const started = performance.now();
  const response = await fetch(`${url}${request.path}`, {
    method: request.method,
    headers: request.headers,
    body: request.body,
  });
  const body = await response.text();
  if (!response.ok || !request.verify(body))
    throw new Error(`${request.path}: ${response.status} ${body.slice(0, 200)}`);
  return performance.now() - started;
}

/** The first and second request of each path, in ms. */
async function round(url: string, label: string): Promise<string[]> {
  const lines: string[] = [];
  for (const [name, request] of PATHS) {
    const first = await timed(url, request);
    const second = await timed(url, request);
    lines.push(`| ${label} | ${name} | ${first.toFixed(1)} | ${second.toFixed(1)} |`);
  }
  return lines;
}

const env = {
  ...(process.env.DATABASE_URL ? { DATABASE_URL: process.env.DATABASE_URL } : {}),
  ...(process.env.DATA_DIR ? { DATA_DIR: process.env.DATA_DIR } : {}),
  SEED_PACKAGES: process.env.SEED_PACKAGES ?? '2000',
  LOG_LEVEL: 'warn',
  RATE_LIMIT: '0',
  RESPONSE_CACHE_BYTES: '0',
  API_KEYS: BENCH_KEY_ENTRY,
};
const port = await freePort();
const started = performance.now();
const server: ServerProcess = await startProcess(
  'dist/server.js',
  { ...env, PORT: String(port) },
  `http://127.0.0.1:${port}`,
  startOptions(),
);
const ready = performance.now() - started;
const lines = [
  `ready in ${(ready / 1000).toFixed(1)} s (seeded when empty)`,
  '',
  '| when | path | first ms | second ms |',
  '|---|---|--:|--:|',
];
try {
  lines.push(...(await round(server.url, 'after a start')));
  // A new listing version: five packages with new titles, imported through the server's own command.
  const dir = mkdtempSync(join(tmpdir(), 'first-requests-'));
  // Titles new on every run, so that the import always writes a new version.
  const stamp = new Date().toISOString();
  const records = [...generatePackages({ count: 5 })].map((record) => ({
    ...record,
    title: `${record.title} ${stamp}`,
  }));
  writeFileSync(join(dir, 'page.json'), renderJson({ count: 5, next: null, previous: null, results: records }));
  // On the embedded database the command hands the records to the server (it holds the data directory).
  await runCommand('node', ['dist/cli/import.js', join(dir, 'page.json')], env);
  rmSync(dir, { recursive: true, force: true });
  await sleep(3000); // the version watch reads every second
  lines.push(...(await round(server.url, 'after an import')));
} finally {
  await server.stop();
}
console.log(lines.join('\n'));
