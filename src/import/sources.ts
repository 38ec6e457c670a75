// Recognises and streams the sources of an import, one record at a time:
// - a file holding a v2 page envelope ({count, next, previous, results}), a JSON array of Package records, or
//   JSON Lines of Package records (one per line; also any .jsonl / .ndjson file);
// - a directory of such files (.json, .jsonl, .ndjson), read in name order (numbers compared as numbers);
// - an http(s) URL of the legacy service: its base address or the list's address (url-source.ts).
// Files up to `wholeFileLimit` bytes are parsed whole with JSON.parse (a legacy page is well under 1 MB, and
// JSON.parse is several times faster than a streaming tokenizer); larger ones are streamed with stream-json, so a
// file of any size is never held whole. Every failure is a SourceError with a one-line message naming the file
// or URL.
import { createReadStream, type ReadStream } from 'node:fs';
import { open, readdir, readFile, stat } from 'node:fs/promises';
import { extname, join } from 'node:path';
import chain from 'stream-chain';
import { none } from 'stream-chain/defs.js';
import { parser } from 'stream-json';
import Assembler from 'stream-json/assembler.js';
import { firstLine } from '../messages.js';
import { jsonLines } from './lines.js';
import {
  checkEnvelope,
  ENVELOPE_KEYS,
  isUrl,
  longerThan,
  maxLineBytesOf,
  type Source,
  SourceError,
  type SourceItem,
  type SourceOptions,
} from './source.js';
import { urlSource } from './url-source.js';

export { listUrl } from './url-source.js';

const DEFAULT_WHOLE_FILE_LIMIT = 8 * 1024 * 1024;
const FILE_EXTENSIONS = ['.json', '.jsonl', '.ndjson'];
const LINES_EXTENSIONS = ['.jsonl', '.ndjson'];

/** Resolves the command line's sources; a path that does not exist is refused before anything is read. */
export async function openSources(specs: string[], options: SourceOptions = {}): Promise<Source[]> {
  const sources: Source[] = [];
  for (const spec of specs) {
    if (isUrl(spec)) {
      sources.push(urlSource(spec, options));
      continue;
    }
    if (/^[a-z][a-z0-9+.-]*:\/\//i.test(spec)) throw new SourceError(`${spec}: only http and https URLs can be read`);
    const info = await stat(spec).catch((error: NodeJS.ErrnoException) => {
      throw new SourceError(`${spec}: ${error.code === 'ENOENT' ? 'no such file or directory' : firstLine(error)}`);
    });
    if (info.isDirectory()) sources.push(await directorySource(spec, options));
    else if (info.isFile()) sources.push(fileSource(spec, info.size, options));
    else throw new SourceError(`${spec}: neither a file nor a directory`);
  }
  return sources;
}

// --- files ---------------------------------------------------------------------------------------------------

type Format = 'page' | 'array' | 'lines';

/** Tells the format from the file's first bytes (and its extension for JSON Lines). */
async function detectFormat(path: string): Promise<Format> {
  const handle = await open(path, 'r').catch((error) => {
    throw new SourceError(`${path}: cannot be read (${(error as NodeJS.ErrnoException).code ?? firstLine(error)})`);
  });
  let head: string;
  try {
    const buffer = Buffer.alloc(64 * 1024);
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, 0);
    head = buffer.subarray(0, bytesRead).toString('utf8');
  } finally {
    await handle.close();
  }
  const text = head.replace(/^\uFEFF/, '').trimStart();
  if (LINES_EXTENSIONS.includes(extname(path).toLowerCase())) return 'lines';
  if (text === '') throw new SourceError(`${path}: empty file, expected v2 JSON`);
  if (text.startsWith('[')) return 'array';
  if (!text.startsWith('{')) {
    throw new SourceError(`${path}: malformed JSON: it starts with ${JSON.stringify(text.slice(0, 20))}, not [ or {`);
  }
  const key = /^\{\s*"((?:[^"\\]|\\.)*)"/.exec(text)?.[1];
  if (key === 'identifier') return 'lines';
  if (key !== undefined && ENVELOPE_KEYS.includes(key)) return 'page';
  if (key === undefined && /^\{\s*\}/.test(text)) return 'page'; // {} : reported below as a page without results
  throw new SourceError(
    `${path}: not a v2 page, a JSON array or JSON Lines of Package records (${key === undefined ? 'malformed JSON' : `its first key is ${JSON.stringify(key)}`})`,
  );
}

/** `... at position 1234` from JSON.parse, with the line and column added. */
function describeJsonError(error: unknown, text: string): string {
  const message = firstLine(error);
  const position = /at position (\d+)/.exec(message)?.[1];
  if (position === undefined) return message;
  const before = text.slice(0, Number(position));
  const line = before.split('\n').length;
  const column = Number(position) - before.lastIndexOf('\n');
  return /\(line \d+/.test(message) ? message : `${message} (line ${line} column ${column})`;
}

/** The records of a parsed page or array, checking the page's shape. */
function* itemsOf(value: unknown, format: 'page' | 'array', where: string): Generator<SourceItem> {
  if (format === 'array') {
    if (!Array.isArray(value)) throw new SourceError(`${where}: expected a JSON array of Package records`);
    for (let i = 0; i < value.length; i++) yield { value: value[i], where, path: `[${i}]` };
    return;
  }
  const results = checkEnvelope(value, where);
  for (let i = 0; i < results.length; i++) yield { value: results[i], where, path: `results[${i}]` };
}

async function* wholeFileItems(
  path: string,
  format: 'page' | 'array',
  size: number,
  bytes: ByteCount,
): AsyncGenerator<SourceItem> {
  const text = (await readFile(path, 'utf8')).replace(/^\uFEFF/, '');
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new SourceError(`${path}: malformed JSON: ${describeJsonError(error, text)}`);
  }
  const items = [...itemsOf(value, format, path)];
  for (const [i, item] of items.entries()) {
    bytes.handedOn(Math.floor((size * (i + 1)) / items.length)); // the file's share of the records handed on
    yield item;
  }
}

/**
 * How much of a source the import has been handed: the bytes of the files finished, and of the file being read,
 * the part up to the record handed on last (not what a reader has read ahead: readline reads a whole file before
 * its first line is taken). A streamed file counts the bytes its parser has taken, which runs at most one buffer
 * ahead.
 */
class ByteCount {
  private finished = 0;
  private current = 0;
  private stream: ReadStream | null = null;
  get done(): number {
    const streamed = this.stream ? Math.max(0, this.stream.bytesRead - this.stream.readableLength) : 0;
    return this.finished + Math.max(this.current, streamed);
  }
  /** A streamed file: its parser's progress stands for the records'. */
  streaming(stream: ReadStream): ReadStream {
    this.stream = stream;
    return stream;
  }
  /** The bytes of the current file up to the end of the record about to be handed on. */
  handedOn(bytes: number): void {
    this.current = bytes;
  }
  finish(size: number): void {
    this.stream = null;
    this.current = 0;
    this.finished += size;
  }
}

async function* lineItems(path: string, bytes: ByteCount, maxLineBytes: number): AsyncGenerator<SourceItem> {
  const input = createReadStream(path);
  let number = 0;
  try {
    let taken = 0;
    for await (const raw of jsonLines(input, { maxLineBytes, where: path })) {
      number++;
      taken += Buffer.byteLength(raw) + 1;
      const line = number === 1 ? raw.replace(/^\uFEFF/, '') : raw;
      if (line.trim() === '') continue;
      let value: unknown;
      try {
        value = JSON.parse(line);
      } catch (error) {
        throw new SourceError(`${path} line ${number}: malformed JSON: ${describeJsonError(error, line)}`);
      }
      bytes.handedOn(taken);
      yield { value, where: `${path} line ${number}`, path: '' };
    }
  } finally {
    input.destroy();
  }
}

type Token = { name: string; value?: unknown };

/**
 * Picks the records out of a token stream: the elements of the top-level array, or of the page's `results`.
 * Each record is assembled on its own, so only one is in memory at a time, and bounded: `take` sees the bytes
 * before the parser does, and refuses once more than `maxBytes` came since the last record (the parser holds a
 * value until its end, so the tokens alone would come too late).
 */
function recordPicker(format: 'page' | 'array', where: string, maxBytes: number) {
  let taken = 0;
  let mark = 0;
  let depth = 0;
  let resultsNext = false;
  let inResults = false;
  let sawResults = false;
  let index = 0;
  let assembler: Assembler | null = null;
  const pathOf = (i: number) => (format === 'array' ? `[${i}]` : `results[${i}]`);
  const emit = (value: unknown) => {
    mark = taken;
    return { value, where, path: pathOf(index++) };
  };
  const take = (chunk: Buffer) => {
    taken += chunk.length;
    if (taken - mark > maxBytes) {
      throw new SourceError(`${where}: the record at ${pathOf(index)} is ${longerThan(maxBytes)}`);
    }
    return chunk;
  };
  const pick = (token: Token) => {
    if (assembler) {
      assembler.consume(token as never);
      if (!assembler.done) return none;
      const value = assembler.current;
      assembler = null;
      return emit(value);
    }
    const inside = format === 'array' ? depth === 1 : inResults && depth === 2;
    const starts = token.name === 'startObject' || token.name === 'startArray';
    const ends = token.name === 'endObject' || token.name === 'endArray';
    if (inside && !ends) {
      assembler = new Assembler();
      assembler.consume(token as never);
      if (!assembler.done) return none;
      const value = assembler.current;
      assembler = null;
      return emit(value);
    }
    if (depth === 0 && !starts) throw new SourceError(`${where}: malformed JSON: expected [ or {`);
    if (depth === 0 && format === 'page' && token.name !== 'startObject') {
      throw new SourceError(`${where}: expected a v2 page {count, next, previous, results}`);
    }
    if (format === 'page' && depth === 1 && token.name === 'keyValue') {
      const key = String(token.value);
      if (!ENVELOPE_KEYS.includes(key)) {
        throw new SourceError(
          `${where}: expected a v2 page {count, next, previous, results}, got the key ${JSON.stringify(key)}`,
        );
      }
      resultsNext = key === 'results';
      sawResults ||= resultsNext;
      return none;
    }
    if (resultsNext) {
      if (token.name !== 'startArray') throw new SourceError(`${where}: expected a v2 page whose results is an array`);
      resultsNext = false;
      inResults = true;
    }
    if (starts) depth++;
    if (ends) {
      depth--;
      if (inResults && depth === 1) inResults = false;
    }
    return none;
  };
  return { take, pick, finish: () => sawResults || format === 'array' };
}

async function* streamedItems(
  path: string,
  format: 'page' | 'array',
  bytes: ByteCount,
  maxBytes: number,
): AsyncGenerator<SourceItem> {
  const input = bytes.streaming(createReadStream(path));
  const picker = recordPicker(format, path, maxBytes);
  // The parser decodes the file's bytes itself, though its types speak of text only.
  const take = picker.take as unknown as (chunk: string) => string;
  const pipeline = chain([input, take, parser({ streamValues: false }), picker.pick]);
  try {
    for await (const item of pipeline) yield item as SourceItem;
  } catch (error) {
    if (error instanceof SourceError) throw error;
    throw new SourceError(`${path}: malformed JSON: ${firstLine(error)}`);
  } finally {
    pipeline.destroy();
    input.destroy();
  }
  if (!picker.finish()) throw new SourceError(`${path}: expected a v2 page {count, next, previous, results}`);
}

async function* fileItems(
  path: string,
  size: number,
  options: SourceOptions,
  bytes: ByteCount,
): AsyncGenerator<SourceItem> {
  const format = await detectFormat(path);
  const maxLineBytes = maxLineBytesOf(options);
  if (format === 'lines') yield* lineItems(path, bytes, maxLineBytes);
  else if (size <= Math.min(options.wholeFileLimit ?? DEFAULT_WHOLE_FILE_LIMIT, maxLineBytes))
    yield* wholeFileItems(path, format, size, bytes);
  else yield* streamedItems(path, format, bytes, maxLineBytes);
  bytes.finish(size);
}

function fileSource(path: string, size: number, options: SourceOptions): Source {
  const bytes = new ByteCount();
  return {
    label: path,
    records: () => fileItems(path, size, options, bytes),
    progress: () => ({ done: bytes.done, total: size, unit: 'bytes' }),
  };
}

const byName = new Intl.Collator('en', { numeric: true });

async function directorySource(dir: string, options: SourceOptions): Promise<Source> {
  const entries = await readdir(dir, { withFileTypes: true }).catch((error) => {
    throw new SourceError(`${dir}: cannot be read (${(error as NodeJS.ErrnoException).code ?? firstLine(error)})`);
  });
  const names = entries
    .filter((e) => e.isFile() && !e.name.startsWith('.') && FILE_EXTENSIONS.includes(extname(e.name).toLowerCase()))
    .map((e) => e.name)
    .sort(byName.compare);
  if (names.length === 0) throw new SourceError(`${dir}: no .json, .jsonl or .ndjson files in this directory`);
  const files = await Promise.all(
    names.map(async (name) => ({ path: join(dir, name), size: (await stat(join(dir, name))).size })),
  );
  const total = files.reduce((sum, f) => sum + f.size, 0);
  const bytes = new ByteCount();
  return {
    label: dir,
    async *records() {
      for (const file of files) yield* fileItems(file.path, file.size, options, bytes);
    },
    progress: () => ({ done: bytes.done, total, unit: 'bytes' }),
  };
}
