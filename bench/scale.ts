// `npm run bench:scale`: the same paths at several listing sizes on PostgreSQL, to show what grows with the listing
// and what does not (not part of the suite). For each size: the import into an empty database (time, rate, the
// read model's build, the database's size), then a server on it: the first request of each path after the start
// and after a small import, each path under load (req/s, CPU per request of the server and of PostgreSQL), and
// the server's memory. The sizes are served at once and each path measured on each in turn (bench/scale/serve.ts).
// Figures go to bench/scale.json; `--docs` writes the table and chart into docs/benchmarks.md from it.
//
//   npm run bench:scale                       10,000, 100,000 and 1,000,000 packages (about an hour)
//   BENCH_SCALE_SIZES=10000 npm run bench:scale -- --steps=serve    serve again what was imported before
//   npm run bench:scale -- --check            10,000 against 40,000, in a scratch record: fails (exit 1) on a
//                                             first request over 250 ms or a path costing 1.25x more at 40,000
//                                             on two tries (the second only when the first missed)
//                                             (memory is in the full run's targets only: too noisy for CI)
//
//   BENCH_SCALE_DATABASE  PostgreSQL server URL; each size gets its database scale_<size> (default
//                         postgresql://postgres@127.0.0.1:5432)
//   BENCH_SCALE_PAGES     where the generated v2 pages are kept, a directory per size (default <tmp>/scale-pages)
//   BENCH_SCALE_SIZES     sizes, comma-separated; BENCH_CONNECTIONS (8), BENCH_DURATION (5), BENCH_WARMUP (2),
//                         BENCH_ROUNDS (2: the cheapest of each path's rounds on each size is kept)
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { commit, machine } from './environment.js';
import { dropDatabase, emptyDatabase, importPages, vacuum } from './scale/import.js';
import { bestOf, readScaleRecord, SCALE_FILE, saveSize } from './scale/record.js';
import { flatnessProblems, writeScaleDocs } from './scale/report.js';
import { serveSizes } from './scale/serve.js';
import { writeV2Pages } from './scale/v2-pages.js';

const { values } = parseArgs({
  options: {
    check: { type: 'boolean', default: false },
    docs: { type: 'boolean', default: false },
    steps: { type: 'string', default: 'import,serve' },
  },
});
const steps = new Set(values.steps.split(','));
const envInt = (name: string, fallback: number) => Number(process.env[name] || fallback);
const sizes = (process.env.BENCH_SCALE_SIZES ?? (values.check ? '10000,40000' : '10000,100000,1000000'))
  .split(',')
  .map(Number);
const server = process.env.BENCH_SCALE_DATABASE ?? 'postgresql://postgres@127.0.0.1:5432';
const pagesRoot = process.env.BENCH_SCALE_PAGES ?? join(tmpdir(), 'scale-pages');
const settings = {
  connections: envInt('BENCH_CONNECTIONS', 8),
  duration: envInt('BENCH_DURATION', values.check ? 4 : 5),
  warmup: envInt('BENCH_WARMUP', 2),
  rounds: envInt('BENCH_ROUNDS', 2),
};
// The check keeps its figures apart: bench/scale.json holds the full run's.
const file = values.check ? new URL(`file://${join(tmpdir(), `scale-check-${process.pid}.json`)}`) : SCALE_FILE;
const log = (line: string) => console.error(line);
// The check's databases are its own (and dropped at its end): a full run's stay for later `--steps=serve` runs.
const databaseUrl = (packages: number) => `${server}/${values.check ? 'scale_check' : 'scale'}_${packages}`;

async function postgresVersion(url: string): Promise<string> {
  const { default: pg } = await import('pg');
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{ server_version: string }>('SHOW server_version');
    return `PostgreSQL ${rows[0]?.server_version.split(' ')[0]}`;
  } finally {
    await client.end();
  }
}

const base = {
  machine: machine(),
  node: process.version,
  postgres: await postgresVersion(`${server}/postgres`),
};
for (const packages of sizes) {
  log(`== ${packages.toLocaleString('en')} packages`);
  if (steps.has('import')) {
    const dir = join(pagesRoot, String(packages));
    const generated = writeV2Pages(dir, packages);
    if (generated > 0)
      log(`generated ${packages.toLocaleString('en')} packages as v2 pages in ${generated.toFixed(0)} s`);
    const importedBy = commit(); // what runs is what was built at the start, whatever is committed meanwhile
    await emptyDatabase(databaseUrl(packages));
    const figures = await importPages(databaseUrl(packages), dir, packages);
    log(
      `imported in ${figures.seconds.toFixed(1)} s (${figures.packagesPerSecond.toFixed(0)} packages/s; read model ${figures.readModelSeconds.toFixed(1)} s); database ${figures.databaseMb.toFixed(0)} MB`,
    );
    await vacuum(databaseUrl(packages));
    saveSize(
      base,
      {
        packages,
        import: {
          ...figures,
          date: new Date().toISOString(),
          commit: importedBy,
        },
      },
      file,
    );
  }
}
const serve = async () => {
  log(`== serving ${sizes.map((n) => n.toLocaleString('en')).join(', ')} packages, ${settings.rounds} rounds`);
  return serveSizes(
    sizes.map((packages) => ({ packages, databaseUrl: databaseUrl(packages) })),
    settings,
    log,
  );
};
if (steps.has('serve')) {
  const served = await serve();
  for (const [packages, figures] of served) saveSize(base, { packages, serve: figures }, file);
}

let record = readScaleRecord(file);
if (values.docs && record) log(`wrote ${writeScaleDocs(record)}`);
// The check tries twice before it fails: a first request or a cost per request is one sample of a machine that
// other work shares, and CI's has failed the 1.25x on noise alone (a slim page at 1.35x, flat on the next run).
// A cost that grows with the listing grows on both tries; each path keeps its better figures of the two.
if (values.check && record && steps.has('serve') && flatnessProblems(record, { memory: false }).length > 0) {
  for (const problem of flatnessProblems(record, { memory: false })) log(`missed on the first try: ${problem}`);
  const again = await serve();
  for (const [packages, figures] of again) {
    const first = record.sizes.find((s) => s.packages === packages)?.serve;
    saveSize(base, { packages, serve: first ? bestOf(first, figures) : figures }, file);
  }
  record = readScaleRecord(file);
}
if (values.check && record) {
  for (const packages of sizes) await dropDatabase(databaseUrl(packages));
  const problems = flatnessProblems(record, { memory: false });
  for (const problem of problems) console.error(`FAIL ${problem}`);
  if (problems.length > 0) process.exit(1);
  console.error(`scale check passed: ${sizes.join(' and ')} packages`);
}
