// What every import source is: a label, its records one at a time, and how far reading has come; the error
// that names a source's problem in one line; the v2 page envelope that pages of the legacy service arrive in.
import { DEFAULT_IMPORT_BOUNDS } from '../config.js';
import { isObject } from '../v2/scalars.js';

export class SourceError extends Error {}

export interface SourceItem {
  value: unknown;
  /** Where the record is: a file or URL, and for JSON Lines the line (`data.jsonl line 4`). */
  where: string;
  /** The record's path in it, the prefix of field paths: `results[3]`, `[3]`, or '' for a JSON Lines record. */
  path: string;
}

export interface SourceProgress {
  done: number;
  total: number;
  unit: 'bytes' | 'records';
}

export interface Source {
  /** As given on the command line. */
  label: string;
  records(): AsyncGenerator<SourceItem>;
  /** How far reading has come, when it can be told. */
  progress(): SourceProgress | null;
}

export interface SourceOptions {
  /** Follow the `next` links of URL sources. */
  follow?: boolean;
  /** Pages read at most per URL source. */
  limitPages?: number;
  /** Time allowed for each HTTP request, answer included. */
  timeoutMs?: number;
  /** Files up to this size are parsed whole; larger ones are streamed. */
  wholeFileLimit?: number;
  /** Bytes of a source held at once at most: a line, a streamed record, a URL's answer (IMPORT_MAX_LINE_BYTES). */
  maxLineBytes?: number;
}

export const DEFAULT_TIMEOUT_MS = 30_000;

/** How a line, record or answer past IMPORT_MAX_LINE_BYTES is refused, after what names it. */
export const longerThan = (maxBytes: number) =>
  `longer than ${maxBytes.toLocaleString('en')} bytes (IMPORT_MAX_LINE_BYTES), refused`;

/** The bound on what a source holds at once, as given or IMPORT_MAX_LINE_BYTES's default. */
export const maxLineBytesOf = (options: SourceOptions) => options.maxLineBytes ?? DEFAULT_IMPORT_BOUNDS.maxLineBytes;

export const ENVELOPE_KEYS = ['count', 'next', 'previous', 'results'];

export const isUrl = (spec: string) => /^https?:\/\//i.test(spec);

/** A v2 page envelope: an object with count, next, previous and results (an array); returns the results. */
export function checkEnvelope(value: unknown, where: string): unknown[] {
  const expected = 'a v2 page {count, next, previous, results}';
  if (!isObject(value)) throw new SourceError(`${where}: expected ${expected}`);
  const extra = Object.keys(value).filter((k) => !ENVELOPE_KEYS.includes(k));
  if (extra.length > 0) throw new SourceError(`${where}: expected ${expected}, got the keys ${JSON.stringify(extra)}`);
  if (!Array.isArray(value.results)) throw new SourceError(`${where}: expected ${expected} whose results is an array`);
  if (value.next !== undefined && value.next !== null && typeof value.next !== 'string') {
    throw new SourceError(`${where}: expected ${expected} whose next is a URL or null`);
  }
  return value.results;
}
