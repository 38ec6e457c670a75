// The lines of a stream as JSON Lines defines them: split at "\n" only, a "\r" before it dropped. Not
// node:readline, which on Node 24 also ends a line at U+2028 and U+2029: JSON allows both raw inside a string, and
// JSON.stringify writes them raw, so a title holding one would cut its record in two.
// Each byte is looked at once: a line's pieces are kept as they came and joined when its end is found (searching
// the whole pending text again for each chunk made one long line cost its length squared). A line is bounded: past
// `maxLineBytes` it is refused before more of it is held. "\n" is never part of a longer UTF-8 character, so lines
// are cut in bytes and decoded whole.
import { Transform } from 'node:stream';
import { longerThan, SourceError } from './source.js';

export interface LineBounds {
  /** Bytes a line may take, its "\n" left out; a longer one is refused with LineTooLong. */
  maxLineBytes?: number;
  /**
   * The setting the refusal names (IMPORT_MAX_LINE_BYTES), where the bound leaves room beyond it for what a line
   * carries beside its record; the bound itself by default.
   */
  namedMaxBytes?: number;
  /** What the lines are of, as the refusal names it (`data.jsonl`: "data.jsonl line 3: ..."). */
  where?: string;
  /** Checked at every chunk: reading stops with its reason as soon as it aborts. */
  signal?: AbortSignal | undefined;
}

/** A line longer than the bound: named by its number, counted from 1. */
export class LineTooLong extends SourceError {
  constructor(where: string, line: number, maxLineBytes: number) {
    super(`${where} line ${line}: ${longerThan(maxLineBytes)}`);
  }
}

/** The refusal of line `line` under `bounds`, naming the setting's bound and what the lines are of. */
const lineTooLong = (bounds: LineBounds, line: number) =>
  new LineTooLong(
    bounds.where ?? 'the input',
    line,
    bounds.namedMaxBytes ?? bounds.maxLineBytes ?? Number.POSITIVE_INFINITY,
  );

const NEWLINE = 0x0a;
/** Bytes handed on between two turns of the event loop at most: a large chunk does not hold up the server. */
const TURN_BYTES = 1024 * 1024;
const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));
const withoutCarriageReturn = (line: string) => (line.endsWith('\r') ? line.slice(0, -1) : line);

/** Each line of `input` (UTF-8), without its line ending; a last line without one is a line too. */
export async function* jsonLines(
  input: AsyncIterable<Buffer | string>,
  bounds: LineBounds = {},
): AsyncGenerator<string> {
  const max = bounds.maxLineBytes ?? Number.POSITIVE_INFINITY;
  let pieces: Buffer[] = [];
  let held = 0;
  let number = 0;
  let sinceTurn = 0;
  for await (const data of input) {
    bounds.signal?.throwIfAborted();
    const chunk = typeof data === 'string' ? Buffer.from(data, 'utf8') : data;
    let start = 0;
    for (let end = chunk.indexOf(NEWLINE); end !== -1; end = chunk.indexOf(NEWLINE, start)) {
      if (held + end - start > max) throw lineTooLong(bounds, number + 1);
      const bytes = held === 0 ? chunk.subarray(start, end) : Buffer.concat([...pieces, chunk.subarray(start, end)]);
      pieces = [];
      held = 0;
      number++;
      sinceTurn += bytes.length;
      yield withoutCarriageReturn(bytes.toString('utf8'));
      start = end + 1;
      if (sinceTurn >= TURN_BYTES) {
        sinceTurn = 0;
        await nextTurn();
        bounds.signal?.throwIfAborted();
      }
    }
    if (start < chunk.length) {
      held += chunk.length - start;
      if (held > max) throw lineTooLong(bounds, number + 1);
      // A copy: the rest of a large chunk would otherwise keep all of it.
      pieces.push(Buffer.from(chunk.subarray(start)));
    }
  }
  if (held > 0) yield withoutCarriageReturn(Buffer.concat(pieces).toString('utf8'));
}

/**
 * Passes bytes on unchanged, failing with LineTooLong as soon as a line is longer than the bound: what is spooled
 * is checked as it comes, without holding a line.
 */
export function boundedLines(bounds: LineBounds & { maxLineBytes: number }): Transform {
  let length = 0;
  let number = 1;
  return new Transform({
    transform(chunk: Buffer, _encoding, done) {
      let start = 0;
      for (let end = chunk.indexOf(NEWLINE); end !== -1; end = chunk.indexOf(NEWLINE, start)) {
        if (length + end - start > bounds.maxLineBytes) break;
        length = 0;
        number++;
        start = end + 1;
      }
      length += chunk.length - start;
      if (length > bounds.maxLineBytes) done(lineTooLong(bounds, number));
      else done(null, chunk);
    },
  });
}
