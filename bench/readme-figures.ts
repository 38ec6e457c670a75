// The README's performance table, made from the results files it quotes: the newest PostgreSQL run in
// bench/results.md (`npm run bench`), bench/scale.json (`npm run bench:scale`) and bench/first-start.json
// (`npm run bench:first-start`). test/docs/figures.test.ts holds the README to it, so a figure there is always one
// a reader finds in a results file.
import { readFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { firstStartFigure } from './first-start-figure.js';
import { readScaleRecord, type SizeRecord } from './scale/record.js';

const RESULTS_FILE = new URL('./results.md', import.meta.url);

/** One row of a results table: its req/s, CPU ms per request (server, database) and peak RSS. */
export interface ResultRow {
  label: string;
  requestsPerSecond: number;
  cpuMs: number;
  databaseCpuMs: number | undefined;
  peakRssMb: number;
}

export interface ResultsRun {
  /** "2026-11-28 11:02 UTC, commit 50b3a97" */
  heading: string;
  /** In the table's order: a cached row's hit limit is the row after it. */
  rows: ResultRow[];
  /** The server's lifetime peak RSS (VmHWM) on this engine, MB. */
  highWaterMb: number;
}

const number = (text: string) => Number(text.replace(/,/g, ''));

/** The newest run's PostgreSQL table in bench/results.md. */
export function newestPostgresRun(text = readFileSync(RESULTS_FILE, 'utf8')): ResultsRun {
  const run = text.split(/^## /m).find((section) => /^\d{4}-\d\d-\d\d .*commit/.test(section));
  if (!run) throw new Error('bench/results.md holds no run');
  const engine = run.split(/^### /m).find((section) => section.startsWith('PostgreSQL\n'));
  if (!engine) throw new Error(`the run of ${run.split('\n')[0]} has no PostgreSQL section`);
  const rows: ResultRow[] = [];
  for (const line of engine.split('\n')) {
    const cells = line.split('|').map((cell) => cell.trim());
    // | scenario | req/s | vs floor | p50 | p99 | errors | SQL/req | CPU | DB CPU | peak RSS |
    if (cells.length !== 12 || !/^[\d,.]+$/.test(cells[2] ?? '')) continue;
    rows.push({
      label: cells[1] as string,
      requestsPerSecond: number(cells[2] as string),
      cpuMs: number(cells[8] as string),
      databaseCpuMs: cells[9] === 'in server' ? undefined : number(cells[9] as string),
      peakRssMb: number(cells[10] as string),
    });
  }
  const highWater = /lifetime peak RSS \(VmHWM\) was ([\d,]+) MB/.exec(engine);
  return { heading: (run.split('\n')[0] as string).trim(), rows, highWaterMb: number(highWater?.[1] ?? 'NaN') };
}

const fixed = (value: number, digits: number) =>
  value.toLocaleString('en', { minimumFractionDigits: digits, maximumFractionDigits: digits });
const percent = (ratio: number) => `${Math.round(ratio * 100)}%`;
const times = (ratio: number) => `${fixed(ratio, 1)}x`;
const cpu = (row: ResultRow) =>
  row.databaseCpuMs === undefined
    ? `${row.cpuMs} ms`
    : `${fixed(row.cpuMs, row.cpuMs < 1 ? 3 : 1)} + ${fixed(row.databaseCpuMs, row.databaseCpuMs < 1 ? 3 : 1)} ms`;

function row(run: ResultsRun, label: string, after = ''): ResultRow {
  const previous = after ? run.rows.findIndex((r) => r.label === after) : -1;
  const found = after && previous < 0 ? undefined : run.rows.slice(previous + 1).find((r) => r.label === label);
  if (!found) throw new Error(`bench/results.md (${run.heading}) has no row "${label}"${after && ` after "${after}"`}`);
  return found;
}

const size = (sizes: SizeRecord[], packages: number) => sizes.find((s) => s.packages === packages);
const minutes = (seconds: number) => `${Math.round(seconds / 60)} minutes`;

/** The rows of the README's performance table (after its header), one line each. */
export function readmePerformanceRows(run = newestPostgresRun(), scale = readScaleRecord()): string[] {
  const rps = (r: ResultRow) => `${fixed(r.requestsPerSecond, 0)} req/s`;
  const v2 = row(run, 'REST v2 first page (limit 50)');
  const kept = row(run, 'kept-records limit: v2 page of 50');
  const full = row(run, 'GraphQL page of 50, every field');
  const fullPostGraphile = row(run, 'PostGraphile page of 50, every field');
  const slim = row(run, 'GraphQL page of 50, id/title/price');
  const slimPostGraphile = row(run, 'PostGraphile page of 50, id/title/price');
  const bare = row(run, 'bare limit: slim page of 50 (node:http, pg, JSON.stringify)');
  const hitLabel = 'GraphQL GET 24 cards, filter matching ~90%, from the cache';
  const hit = row(run, hitLabel);
  const hitLimit = row(run, 'hit limit: node:http writing the same answer from memory', hitLabel);
  const rows = [
    `| v2 page of 50, uncached | ${rps(v2)}, CPU ${cpu(v2)}: ${percent(v2.requestsPerSecond / kept.requestsPerSecond)} of a server that only concatenates kept records |`,
    `| GraphQL page of 50 with every field | ${rps(full)}, CPU ${cpu(full)}: ${times(full.requestsPerSecond / fullPostGraphile.requestsPerSecond)} PostGraphile on the same database (${cpu(fullPostGraphile)}) |`,
    `| GraphQL page of 50, id/title/price | ${rps(slim)}, CPU ${cpu(slim)}: ${times(slim.requestsPerSecond / slimPostGraphile.requestsPerSecond)} PostGraphile, ${percent(slim.requestsPerSecond / bare.requestsPerSecond)} of node:http + pg + JSON.stringify |`,
    `| GraphQL GET of 24 cards, a cache hit | ${rps(hit)}, CPU ${cpu(hit)}: ${percent(hit.requestsPerSecond / hitLimit.requestsPerSecond)} of node:http writing the same bytes |`,
    `| peak memory through the run | ${fixed(run.highWaterMb, 0)} MB RSS (PostGraphile's peak ${fixed(Math.max(fullPostGraphile.peakRssMb, slimPostGraphile.peakRssMb), 0)} MB) |`,
  ];
  const hundredThousand = scale && size(scale.sizes, 100_000);
  const million = scale && size(scale.sizes, 1_000_000);
  if (hundredThousand?.import) {
    const i = hundredThousand.import;
    const millionText = million?.import ? `; 1,000,000 in ${minutes(million.import.seconds)}` : '';
    rows.push(
      `| importing 100,000 packages | ${Math.round(i.seconds)} s (${Math.round(i.packagesPerSecond)} a second), the read model included${millionText} |`,
      `| database size | ${fixed(i.databaseMb, 0)} MB at 100,000 packages${million?.import ? `, ${fixed(million.import.databaseMb / 1024, 1)} GB at 1,000,000` : ''} (the tables and a read model of the same size) |`,
    );
  }
  if (hundredThousand?.serve) {
    const firsts = Object.values(hundredThousand.serve.paths).flatMap((p) => [
      p.firstAfterStartMs,
      p.firstAfterImportMs,
    ]);
    rows.push(
      `| the first request after a start or an import | ${Math.round(Math.min(...firsts))}-${Math.round(Math.max(...firsts))} ms on every path at 100,000 packages |`,
    );
  }
  rows.push(
    `| \`npm start\` on a fresh clone | ${firstStartFigure()}: 2,000 demo packages, a copy of the demo database \`npm install\` made |`,
  );
  return rows;
}

// `npx tsx bench/readme-figures.ts` prints the rows, to paste into the README after a run.
if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  console.log(readmePerformanceRows().join('\n'));
}
