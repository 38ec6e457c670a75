// The first request of each path after a start and after an import, against the second (not part of the suite).
// Nothing that grows with the listing may be left to a first request: the listing summary is made at import and
// read before the server listens and as soon as it sees a new version (src/listing/warm-up.ts).
//
//   DATABASE_URL=postgresql://postgres@127.0.0.1:5432/bench100k SEED_PACKAGES=100000 npm run bench:first-requests
//   DATA_DIR=$(mktemp -d) SEED_PACKAGES=2000 npm run bench:first-requests
//
// The database is seeded with SEED_PACKAGES demo packages when empty. After the first round, five packages are
// imported again with new titles (a new listing version, whatever ran before), and the round is repeated once the server has seen it.
import { freePort, type ServerProcess, sleep, startOptions, startProcess } from './harness.js';
import { importFiveRetitled, scalePaths, timed } from './scale/paths.js';
import { BENCH_KEY_ENTRY } from './scenarios.js';

const PATHS = scalePaths(100_000);

/** The first and second request of each path, in ms. */
async function round(url: string, label: string): Promise<string[]> {
  const lines: string[] = [];
  for (const { label: name, request } of PATHS) {
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
  await importFiveRetitled(env);
  await sleep(3000); // the version watch reads every second
  lines.push(...(await round(server.url, 'after an import')));
} finally {
  await server.stop();
}
console.log(lines.join('\n'));
