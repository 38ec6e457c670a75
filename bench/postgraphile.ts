// PostGraphile v5 beside the product, on the same PostgreSQL database in the same run: the server its users would
// pick instead. It is not a dependency of the project: bench/postgraphile-server (its pinned packages, server and
// queries) is copied to a folder of its own (BENCH_POSTGRAPHILE_DIR) and installed there once.
import { cpSync, existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT, runCommandIn, type ServerProcess, startProcess } from './harness.js';
import type { Scenario } from './scenarios.js';
import { PAGE } from './scenarios.js';

const SERVER = join(ROOT, 'bench/postgraphile-server');
export const POSTGRAPHILE_DIR = process.env.BENCH_POSTGRAPHILE_DIR || '/tmp/listing-bench-postgraphile';

/** bench/postgraphile-server installed in its folder (the install refreshed when the pinned packages change). */
async function installed(log: (line: string) => void): Promise<string> {
  const pinned = readFileSync(join(SERVER, 'package.json'), 'utf8');
  const copied = join(POSTGRAPHILE_DIR, 'package.json');
  const current =
    existsSync(join(POSTGRAPHILE_DIR, 'node_modules/postgraphile/package.json')) &&
    existsSync(copied) &&
    readFileSync(copied, 'utf8') === pinned;
  cpSync(SERVER, POSTGRAPHILE_DIR, { recursive: true }); // the server and queries as this checkout has them
  if (current) return POSTGRAPHILE_DIR;
  log(`PostGraphile: installing bench/postgraphile-server into ${POSTGRAPHILE_DIR} (once)`);
  await runCommandIn(POSTGRAPHILE_DIR, 'npm', ['install', '--no-audit', '--no-fund'], {});
  return POSTGRAPHILE_DIR;
}

/** PostGraphile serving the database, as bench/postgraphile-server runs it; undefined when it cannot be had. */
export async function startPostGraphile(
  databaseUrl: string,
  log: (line: string) => void,
): Promise<ServerProcess | undefined> {
  const dir = await installed(log).catch((error: Error) => {
    log(`PostGraphile: skipped, the install failed (${error.message})`);
    return null;
  });
  if (!dir) return undefined;
  return startProcess(
    join(dir, 'server.mjs'),
    { ANCHOR_DATABASE_URL: databaseUrl, NODE_ENV: 'production', GRAPHILE_ENV: 'production' },
    /postgraphile: (http:\/\/[^/\s]+)\//,
    ['--import', join(dir, 'polyfill.mjs')],
    dir,
  );
}

const query = (name: string) => readFileSync(join(POSTGRAPHILE_DIR, 'queries', name), 'utf8');

/** PostGraphile's slim and full pages: the product's graphql-slim and graphql-full in its schema. */
export function postgraphileScenarios(): Scenario[] {
  const request = (file: string, operationName: string): Scenario['request'] => ({
    method: 'POST',
    path: '/graphql',
    headers: { 'content-type': 'application/json', accept: 'application/json' },
    body: JSON.stringify({ query: query(file), variables: { first: PAGE, offset: 0 }, operationName }),
    verify: (body) => body.startsWith('{"data":{"allListingEntries":{"nodes":[{') && !body.includes('"errors"'),
  });
  return [
    {
      id: 'pg-slim',
      label: `PostGraphile page of ${PAGE}, id/title/price`,
      request: request('slim-page.graphql', 'SlimPage'),
    },
    {
      id: 'pg-full',
      label: `PostGraphile page of ${PAGE}, every field`,
      request: request('full-page.graphql', 'FullPage'),
    },
  ];
}
