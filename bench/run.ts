// `npm run bench`: the product under load beside a raw-SQL floor, on PGlite and (with BENCH_DATABASE_URL) on
// PostgreSQL. For each engine: prepare a database of 100,000 listed packages (reused when already there),
// start the server as its own process, and drive each scenario over loopback with autocannon at a fixed
// concurrency and duration; print the table and put it at the top of bench/results.md.
//
// Environment:
//   BENCH_DATABASE_URL  PostgreSQL database for the PostgreSQL run and the floor (created when missing)
//   BENCH_DATA_DIR      PGlite data directory (default /tmp/listing-bench-pglite, outside the repository)
//   BENCH_ENGINES       engines to run, comma-separated (default: postgresql when BENCH_DATABASE_URL is set, pglite)
//   BENCH_CONNECTIONS   concurrent connections (default 16)
//   BENCH_DURATION      seconds measured per scenario (default 10)
//   BENCH_WARMUP        seconds of warm-up per scenario, not measured (default 3)
//   BENCH_SCENARIOS     only these scenarios, comma-separated ids (floor, rest-first, rest-deep, graphql-full,
//                       graphql-slim, graphql-filter-10, graphql-filter-90, graphql-price-sort, graphql-one,
//                       rest-br, graphiql, and with the cache on: rest-cached, rest-cached-br, rest-304,
//                       graphql-cached, rest-redis); results.md is not written
//   BENCH_REDIS_URL     Redis for the shared-cache scenario (default redis://127.0.0.1:6379; empty: skipped)
//   BENCH_NODE_ARGS     extra node options for the server, e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof";
//                       results.md is not written (a profiled server is slower)
import { join } from 'node:path';
import pg from 'pg';
import { cachedRows } from './cached.js';
import { commit, machine, versions } from './environment.js';
import {
  cpuMs,
  type DatabaseCpu,
  databaseCpu,
  freePort,
  highWaterMb,
  load,
  type Request,
  ROOT,
  runCommand,
  runScript,
  type ServerProcess,
  sampleRss,
  settled,
  startProcess,
  statementsSoFar,
} from './harness.js';
import { ENGINE_NAMES, type Engine, type EngineRun, type Row, runSection, writeResults } from './report.js';
import {
  cardsRequest,
  FILTER_10,
  FILTER_90,
  FLOOR_REQUEST,
  FULL_PAGE_QUERY,
  graphqlRequest,
  PAGE,
  restPage,
  type Scenario,
  SEED,
  scenarios,
} from './scenarios.js';

const PACKAGES = 100_000;
const PAGE_SIZES = [1, 10, 50, 100];

function envInt(name: string, fallback: number): number {
  const text = process.env[name];
  if (text === undefined || text === '') return fallback;
  const value = Number(text);
  if (!Number.isInteger(value) || value < 1) throw new Error(`${name} must be a whole number >= 1, got ${text}`);
  return value;
}

const settings = {
  connections: envInt('BENCH_CONNECTIONS', 16),
  duration: envInt('BENCH_DURATION', 10),
  warmup: envInt('BENCH_WARMUP', 3),
  postgresUrl: process.env.BENCH_DATABASE_URL || undefined,
  dataDir: process.env.BENCH_DATA_DIR || '/tmp/listing-bench-pglite',
  scenarios: process.env.BENCH_SCENARIOS?.split(',').map((s) => s.trim()) ?? undefined,
  nodeArgs: process.env.BENCH_NODE_ARGS?.split(/\s+/).filter(Boolean) ?? [],
  redisUrl: (process.env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379') || undefined,
};

const chosen = (id: string) => !settings.scenarios || settings.scenarios.includes(id);

function chosenEngines(): Engine[] {
  const names = process.env.BENCH_ENGINES?.split(',').map((s) => s.trim()) ?? [
    ...(settings.postgresUrl ? ['postgresql'] : []),
    'pglite',
  ];
  for (const name of names) {
    if (name !== 'postgresql' && name !== 'pglite') throw new Error(`BENCH_ENGINES: unknown engine ${name}`);
    if (name === 'postgresql' && !settings.postgresUrl)
      throw new Error('the postgresql engine needs BENCH_DATABASE_URL');
  }
  return names as Engine[];
}

function engineEnv(engine: Engine): Record<string, string> {
  return engine === 'postgresql' ? { DATABASE_URL: settings.postgresUrl as string } : { DATA_DIR: settings.dataDir };
}

const log = (line: string) => console.log(line);

/** Creates the PostgreSQL database named by the URL when the server does not have it yet. */
async function ensurePostgresDatabase(url: string): Promise<void> {
  const probe = new pg.Client({ connectionString: url });
  try {
    await probe.connect();
    await probe.end();
    return;
  } catch (error) {
    await probe.end().catch(() => {});
    if ((error as { code?: string }).code !== '3D000') throw error;
  }
  const target = new URL(url);
  const name = decodeURIComponent(target.pathname.slice(1));
  const admin = new URL(url);
  admin.pathname = '/postgres';
  const client = new pg.Client({ connectionString: admin.toString() });
  await client.connect();
  try {
    await client.query(`CREATE DATABASE "${name.replaceAll('"', '""')}"`);
    log(`created database ${name}`);
  } finally {
    await client.end();
  }
}

/** A database with PACKAGES listed packages and planner statistics; returns the engine's version string. */
async function prepare(engine: Engine): Promise<string> {
  const env = engineEnv(engine);
  if (engine === 'postgresql') await ensurePostgresDatabase(settings.postgresUrl as string);
  const status = async () =>
    JSON.parse(await runScript('bench/prepare.ts', ['count'], env)) as {
      listed: number;
      analyzed: boolean;
      version: string;
    };
  let state = await status();
  if (state.listed < PACKAGES) {
    log(`${ENGINE_NAMES[engine]}: ${state.listed} listed packages, seeding ${PACKAGES} (once; reused by later runs)`);
    const reset = state.listed > 0 ? ['--reset'] : [];
    await runCommand('npm', ['run', '--silent', 'db:seed', '--', '--packages', String(PACKAGES), ...reset], env);
    state = await status();
    if (state.listed < PACKAGES) throw new Error(`${engine}: only ${state.listed} packages listed after seeding`);
  }
  if (!state.analyzed) {
    log(`${ENGINE_NAMES[engine]}: VACUUM ANALYZE (no planner statistics yet)`);
    await runScript('bench/prepare.ts', ['analyze'], env);
  }
  log(`${ENGINE_NAMES[engine]}: ${state.listed.toLocaleString('en')} listed packages`);
  return state.version.replace(/ on .*$/, '');
}

async function get(url: string, request: Request): Promise<string> {
  const response = await fetch(url + request.path, {
    method: request.method,
    headers: request.headers,
    ...(request.body === undefined ? {} : { body: request.body }),
  });
  const body = await response.text();
  const expected = request.notModified ? response.status === 304 : response.ok;
  if (!expected || !request.verify(body)) {
    throw new Error(`${request.method} ${request.path}: unexpected answer ${response.status} ${body.slice(0, 300)}`);
  }
  return body;
}

/** The v2 page with the links' origin removed: the floor and the product listen on different ports. */
function comparablePage(body: string): string {
  const page = JSON.parse(body) as { next: string | null; previous: string | null };
  const path = (link: string | null) => (link === null ? null : link.replace(/^https?:\/\/[^/]+/, ''));
  return JSON.stringify({ ...page, next: path(page.next), previous: path(page.previous) });
}

function firstDifference(a: string, b: string): string {
  let i = 0;
  while (i < a.length && a[i] === b[i]) i++;
  return `at ${i}:\n  product: ${a.slice(Math.max(0, i - 80), i + 80)}\n  floor:   ${b.slice(Math.max(0, i - 80), i + 80)}`;
}

/** Warm-up, then one measured run, with statements per request and the server's peak memory. */
async function measure(
  target: ServerProcess,
  { id, label, request }: { id: Row['id']; label: string; request: Request },
  database: DatabaseCpu | undefined,
): Promise<Row> {
  await get(target.url, request);
  await load(target.url, request, settings.connections, settings.warmup);
  const before = await settled(target.url);
  const cpuBefore = cpuMs(target.pid);
  await database?.start();
  const memory = sampleRss(target.pid);
  const result = await load(target.url, request, settings.connections, settings.duration);
  const peakRssMb = memory.stop();
  const after = await settled(target.url);
  const cpu = cpuMs(target.pid) - cpuBefore;
  const databaseMs = await database?.stop();
  const row: Row = {
    id,
    label,
    requestsPerSecond: result.requestsPerSecond,
    p50: result.p50,
    p99: result.p99,
    errors: result.errors,
    statementsPerRequest: result.sent > 0 ? (after - before) / result.sent : 0,
    cpuMsPerRequest: result.sent > 0 ? cpu / result.sent : 0,
    databaseCpuMsPerRequest: databaseMs === undefined || result.sent === 0 ? undefined : databaseMs / result.sent,
    peakRssMb,
  };
  log(
    `  ${label.padEnd(40)} ${row.requestsPerSecond.toFixed(1).padStart(8)} req/s  p50 ${row.p50.toFixed(0).padStart(5)} ms  p99 ${row.p99.toFixed(0).padStart(5)} ms  errors ${row.errors}  SQL/req ${row.statementsPerRequest.toFixed(2)}  CPU/req ${row.cpuMsPerRequest.toFixed(1)} ms${row.databaseCpuMsPerRequest === undefined ? '' : ` + DB ${row.databaseCpuMsPerRequest.toFixed(1)} ms`}  RSS ${row.peakRssMb.toFixed(0)} MB`,
  );
  return row;
}

const serverEnv = (engine: Engine) => ({
  ...engineEnv(engine),
  LOG_LEVEL: 'warn',
  SEED_PACKAGES: '0',
  RATE_LIMIT: '0',
});

/** SQL statements of one request, nothing else running. */
async function statementsOf(server: ServerProcess, request: Request): Promise<number> {
  const before = await statementsSoFar(server.url);
  await get(server.url, request);
  return (await statementsSoFar(server.url)) - before;
}

async function benchEngine(
  engine: Engine,
  version: string,
  floor: ServerProcess | undefined,
  database: DatabaseCpu | undefined,
): Promise<EngineRun> {
  log(`\n== ${ENGINE_NAMES[engine]} (${version})`);
  // The compiled server, as `npm start` runs it (built at the start of the bench).
  const port = await freePort();
  const server = await startProcess(
    'dist/server.js',
    // Uncached: the targets are on pages made per request; the cached scenarios get a server of their own.
    { ...serverEnv(engine), RESPONSE_CACHE_BYTES: '0', PORT: String(port) },
    `http://127.0.0.1:${port}`,
    settings.nodeArgs,
  );
  const rows: Row[] = [];
  const floorRows: Row[] = [];
  const floorRun = async (when: string) => {
    if (!floor || !chosen('floor')) return;
    const label = `floor: one SQL statement, ${when}`;
    const row = await measure(floor, { id: 'floor', label, request: FLOOR_REQUEST }, database);
    floorRows.push(row);
    rows.push(row);
  };
  // PGlite works inside the server process: its CPU is in the server's.
  const serverDatabase = engine === 'postgresql' ? database : undefined;
  const statementsBySize = [];
  let highWater: number;
  try {
    const firstPage = await get(server.url, restPage(0));
    const packageId = (JSON.parse(firstPage) as { results: { identifier: string }[] }).results[0]?.identifier;
    if (!packageId) throw new Error('the first page is empty');

    if (floor) {
      const product = comparablePage(firstPage);
      const floorPage = comparablePage(await get(floor.url, FLOOR_REQUEST));
      if (product === floorPage) {
        log(`  the floor serves the same page as the product (${PAGE} records, compared after JSON.parse)`);
      } else if (engine === 'postgresql') {
        throw new Error(`the floor's page differs from the product's ${firstDifference(product, floorPage)}`);
      } else {
        log(`  note: the floor's page (PostgreSQL) differs from this engine's ${firstDifference(product, floorPage)}`);
      }
    }

    // The one-time read of a filter's matching positions: the first request for it (later ones reuse them).
    for (const [name, filter] of [
      ['~10%', FILTER_10],
      ['~90%', FILTER_90],
    ] as const) {
      const started = performance.now();
      await get(server.url, cardsRequest(filter));
      const first = performance.now() - started;
      const again = performance.now();
      await get(server.url, cardsRequest(filter));
      log(
        `  filter matching ${name}: first page ${first.toFixed(1)} ms (reads the matching positions), the next ${(performance.now() - again).toFixed(1)} ms`,
      );
    }

    for (const size of PAGE_SIZES) {
      statementsBySize.push({
        size,
        rest: await statementsOf(server, restPage(0, size)),
        graphql: await statementsOf(server, graphqlRequest(FULL_PAGE_QUERY, { limit: size, seed: SEED }, 'FullPage')),
      });
    }

    await floorRun('before');
    for (const scenario of scenarios(packageId).filter((s) => chosen(s.id))) {
      rows.push(await measure(server, scenario, serverDatabase));
    }
    highWater = highWaterMb(server.pid);
  } finally {
    await server.stop();
  }
  // The cached scenarios get servers of their own once this one has stopped: an embedded data directory serves
  // one instance at a time (and so the Redis scenario, two instances at once, runs on PostgreSQL only).
  rows.push(
    ...(await cachedRows({
      env: serverEnv(engine),
      nodeArgs: settings.nodeArgs,
      redisUrl: engine === 'postgresql' ? settings.redisUrl : undefined,
      chosen,
      measure: (target: ServerProcess, scenario: Scenario) => measure(target, scenario, serverDatabase),
      log,
    })),
  );
  await floorRun('after');

  const floorRps =
    floorRows.length > 0
      ? floorRows.reduce((sum, row) => sum + row.requestsPerSecond, 0) / floorRows.length
      : undefined;
  return { engine, version, rows, floorRps, statementsBySize, highWaterMb: highWater };
}

async function main(): Promise<void> {
  const started = Date.now();
  const date = new Date();
  await runCommand('npm', ['run', '--silent', 'build'], {}); // the server runs compiled, as `npm start` does
  const engines = chosenEngines();
  const machineText = machine();
  log(
    `bench: ${engines.map((e) => ENGINE_NAMES[e]).join(' and ')}; ${settings.connections} connections, ${settings.duration} s per scenario after ${settings.warmup} s warm-up`,
  );
  log(
    settings.postgresUrl
      ? 'floor: bench/floor.ts on BENCH_DATABASE_URL, measured before and after each engine'
      : 'floor: none (it is PostgreSQL-only: set BENCH_DATABASE_URL); ratios are n/a',
  );

  // The floor reads PostgreSQL, so that database is prepared even when only PGlite is benchmarked.
  const engineVersions = new Map<Engine, string>();
  const postgresVersion = settings.postgresUrl ? await prepare('postgresql') : undefined;
  for (const engine of engines) {
    engineVersions.set(engine, engine === 'postgresql' ? (postgresVersion as string) : await prepare(engine));
  }

  const floor = settings.postgresUrl
    ? await startProcess('bench/floor.ts', { BENCH_DATABASE_URL: settings.postgresUrl }, /floor: (http:\/\/[^/\s]+)\//)
    : undefined;
  const database = settings.postgresUrl ? await databaseCpu(settings.postgresUrl) : undefined;
  const runs: EngineRun[] = [];
  try {
    for (const engine of engines) {
      runs.push(await benchEngine(engine, engineVersions.get(engine) as string, floor, database));
    }
  } finally {
    await database?.close();
    await floor?.stop();
  }

  const notes = [
    'Databases are prepared with `npm run db:seed -- --packages 100000` and then `VACUUM ANALYZE` (bench/prepare.ts), the state autovacuum reaches by itself on a normally configured server.',
  ];
  if (postgresVersion && !engineVersions.has('postgresql')) {
    notes.push(`The floor ran on ${postgresVersion}.`);
  }
  const section = runSection(
    {
      date,
      commit: commit(),
      connections: settings.connections,
      duration: settings.duration,
      warmup: settings.warmup,
      packages: PACKAGES,
      machine: machineText,
      versions: versions(
        postgresVersion ? new Map([['postgresql', postgresVersion], ...engineVersions]) : engineVersions,
      ),
      runtimeSeconds: (Date.now() - started) / 1000,
      notes,
    },
    runs,
  );
  log(`\n${section}\n`);
  if (settings.scenarios || settings.nodeArgs.length > 0) {
    log('results.md not written (BENCH_SCENARIOS or BENCH_NODE_ARGS make this a partial or profiled run)');
  } else {
    log(`written to ${writeResults(join(ROOT, 'bench'), section)}`);
  }
}

await main().catch((error: Error) => {
  console.error(`bench: ${error.message}`);
  process.exit(1);
});
