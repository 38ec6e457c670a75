// Imports one source in one transaction: every record is validated as it is read and written in batches; the
// first record that fails stops the writing (reading goes on, so every bad record is reported) and the whole
// transaction is rolled back: nothing from a rejected source is written, and what earlier sources wrote stays.
import type { Database } from '../db/client.js';
import { liftStatementTimeout } from '../db/write/store.js';
import { Interrupted } from '../lifecycle.js';
import { describeFailure } from '../messages.js';
import { type Source, SourceError, type SourceItem } from './source.js';
import { describeProblem, PackageValidator, type Problem, SourceIndex } from './validate.js';
import { type Entry, type Outcome, RecordRefused, SourceWriter, type WriterPhase } from './writer.js';

export interface Counts {
  /** Records read from the source. */
  read: number;
  created: number;
  updated: number;
  unchanged: number;
  /** Records that failed validation (or that the database refused). */
  rejected: number;
}

export interface SourceReport {
  label: string;
  /**
   * imported: written and committed; validated: a dry run found no problem; rejected: a record failed, nothing was
   * written; failed: the source could not be read (or the database failed), nothing was written.
   */
  status: 'imported' | 'validated' | 'rejected' | 'failed';
  counts: Counts;
  /** Shared records (photographers, images, ...) created and updated; not counted in a dry run. */
  shared: { created: number; updated: number };
  /** One line per rejected record, the first `maxListed` of them. */
  rejections: string[];
  /** Why a failed source failed, in one line. */
  error?: string;
  seconds: number;
}

export interface ImportOptions {
  /** Validate only: the database is not touched. */
  dryRun?: boolean;
  /** Called after each record read (throttle on the caller's side). */
  onProgress?: (report: SourceReport) => void;
  /** Rejected records described in the report at most. */
  maxListed?: number;
  /** Records per write batch at most. */
  batchRecords?: number;
  /** Characters of record data per write batch, about. */
  batchChars?: number;
  /** Checked as records are read: when it aborts, the source's transaction rolls back and its reason is thrown. */
  signal?: AbortSignal;
  /** Told as the import moves from one step to the next (a verbose log names them). */
  onPhase?: (phase: ImportPhase) => void;
}

/**
 * The steps of an import: records are read and validated, written a batch at a time, then the read model and
 * the listing order are made and the transaction commits; `committed` once it has.
 */
export type ImportPhase = 'reading' | 'writing rows' | WriterPhase | 'committing' | 'committed';

const NO_TIMEOUT = 24 * 60 * 60 * 1000;

class Rollback extends Error {}

function rejectionLine(item: { where: string; path: string }, id: string | null, problems: Problem[], more: number) {
  const first = problems[0] as Problem;
  const rest = problems.length - 1 + more;
  const record = id === null ? 'a record without an identifier' : `record ${id}`;
  const extra = rest > 0 ? ` (and ${rest} more problem${rest === 1 ? '' : 's'})` : '';
  return `${item.where}: ${record} rejected: ${describeProblem(first, item.path)}${extra}`;
}

export async function importSource(
  db: Database | null,
  source: Source,
  options: ImportOptions = {},
): Promise<SourceReport> {
  const started = performance.now();
  const maxListed = options.maxListed ?? 10;
  const batchRecords = options.batchRecords ?? 1000;
  const batchChars = options.batchChars ?? 16 * 1024 * 1024;
  const dryRun = options.dryRun === true || db === null;
  const report: SourceReport = {
    label: source.label,
    status: dryRun ? 'validated' : 'imported',
    counts: { read: 0, created: 0, updated: 0, unchanged: 0, rejected: 0 },
    shared: { created: 0, updated: 0 },
    rejections: [],
    seconds: 0,
  };
  const index = new SourceIndex();
  const validator = new PackageValidator(index);
  let failed = false;
  let phase: ImportPhase | undefined;
  const enter = (next: ImportPhase) => {
    if (next !== phase) options.onPhase?.(next);
    phase = next;
  };

  const reject = (line: string) => {
    failed = true;
    report.counts.rejected++;
    if (report.rejections.length < maxListed) report.rejections.push(line);
  };

  const consume = async (writer: SourceWriter | null) => {
    let batch: Entry[] = [];
    let chars = 0;
    // One batch is written while the next is read and validated: the database and this process each take a core.
    let writing: Promise<void> = Promise.resolve();
    const write = async (writer: SourceWriter, entries: Entry[]) => {
      const rows = writer.rowsOf(entries);
      index.nextBatch(); // what is validated from now on belongs to the next batch
      let outcomes: Outcome[];
      try {
        outcomes = await writer.write(entries, rows);
      } catch (error) {
        if (!(error instanceof RecordRefused)) throw error;
        reject(rejectionLine(error.entry, error.entry.record.identifier, [error.problem], 0));
        return;
      }
      for (const outcome of outcomes) report.counts[outcome]++;
    };
    const flush = async () => {
      const entries = batch;
      batch = [];
      chars = 0;
      await writing;
      if (!writer || failed || entries.length === 0) return;
      enter('writing rows');
      writing = write(writer, entries);
      writing.catch(() => {}); // its failure is thrown where it is awaited: at the next flush, or below
    };
    try {
      enter('reading');
      for await (const item of source.records() as AsyncGenerator<SourceItem>) {
        enter('reading');
        options.signal?.throwIfAborted();
        report.counts.read++;
        const checked = validator.validate(item.value);
        if (checked.record === null) {
          reject(rejectionLine(item, checked.identifier, checked.problems, checked.moreProblems));
        } else if (writer && !failed && checked.repeat) {
          report.counts.unchanged++; // an identical copy of a record earlier in the source: nothing to write
        } else if (writer && !failed) {
          batch.push({ record: checked.record, where: item.where, path: item.path });
          chars += checked.weight;
          if (batch.length >= batchRecords || chars >= batchChars) await flush();
        }
        options.onProgress?.(report);
      }
      await flush();
      await writing;
    } finally {
      // Never leave the transaction with a statement of it still running (a failed read, an interrupt).
      await writing.catch(() => {});
    }
    options.signal?.throwIfAborted();
    if (writer && !failed) {
      await writer.finish(enter);
      report.shared = { ...writer.shared };
    }
  };

  try {
    if (dryRun) await consume(null);
    else {
      await (db as Database).prisma.$transaction(
        async (tx) => {
          await liftStatementTimeout(tx);
          await consume(new SourceWriter(tx, index));
          if (failed) throw new Rollback();
          options.signal?.throwIfAborted(); // interrupted while the read model was made: still rolled back
          enter('committing');
        },
        { timeout: NO_TIMEOUT, maxWait: 60_000 },
      );
      enter('committed');
    }
  } catch (error) {
    if (error instanceof Interrupted) throw error;
    if (!(error instanceof Rollback)) {
      report.status = 'failed';
      report.error = error instanceof SourceError ? error.message : describeFailure(error);
    }
  }
  if (failed && report.status !== 'failed') report.status = 'rejected';
  if (report.status === 'rejected' || report.status === 'failed') {
    // Rolled back: nothing was created, updated or left as it was by this source.
    Object.assign(report.counts, { created: 0, updated: 0, unchanged: 0 });
    report.shared = { created: 0, updated: 0 };
  }
  report.seconds = (performance.now() - started) / 1000;
  return report;
}
