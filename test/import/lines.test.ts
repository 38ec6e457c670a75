// JSON Lines are split at "\n" only: U+2028 and U+2029, which JSON allows raw inside strings (and JSON.stringify
// writes raw), stay inside their line on every Node (node:readline on Node 24 splits there). A line is bounded:
// past the bound it is refused, named, before more of it is taken; an abort stops the reading at the next chunk;
// one large chunk does not hold the event loop for its whole length.
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { jsonLines, LineTooLong } from '../../src/import/lines.js';

async function linesOf(
  chunks: Iterable<string | Buffer> | AsyncIterable<string | Buffer>,
  maxLineBytes?: number,
  signal?: AbortSignal,
): Promise<string[]> {
  const lines: string[] = [];
  for await (const line of jsonLines(Readable.from(chunks), { maxLineBytes, signal })) lines.push(line);
  return lines;
}

describe('jsonLines', () => {
  it('keeps U+2028 and U+2029 inside their line', async () => {
    const records = [{ title: 'a\u2028b' }, { title: 'c\u2029d' }];
    const lines = await linesOf([`${records.map((record) => JSON.stringify(record)).join('\n')}\n`]);
    expect(lines.map((line) => JSON.parse(line))).toEqual(records);
  });

  it('drops the \\r of CRLF, keeps blank lines and a last line without an ending', async () => {
    expect(await linesOf(['a\r\n\r\nb\nc'])).toEqual(['a', '', 'b', 'c']);
  });

  it('joins lines, CRLF and characters that chunks cut in two', async () => {
    const bytes = Buffer.from('é1\r\n€2\n', 'utf8');
    const chunks = Array.from(bytes, (byte) => Buffer.from([byte]));
    expect(await linesOf(chunks)).toEqual(['é1', '€2']);
  });
});

const CHUNK = 64 * 1024;
const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

/** A first line, then one line of `x` that never ends (up to `cap` bytes), one chunk a turn of the event loop. */
function endlessLine(cap: number) {
  const pulled = { bytes: 0 };
  async function* input() {
    yield Buffer.from('{"first": 1}\n');
    while (pulled.bytes < cap) {
      await nextTurn();
      pulled.bytes += CHUNK;
      yield Buffer.alloc(CHUNK, 'x');
    }
  }
  return { input: input(), pulled };
}

describe('jsonLines bounds', () => {
  it('refuses a line longer than the bound, naming it, having taken no more than the bound and a chunk', async () => {
    const max = 1024 * 1024;
    const { input, pulled } = endlessLine(64 * max);
    const lines: string[] = [];
    const reading = (async () => {
      for await (const line of jsonLines(input, { maxLineBytes: max, where: 'dump.jsonl' })) lines.push(line);
    })();
    await expect(reading).rejects.toThrow(
      'dump.jsonl line 2: longer than 1,048,576 bytes (IMPORT_MAX_LINE_BYTES), refused',
    );
    expect(lines).toEqual(['{"first": 1}']);
    expect(pulled.bytes).toBeLessThanOrEqual(max + CHUNK);
  }, 20_000);

  it('hands on a line of exactly the bound, whole, however its chunks cut it', async () => {
    const line = 'é'.repeat(1000); // 2,000 bytes
    for (const size of [1, 7, 2000, 4096]) {
      const bytes = Buffer.from(`${line}\n${line}`, 'utf8');
      const chunks = Array.from({ length: Math.ceil(bytes.length / size) }, (_, i) =>
        bytes.subarray(i * size, (i + 1) * size),
      );
      const lines: string[] = [];
      for await (const each of jsonLines(Readable.from(chunks), { maxLineBytes: 2000 })) lines.push(each);
      expect(lines).toEqual([line, line]);
      await expect(linesOf(chunks, 1999)).rejects.toBeInstanceOf(LineTooLong);
    }
  });

  it('stops at the chunk its signal aborts at, with its reason', async () => {
    const controller = new AbortController();
    let given = 0;
    async function* input() {
      for (; given < 1000; given++) {
        if (given === 5) controller.abort(new Error('the tool left'));
        yield Buffer.from('{"a": 1}\n'.repeat(100));
      }
    }
    await expect(linesOf(input(), undefined, controller.signal)).rejects.toThrow('the tool left');
    expect(given).toBeLessThanOrEqual(6);
  });

  it('lets the event loop turn while it splits one large chunk', async () => {
    const chunk = `${'{"title": "a line of the kind a dump holds"}\n'.repeat(200_000)}`; // 9 MB in one piece
    let turns = 0;
    let counting = true;
    const count = () => {
      if (!counting) return;
      turns++;
      setImmediate(count);
    };
    setImmediate(count);
    let lines = 0;
    for await (const _ of jsonLines(Readable.from([chunk]))) lines++;
    counting = false;
    expect(lines).toBe(200_000);
    expect(turns).toBeGreaterThanOrEqual(4);
  });
});
