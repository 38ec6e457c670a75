// The bench's output: one markdown section per run (tables per engine, the targets, machine and versions),
// printed and put at the top of bench/results.md above the earlier runs.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { EmbeddedStart } from './embedded.js';
import type { CachedId, ScenarioId } from './scenarios.js';

export type Engine = 'postgresql' | 'pglite';

export interface Row {
  id: ScenarioId | 'floor';
  label: string;
  requestsPerSecond: number;
  p50: number;
  p99: number;
  errors: number;
  statementsPerRequest: number;
  /** CPU time of the serving process (user + system) per request sent, ms. */
  cpuMsPerRequest: number;
  /** CPU time of the PostgreSQL backends per request sent, ms; undefined on PGlite (it is in the server's). */
  databaseCpuMsPerRequest: number | undefined;
  peakRssMb: number;
  /** The serving process's resident memory after the scenario's warm-up, before its measured run, MB. */
  rssAfterWarmupMb: number;
  /** The build a product row (or its hit limit) was measured on; unset on the floor's, PostGraphile's, the limits'. */
  build?: 'current' | 'baseline';
}

export interface EngineRun {
  engine: Engine;
  version: string;
  rows: Row[];
  /** Mean req/s of the floor runs measured in this engine's section; undefined when there is no floor. */
  floorRps: number | undefined;
  /** Statements of one request by page size, for the REST page and the every-field GraphQL page. */
  statementsBySize: { size: number; rest: number; graphql: number }[];
  /** The server's lifetime peak resident memory (VmHWM), MB. */
  highWaterMb: number;
  /** The embedded default's memory on a new data directory (PGlite only). */
  embedded?: EmbeddedStart | undefined;
  /** The baseline build served beside the current one (BENCH_BASELINE): its name and its own figures. */
  baseline?: { name: string; statementsBySize: EngineRun['statementsBySize']; highWaterMb: number } | undefined;
}

export interface RunInfo {
  date: Date;
  commit: string;
  connections: number;
  duration: number;
  warmup: number;
  packages: number;
  machine: string;
  versions: string;
  runtimeSeconds: number;
  notes: string[];
}

export const ENGINE_NAMES: Record<Engine, string> = { postgresql: 'PostgreSQL', pglite: 'PGlite (embedded)' };

const fixed = (value: number, digits: number) =>
  value.toLocaleString('en', { minimumFractionDigits: digits, maximumFractionDigits: digits });
const percent = (ratio: number) => `${Math.round(ratio * 100)}%`;

/** CPU ms: three decimals under one ms (a cache hit costs a tenth of one), else one. */
const cpuText = (ms: number) => fixed(ms, ms < 1 ? 3 : 1);

function rowLine(row: Row, floorRps: number | undefined): string {
  // The floor rows too, against their mean: how far the machine drifted during the section.
  const ratio = floorRps === undefined ? 'n/a' : percent(row.requestsPerSecond / floorRps);
  const cells = [
    row.label,
    fixed(row.requestsPerSecond, 1),
    ratio,
    fixed(row.p50, 0),
    fixed(row.p99, 0),
    String(row.errors),
    fixed(row.statementsPerRequest, 2),
    cpuText(row.cpuMsPerRequest),
    row.databaseCpuMsPerRequest === undefined ? 'in server' : cpuText(row.databaseCpuMsPerRequest),
    fixed(row.peakRssMb, 0),
  ];
  return `| ${cells.join(' | ')} |`;
}

function engineSection(run: EngineRun): string {
  const floorNote =
    run.floorRps === undefined
      ? 'No floor in this run (it needs BENCH_DATABASE_URL): ratios are n/a.'
      : run.engine === 'pglite'
        ? `"vs floor" is against the PostgreSQL floor measured in this section (PGlite runs inside the server process, so no \`pg\` handler can reach it; the floor stands for what this machine can serve for this page, and a same-run ratio cancels the machine's drift): ${fixed(run.floorRps, 1)} req/s.`
        : `"vs floor" is against the mean of the two floor runs (before and after the scenarios): ${fixed(run.floorRps, 1)} req/s.`;
  const sizes = run.statementsBySize;
  const bySize = (of: EngineRun['statementsBySize']) =>
    `REST v2 ${of.map((s) => s.rest).join(' / ')}, GraphQL every field ${of.map((s) => s.graphql).join(' / ')}`;
  const baseline = run.baseline;
  return [
    `### ${ENGINE_NAMES[run.engine]}`,
    '',
    `${run.version}.`,
    '',
    '| scenario | req/s | vs floor | p50 ms | p99 ms | errors | SQL/req | CPU ms/req | DB CPU ms/req | peak RSS MB |',
    '|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|',
    ...run.rows.map((row) => rowLine(row, run.floorRps)),
    '',
    floorNote,
    `SQL statements of one request by page size (limit ${sizes.map((s) => s.size).join(' / ')}): ${bySize(sizes)}${baseline ? `; ${baseline.name}: ${bySize(baseline.statementsBySize)}` : ''}.`,
    `CPU ms/req and peak RSS are the serving process's: the product server's (on PGlite including the database, which runs inside it), or on the floor rows the floor's. DB CPU ms/req is the PostgreSQL backends' serving the bench database. CPU per request drifts much less than req/s when neighbours load the machine. The server's lifetime peak RSS (VmHWM) was ${fixed(run.highWaterMb, 0)} MB${baseline ? ` (${baseline.name}: ${fixed(baseline.highWaterMb, 0)} MB)` : ''}.`,
  ].join('\n');
}

interface Verdict {
  target: string;
  /** One value per column. */
  values: { text: string; met: boolean | undefined }[];
}

/** A column of the targets: an engine's run, or with a baseline, each build's part of it (the shared rows in both). */
interface Column {
  title: string;
  run: EngineRun;
}

function columns(runs: EngineRun[]): Column[] {
  return runs.flatMap((run) => {
    const title = ENGINE_NAMES[run.engine];
    if (!run.baseline) return [{ title, run }];
    const of = (build: Row['build']) => run.rows.filter((row) => row.build === undefined || row.build === build);
    const { name, statementsBySize, highWaterMb } = run.baseline;
    return [
      { title: `${title} (${name})`, run: { ...run, rows: of('baseline'), statementsBySize, highWaterMb } },
      { title: `${title} (current)`, run: { ...run, rows: of('current') } },
    ];
  });
}

const find = (run: EngineRun, id: Row['id']) => run.rows.find((row) => row.id === id);

function verdicts(runs: EngineRun[], connections: number): Verdict[] {
  const check = (
    target: string,
    measure: (run: EngineRun) => { text: string; met: boolean | undefined } | undefined,
  ): Verdict => ({
    target,
    values: runs.map((run) => measure(run) ?? { text: 'n/a', met: undefined }),
  });
  const ratioToFloor = (id: ScenarioId, minimum: number) => (run: EngineRun) => {
    const row = find(run, id);
    if (!row || run.floorRps === undefined) return undefined;
    const ratio = row.requestsPerSecond / run.floorRps;
    return { text: percent(ratio), met: ratio >= minimum };
  };
  /** Requests/s of one scenario against another's in the same run. */
  const ratioOf = (id: ScenarioId, ofId: ScenarioId, minimum: number) => (run: EngineRun) => {
    const row = find(run, id);
    const of = find(run, ofId);
    if (!row || !of) return undefined;
    const ratio = row.requestsPerSecond / of.requestsPerSecond;
    return { text: percent(ratio), met: ratio >= minimum };
  };
  const pageIds: ScenarioId[] = ['rest-first', 'rest-deep', 'graphql-full', 'graphql-slim'];
  /** An embedded page against the PostgreSQL floor of the same run (the embedded engine has none of its own). */
  const embeddedToFloor = (id: ScenarioId, minimum: number) => (run: EngineRun) => {
    const floorRps = runs.find((other) => other.engine === 'postgresql')?.floorRps;
    const row = find(run, id);
    if (run.engine !== 'pglite' || !row || floorRps === undefined) return undefined;
    const ratio = row.requestsPerSecond / floorRps;
    return { text: percent(ratio), met: ratio >= minimum };
  };
  /** CPU per request, the server's and the database's. */
  const cpuOf = (row: Row) => row.cpuMsPerRequest + (row.databaseCpuMsPerRequest ?? 0);
  const products = (run: EngineRun) =>
    run.rows.filter((row) => row.id !== 'floor' && !row.id.startsWith('pg-') && !row.id.startsWith('limit-'));
  /** The largest of a measure over the product's rows, with the row it was found on. */
  const largest = (run: EngineRun, measure: (row: Row) => number) => {
    const rows = products(run);
    if (rows.length === 0) return undefined;
    const worst = rows.reduce((a, b) => (measure(b) > measure(a) ? b : a));
    return { value: measure(worst), row: worst };
  };
  const hitShare = (id: CachedId) => (run: EngineRun) => {
    const row = find(run, id);
    const limit = find(run, `limit-hit-${id}`);
    if (!row || !limit) return undefined;
    return `${percent(row.requestsPerSecond / limit.requestsPerSecond)} (${fixed(cpuOf(row), 3)} against ${fixed(cpuOf(limit), 3)} ms)`;
  };
  return [
    check("Slim page of 50 (id, title, price): >= 1.5x PostGraphile's req/s", ratioOf('graphql-slim', 'pg-slim', 1.5)),
    check(
      'Slim page of 50: >= 60% of its bare limit (node:http, pg, JSON.stringify) req/s',
      ratioOf('graphql-slim', 'limit-slim', 0.6),
    ),
    check("Slim page of 50: CPU (server + database) <= 2x its bare limit's", (run) => {
      const row = find(run, 'graphql-slim');
      const limit = find(run, 'limit-slim');
      if (!row || !limit) return undefined;
      const ratio = cpuOf(row) / cpuOf(limit);
      return {
        text: `${fixed(ratio, 2)}x (${fixed(cpuOf(row), 2)} against ${fixed(cpuOf(limit), 2)} ms)`,
        met: ratio <= 2,
      };
    }),
    check("Full page of 50, every field: >= 2.5x PostGraphile's req/s", ratioOf('graphql-full', 'pg-full', 2.5)),
    check('Full page of 50: >= 80% of the v2 page req/s (the same data)', ratioOf('graphql-full', 'rest-first', 0.8)),
    check(
      'REST v2 page of 50, uncached: >= 90% of the kept-records limit req/s',
      ratioOf('rest-first', 'limit-kept', 0.9),
    ),
    check('REST v2 page of 50, uncached: >= 1.5x the floor req/s', ratioToFloor('rest-first', 1.5)),
    check('Embedded full page: >= 1x the PostgreSQL floor req/s', embeddedToFloor('graphql-full', 1)),
    check('Embedded v2 page: >= 1x the PostgreSQL floor req/s', embeddedToFloor('rest-first', 1)),
    check('A cache hit (24 cards, GET): >= 50% of its hit limit req/s, and >= 4,000 req/s', (run) => {
      const row = find(run, 'graphql-cached');
      const limit = find(run, 'limit-hit-graphql-cached');
      if (!row || !limit) return undefined;
      const ratio = row.requestsPerSecond / limit.requestsPerSecond;
      return {
        text: `${percent(ratio)}, ${fixed(row.requestsPerSecond, 0)} req/s`,
        met: ratio >= 0.5 && row.requestsPerSecond >= 4000,
      };
    }),
    check('A cache hit (24 cards): CPU (server + database) <= 0.15 ms', (run) => {
      const row = find(run, 'graphql-cached');
      return row && { text: `${fixed(cpuOf(row), 3)} ms`, met: cpuOf(row) <= 0.15 };
    }),
    check('The v2 page from the cache, of its hit limit (bytes-bound; no target)', (run) => {
      const text = hitShare('rest-cached')(run);
      return text ? { text, met: undefined } : undefined;
    }),
    check('The v2 page from the cache with brotli, of its hit limit (no target)', (run) => {
      const text = hitShare('rest-cached-br')(run);
      return text ? { text, met: undefined } : undefined;
    }),
    check('The v2 page revalidated (304), of its hit limit (no target)', (run) => {
      const text = hitShare('rest-304')(run);
      return text ? { text, met: undefined } : undefined;
    }),
    check('Server peak RSS through the bench: <= 256 MB (embedded: <= 320 MB)', (run) => {
      const peak = largest(run, (row) => row.peakRssMb);
      if (!peak) return undefined;
      const value = Math.max(peak.value, run.highWaterMb);
      const where = value > peak.value ? 'before the load' : peak.row.label;
      return { text: `${fixed(value, 0)} MB (${where})`, met: value <= (run.engine === 'pglite' ? 320 : 256) };
    }),
    check('Server RSS after warm-up: <= 200 MB', (run) => {
      const after = largest(run, (row) => row.rssAfterWarmupMb);
      return after && { text: `${fixed(after.value, 0)} MB (${after.row.label})`, met: after.value <= 200 };
    }),
    check('Embedded default just after start (new data directory, demo data): <= 400 MB', (run) =>
      run.embedded
        ? {
            text: `${fixed(run.embedded.afterStartMb, 0)} MB (${fixed(run.embedded.afterPagesMb, 0)} MB after 20 pages)`,
            met: run.embedded.afterStartMb <= 400,
          }
        : undefined,
    ),
    check(
      `A page from the cache: >= 20 times the floor req/s, p99 < 20 ms${connections === 16 ? '' : ` (run at ${connections})`}`,
      (run) => {
        const rows = (['graphql-cached', 'rest-cached'] as const).map((id) => find(run, id)).filter((row) => !!row);
        if (rows.length === 0 || run.floorRps === undefined) return undefined;
        const floorRps = run.floorRps;
        const meets = (row: Row) => row.requestsPerSecond / floorRps >= 20 && row.p99 < 20;
        const text = rows
          .map(
            (row) =>
              `${row.id === 'rest-cached' ? 'v2 page' : 'cards'} ${fixed(row.requestsPerSecond / floorRps, 1)}x, p99 ${fixed(row.p99, 0)} ms`,
          )
          .join('; ');
        return { text, met: rows.some(meets) };
      },
    ),
    check(
      '24 cards with all five facets (filter ~90%): >= 50% of the req/s without facets',
      ratioOf('graphql-facets-24', 'graphql-cards-24', 0.5),
    ),
    check('categories: >= 20x the floor req/s', ratioToFloor('graphql-categories', 20)),
    check(
      'Search as typed ("golden ho"): >= 50% of the req/s of the whole words ("golden hour")',
      ratioOf('graphql-search-prefix', 'graphql-search', 0.5),
    ),
    check('304 revalidation: at least as fast as the cached page', ratioOf('rest-304', 'rest-cached', 1)),
    // One-sided: the target guards against deep pages getting slower; a deep page measured faster is noise.
    check(
      'REST v2 offset 90,000: within 10% of the first page (req/s at least 90%)',
      ratioOf('rest-deep', 'rest-first', 0.9),
    ),
    check('SQL statements per request: the same for every page size', (run) => {
      if (run.statementsBySize.length === 0) return undefined;
      const all = run.statementsBySize.flatMap((s) => [s.rest, s.graphql]);
      const same =
        run.statementsBySize.every((s) => s.rest === run.statementsBySize[0]?.rest) &&
        run.statementsBySize.every((s) => s.graphql === run.statementsBySize[0]?.graphql);
      return { text: [...new Set(all)].join(', '), met: same };
    }),
    check('SQL statements per request: at most 2 on a page', (run) => {
      const rows = run.rows.filter((row) => (pageIds as string[]).includes(row.id) || row.id === 'graphql-one');
      if (rows.length === 0) return undefined;
      const most = Math.max(...rows.map((row) => row.statementsPerRequest));
      return { text: fixed(most, 2), met: most <= 2 };
    }),
  ];
}

function targetsSection(runs: EngineRun[], connections: number): string {
  const mark = (met: boolean | undefined) => (met === undefined ? '' : met ? ' ✅' : ' ❌');
  const shown = columns(runs);
  return [
    '### Targets',
    '',
    'The targets are defined on PostgreSQL (2 cores, uncached unless said); the PGlite column is for comparison.',
    '',
    `| target | ${shown.map((column) => column.title).join(' | ')} |`,
    `|---|${shown.map(() => '--:').join('|')}|`,
    ...verdicts(
      shown.map((column) => column.run),
      connections,
    ).map((v) => `| ${v.target} | ${v.values.map((value) => `${value.text}${mark(value.met)}`).join(' | ')} |`),
  ].join('\n');
}

export function runSection(info: RunInfo, runs: EngineRun[]): string {
  const minutes = Math.floor(info.runtimeSeconds / 60);
  const seconds = Math.round(info.runtimeSeconds % 60);
  return [
    `## ${info.date.toISOString().slice(0, 16).replace('T', ' ')} UTC, commit ${info.commit}`,
    '',
    `${info.connections} connections, ${info.duration} s per scenario after a ${info.warmup} s warm-up, seed 7, ${info.packages.toLocaleString('en')} listed packages; autocannon on loopback from the bench process, the server as its own process (\`node dist/server.js\`, LOG_LEVEL=warn). \`npm run bench\` took ${minutes} min ${seconds} s.`,
    '',
    `Machine: ${info.machine}.`,
    '',
    `Versions: ${info.versions}.`,
    ...info.notes.map((note) => `\n${note}`),
    '',
    ...runs.flatMap((run) => [engineSection(run), '']),
    targetsSection(runs, info.connections),
  ].join('\n');
}

const HEADER = `# Benchmark results

Written by \`npm run bench\` (bench/run.ts; see docs/benchmarks.md): the newest run first, earlier runs below
it. Absolute numbers drift on shared machines; compare the ratios to the floor, which is measured in the same run.
`;
const KEEP_RUNS = 10;
/** The heading of `npm run bench:storefront`'s own section (bench/storefront.ts), kept last, apart from the runs. */
export const STOREFRONT_HEADING = '## Storefront in Chromium';

/** The sections of bench/results.md: the runs, newest first, and the storefront's. */
function sections(file: string): { runs: string[]; storefront: string[] } {
  const parts = existsSync(file)
    ? readFileSync(file, 'utf8')
        .split(/^(?=## )/m)
        .filter((part) => part.startsWith('## '))
        .map((part) => part.trimEnd())
    : [];
  const isStorefront = (part: string) => part.startsWith(STOREFRONT_HEADING);
  return { runs: parts.filter((part) => !isStorefront(part)), storefront: parts.filter(isStorefront) };
}

/** Puts the run at the top of bench/results.md, keeping the latest earlier runs below it (and the storefront's). */
export function writeResults(benchDir: string, section: string): string {
  const file = join(benchDir, 'results.md');
  const { runs, storefront } = sections(file);
  writeFileSync(file, `${HEADER}\n${[section, ...runs.slice(0, KEEP_RUNS - 1), ...storefront].join('\n\n')}\n`);
  return file;
}

/** Writes a run against a baseline (BENCH_BASELINE) to bench/baseline-<short hash>.md, in place of the last one. */
export function writeBaselineResults(benchDir: string, short: string, section: string): string {
  const file = join(benchDir, `baseline-${short}.md`);
  const header = `# Benchmark against baseline ${short}\n\nWritten by \`BENCH_BASELINE=${short} npm run bench\` (bench/run.ts; see docs/benchmarks.md): the baseline and the current build measured in one run, on one database, each product row on the baseline first. Its latest run against this baseline.\n`;
  writeFileSync(file, `${header}\n${section}\n`);
  return file;
}

/** Puts the storefront's section at the end of bench/results.md in place of its last one; the runs stay as they are. */
export function writeStorefrontResults(benchDir: string, section: string): string {
  const file = join(benchDir, 'results.md');
  const { runs } = sections(file);
  writeFileSync(file, `${HEADER}\n${[...runs, section].join('\n\n')}\n`);
  return file;
}
