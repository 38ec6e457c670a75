// `npm run import -- [--dry-run] [--follow] [--limit-pages N] [--timeout S] <source>...`: imports legacy v2 data
// into the configured database. A source is a file (v2 page, JSON array or JSON Lines of Package records), a
// directory of such files, or an http(s) URL of the legacy service. Each source is imported in one transaction;
// a source with a bad record is rejected whole (nothing of it written) and the others go on. Progress goes to
// stderr, the summary to stdout; the exit code is 1 when any source was rejected or failed. With LOG_LEVEL=debug
// (or trace) each step is named on stderr as it begins. While a server runs on the embedded database (which it
// holds), the records are handed to it and it imports them (src/import/live-client.ts).
import { migrateIfBehind } from '../db/migrate.js';
import { type Counts, type ImportPhase, importSource, type SourceReport } from '../import/importer.js';
import { importThroughServer, runningServerSocket } from '../import/live-client.js';
import { type Source, SourceError } from '../import/source.js';
import { openSources } from '../import/sources.js';
import { interruptSignal } from '../lifecycle.js';
import { progressLine } from '../progress.js';
import { readArguments, UsageError } from './arguments.js';
import { openForJob, runOrExit } from './job.js';

const USAGE =
  'usage: npm run import -- [--dry-run] [--follow] [--limit-pages N] [--timeout SECONDS] <file|directory|URL>...';

function readOptions() {
  const parsed = readArguments(
    {
      options: {
        'dry-run': { type: 'boolean', default: false },
        follow: { type: 'boolean', default: false },
        'limit-pages': { type: 'string' },
        timeout: { type: 'string', default: '30' },
        help: { type: 'boolean', default: false },
      },
      allowPositionals: true,
      strict: true,
    },
    USAGE,
  );
  const { values, positionals } = parsed;
  if (values.help) {
    console.log(USAGE);
    process.exit(0);
  }
  if (positionals.length === 0) throw new UsageError(`no source given (${USAGE})`);
  const wholeNumber = (name: string, text: string, min: number, max: number) => {
    if (!/^\d+$/.test(text) || Number(text) < min || Number(text) > max) {
      throw new UsageError(`--${name} must be a whole number from ${min} to ${max}, got ${JSON.stringify(text)}`);
    }
    return Number(text);
  };
  const limitPages = values['limit-pages'];
  return {
    sources: positionals,
    dryRun: values['dry-run'],
    follow: values.follow,
    limitPages: limitPages === undefined ? undefined : wholeNumber('limit-pages', limitPages, 1, 1_000_000),
    timeoutMs: wholeNumber('timeout', values.timeout, 1, 3600) * 1000,
  };
}

const n = (value: number) => value.toLocaleString('en');
const seconds = (s: number) => `${s.toFixed(1)} s`;

function countsText(c: Counts, dryRun: boolean): string {
  if (dryRun) return `${n(c.read - c.rejected)} valid, ${n(c.rejected)} rejected`;
  return `${n(c.created)} created, ${n(c.updated)} updated, ${n(c.unchanged)} unchanged, ${n(c.rejected)} rejected`;
}

/** Progress on stderr: an updating line on a terminal, a line every 5 s otherwise; nothing for short imports. */
function importProgress(dryRun: boolean) {
  const started = performance.now();
  const line = progressLine(5000);
  return {
    tick(report: SourceReport, source: Source) {
      const elapsed = performance.now() - started;
      if (elapsed < 1000) return;
      const p = source.progress();
      const percent = p && p.total > 0 ? ` (${Math.min(100, Math.floor((p.done / p.total) * 100))}%)` : '';
      line.update(
        `importing ${source.label}: ${n(report.counts.read)} records read${percent}, ${countsText(report.counts, dryRun)}, ${seconds(elapsed / 1000)}`,
      );
    },
    clear: line.clear,
  };
}

/** A line on stderr as each step begins, when the log is verbose; the time is the process's (from its start). */
function stepLog(verbose: boolean) {
  return (label: string, step: ImportPhase | 'opening the database' | 'migrating' | 'closing the database') => {
    if (verbose) console.error(`importing ${label}: ${step} (${(performance.now() / 1000).toFixed(3)} s)`);
  };
}

await runOrExit(
  async (config) => {
    const options = readOptions();
    const signal = interruptSignal();
    const started = performance.now();
    const step = stepLog(config.logLevel === 'debug' || config.logLevel === 'trace');
    const sources = await openSources(options.sources, { ...options, maxLineBytes: config.imports.maxLineBytes });
    const all = options.sources.join(' ');
    // A server running on the embedded database holds it: the import is handed to that server.
    const server = options.dryRun ? null : await runningServerSocket(config);
    if (server)
      console.error(
        `importing through the server running on ${config.database.kind === 'pglite' && config.database.dataDir} (${server})`,
      );
    else if (!options.dryRun) step(all, 'opening the database');
    const db = options.dryRun || server ? null : await openForJob(config);
    const reports: SourceReport[] = [];
    try {
      if (db) await migrateIfBehind(db, () => step(all, 'migrating'));
      const progress = importProgress(options.dryRun);
      for (const source of sources) {
        const each = {
          dryRun: options.dryRun,
          onProgress: (r: SourceReport) => progress.tick(r, source),
          onPhase: (phase: ImportPhase) => step(source.label, phase),
          signal,
        };
        const report = server ? await importThroughServer(server, source, each) : await importSource(db, source, each);
        progress.clear();
        reports.push(report);
        for (const line of report.rejections) console.error(`error: ${line}`);
        if (report.status === 'failed') console.error(`error: ${report.error}`);
        if (report.status === 'rejected') {
          const more = report.counts.rejected - report.rejections.length;
          console.error(
            `error: ${source.label}: rejected, nothing from it was written (${n(report.counts.rejected)} of ${n(report.counts.read)} records invalid${more > 0 ? `, ${n(more)} not listed` : ''})`,
          );
        }
        const note = report.status === 'failed' ? 'failed, nothing written' : report.status;
        console.log(
          `${source.label}: ${n(report.counts.read)} records: ${countsText(report.counts, options.dryRun)} (${note}, ${seconds(report.seconds)})`,
        );
      }
    } finally {
      if (db) step(all, 'closing the database');
      await db?.close();
    }
    const total = reports.reduce(
      (sum, r) => {
        for (const key of Object.keys(sum) as (keyof Counts)[]) sum[key] += r.counts[key];
        return sum;
      },
      { read: 0, created: 0, updated: 0, unchanged: 0, rejected: 0 },
    );
    const bad = reports.filter((r) => r.status === 'rejected' || r.status === 'failed').length;
    const sourcesText = `${n(reports.length)} source${reports.length === 1 ? '' : 's'}${bad > 0 ? ` (${bad} not imported)` : ''}`;
    const elapsed = seconds((performance.now() - started) / 1000);
    console.log(
      `summary: ${countsText(total, options.dryRun)} (${n(total.read)} records read from ${sourcesText}) in ${elapsed}${options.dryRun ? '; dry run, nothing written' : ''}`,
    );
    if (bad > 0) process.exitCode = 1;
  },
  [UsageError, SourceError],
);
// Everything is closed, but the schema engine (WebAssembly) keeps a timer for about 10 s after migrating: do not
// wait for it. (stdout and stderr are synchronous for files and pipes, so nothing written is lost.)
process.exit();
