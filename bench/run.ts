// `npm run bench`: the product under load beside a raw-SQL floor, on PGlite and (with BENCH_DATABASE_URL) on
// PostgreSQL. For each engine: prepare a database of 100,000 listed packages (reused when already there),
// start the server as its own process, and drive each scenario over loopback with autocannon at a fixed
// concurrency and duration; on PostgreSQL, PostGraphile and the limits (bench/limits.ts) too; print the table
// and put it at the top of bench/results.md.
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
//                       graphql-cards-24, graphql-facets-24, graphql-categories, graphql-search,
//                       graphql-search-prefix, rest-br, graphiql, pg-slim, pg-full, limit-slim, limit-kept, and with
//                       the cache on: rest-cached, rest-cached-br, rest-304, graphql-cached, rest-redis); results.md
//                       is not written
//   BENCH_REDIS_URL     Redis for the shared-cache scenario (default redis://127.0.0.1:6379; empty: skipped)
//   BENCH_NODE_ARGS     extra node options for the server, e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof";
//                       results.md is not written (a profiled server is slower)
//   BENCH_BASELINE      a git ref (e.g. a commit): that commit is built outside the repository (bench/builds.ts)
//                       and served beside the current build on the same database and settings (PostgreSQL only);
//                       each product row is measured on the baseline, then on the current build. The table goes
//                       to bench/baseline-<short hash>.md; results.md is not written
import { join } from 'node:path';
import { type Build, chosenBuilds, resolveBaseline, startBuild } from './builds.js';
import { cachedRows } from './cached.js';
import { prepareDatabase } from './databases.js';
import { embeddedStart } from './embedded.js';
import { commit, machine, versions } from './environment.js';
import {
  type DatabaseCpu,
  databaseCpu,
  highWaterMb,
  ROOT,
  runCommand,
  type ServerProcess,
  startProcess,
} from './harness.js';
import { limitScenarios, startLimits } from './limits.js';
import { comparablePage, firstDifference, get, measure as measureOn, statementsOf } from './measure.js';
import { postgraphileScenarios, startPostGraphile } from './postgraphile.js';
import {
  ENGINE_NAMES,
  type Engine,
  type EngineRun,
  type Row,
  runSection,
  writeBaselineResults,
  writeResults,
} from './report.js';
import {
  BENCH_KEY_ENTRY,
  cardsRequest,
  FILTER_10,
  FILTER_90,
  FLOOR_REQUEST,
  fullPageRequest,
  PAGE,
  restPage,
  type Scenario,
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
  // The server runs with npm start's node options (see package.json), then these.
  extraNodeArgs: process.env.BENCH_NODE_ARGS?.split(/\s+/).filter(Boolean) ?? [],
  profiled: Boolean(process.env.BENCH_NODE_ARGS),
  baselineRef: process.env.BENCH_BASELINE || undefined,
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
/** One scenario on a target; on a build's server (or its hit limit), the row is labelled with the build. */
const measure = async (
  target: ServerProcess,
  scenario: Pick<Row, 'id' | 'label'> & { request: Scenario['request'] },
  database: DatabaseCpu | undefined,
  build?: Build,
): Promise<Row> => {
  const labelled = build ? { ...scenario, label: scenario.label + build.tag } : scenario;
  const row = await measureOn(settings, log, target, labelled, database);
  return build ? { ...row, build: build.role } : row;
};

const serverEnv = (engine: Engine) => ({
  ...engineEnv(engine),
  LOG_LEVEL: 'warn',
  SEED_PACKAGES: '0',
  RATE_LIMIT: '0',
  // A key of the private scope: the full page holds every field, as PostGraphile's does.
  API_KEYS: BENCH_KEY_ENTRY,
});

/** Before the load: a build's first page (against the floor's), its filters' first pages, statements by size. */
async function checkServer(engine: Engine, server: ServerProcess, floor: ServerProcess | undefined, tag: string) {
  const firstPage = await get(server.url, restPage(0));
  const packageId = (JSON.parse(firstPage) as { results: { identifier: string }[] }).results[0]?.identifier;
  if (!packageId) throw new Error(`the first page is empty${tag}`);

  if (floor) {
    const product = comparablePage(firstPage);
    const floorPage = comparablePage(await get(floor.url, FLOOR_REQUEST));
    if (product === floorPage) {
      log(`  the floor serves the same page as the product${tag} (${PAGE} records, compared after JSON.parse)`);
    } else if (engine === 'postgresql') {
      throw new Error(`the floor's page differs from the product's${tag} ${firstDifference(product, floorPage)}`);
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
      `  filter matching ${name}${tag}: first page ${first.toFixed(1)} ms (finds the matches once per version), the next ${(performance.now() - again).toFixed(1)} ms`,
    );
  }

  const statementsBySize: EngineRun['statementsBySize'] = [];
  for (const size of PAGE_SIZES) {
    statementsBySize.push({
      size,
      rest: await statementsOf(server, restPage(0, size)),
      graphql: await statementsOf(server, fullPageRequest(size)),
    });
  }
  return { packageId, statementsBySize };
}

async function benchEngine(
  engine: Engine,
  version: string,
  floor: ServerProcess | undefined,
  database: DatabaseCpu | undefined,
  builds: Build[],
): Promise<EngineRun> {
  log(`\n== ${ENGINE_NAMES[engine]} (${version})`);
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
  // Each build's compiled server, as `npm start` runs it, all of them up at once on the same database; uncached:
  // the targets are on pages made per request (the cached scenarios get servers of their own).
  const served: { build: Build; server: ServerProcess; statementsBySize: EngineRun['statementsBySize'] }[] = [];
  const highWater = new Map<Build, number>();
  try {
    for (const build of builds) {
      const server = await startBuild(build, { ...serverEnv(engine), RESPONSE_CACHE_BYTES: '0' });
      served.push({ build, server, statementsBySize: [] });
    }
    let packageId = '';
    for (const each of served) {
      const checked = await checkServer(engine, each.server, floor, each.build.tag);
      packageId = checked.packageId;
      each.statementsBySize = checked.statementsBySize;
    }

    await floorRun('before');
    for (const scenario of scenarios(packageId).filter((s) => chosen(s.id))) {
      for (const { build, server } of served) rows.push(await measure(server, scenario, serverDatabase, build));
    }
    for (const { build, server } of served) highWater.set(build, highWaterMb(server.pid));
  } finally {
    await Promise.all(served.map(({ server }) => server.stop()));
  }
  // PostGraphile on the same database, in the same run: what the product's slim and full pages compare with.
  const postgraphile =
    engine === 'postgresql' && settings.postgresUrl ? await startPostGraphile(settings.postgresUrl, log) : undefined;
  try {
    for (const scenario of postgraphile ? postgraphileScenarios().filter((s) => chosen(s.id)) : []) {
      rows.push(await measure(postgraphile as ServerProcess, scenario, serverDatabase));
    }
  } finally {
    await postgraphile?.stop();
  }
  // The limits on the same database: the slim page and the v2 page with nothing but their bytes on the path.
  const limits =
    engine === 'postgresql' && settings.postgresUrl && (chosen('limit-slim') || chosen('limit-kept'))
      ? await startLimits(settings.postgresUrl, log)
      : undefined;
  try {
    for (const [target, scenario] of limits ? limitScenarios(limits).filter(([, s]) => chosen(s.id)) : []) {
      rows.push(await measure(target, scenario, serverDatabase));
    }
  } finally {
    await limits?.stop();
  }
  // The cached scenarios get servers of their own once this one has stopped: an embedded data directory serves
  // one instance at a time (and so the Redis scenario, two instances at once, runs on PostgreSQL only).
  rows.push(
    ...(await cachedRows({
      env: serverEnv(engine),
      builds,
      redisUrl: engine === 'postgresql' ? settings.redisUrl : undefined,
      chosen,
      measure: (target: ServerProcess, scenario: Scenario, build?: Build) =>
        measure(target, scenario, serverDatabase, build),
      log,
    })),
  );
  await floorRun('after');

  const floorRps =
    floorRows.length > 0
      ? floorRows.reduce((sum, row) => sum + row.requestsPerSecond, 0) / floorRows.length
      : undefined;
  // The embedded default as `npm start` brings it up: a new data directory, the demo data loaded.
  const current = served.find(({ build }) => build.role === 'current');
  const embedded =
    engine === 'pglite' && current && chosen('embedded-start')
      ? await embeddedStart(current.build.nodeArgs, log)
      : undefined;
  const baseline = served.find(({ build }) => build.role === 'baseline');
  return {
    engine,
    version,
    rows,
    floorRps,
    statementsBySize: current?.statementsBySize ?? [],
    highWaterMb: current ? (highWater.get(current.build) ?? 0) : 0,
    embedded,
    baseline: baseline && {
      name: baseline.build.name,
      statementsBySize: baseline.statementsBySize,
      highWaterMb: highWater.get(baseline.build) ?? 0,
    },
  };
}

async function main(): Promise<void> {
  const started = Date.now();
  const date = new Date();
  const baseline = settings.baselineRef ? resolveBaseline(settings.baselineRef) : undefined;
  const engines = chosenEngines();
  await runCommand('npm', ['run', '--silent', 'build'], {}); // the server runs compiled, as `npm start` does
  const builds = await chosenBuilds(baseline, settings.extraNodeArgs, log);
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
  const prepare = (engine: Engine) => prepareDatabase(engine, engineEnv(engine), PACKAGES, log);
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
      // An embedded data directory serves one process at a time: the baseline is served on PostgreSQL only.
      const served = engine === 'postgresql' ? builds : builds.filter((build) => build.role === 'current');
      if (served.length < builds.length) log(`\n${ENGINE_NAMES[engine]}: the current build only (no baseline)`);
      runs.push(await benchEngine(engine, engineVersions.get(engine) as string, floor, database, served));
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
  if (baseline) {
    const dir = builds.find((build) => build.role === 'baseline')?.dir;
    notes.push(
      `Baseline: ${baseline.short} (${baseline.subject}), built in ${dir}. On PostgreSQL its server and the current build's run side by side on the same database and settings, and each product row (and each hit limit) is measured on the baseline, then on the current build; the rows of the floor, PostGraphile and the limits are shared. The targets show both builds.`,
    );
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
  if (baseline) log(`written to ${writeBaselineResults(join(ROOT, 'bench'), baseline.short, section)}`);
  if (settings.scenarios || settings.profiled || baseline) {
    log(
      'results.md not written (BENCH_SCENARIOS, BENCH_NODE_ARGS or BENCH_BASELINE: a partial, profiled or compared run)',
    );
  } else {
    log(`written to ${writeResults(join(ROOT, 'bench'), section)}`);
  }
}

await main().catch((error: Error) => {
  console.error(`bench: ${error.message}`);
  process.exit(1);
});
