// JSON Lines are split at "\n" only: U+2028 and U+2029, which JSON allows raw inside strings (and JSON.stringify
// writes raw), stay inside their line on every Node (node:readline on Node 24 splits there).
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { jsonLines } from '../../src/import/lines.js';

async function linesOf(chunks: (string | Buffer)[]): Promise<string[]> {
  const lines: string[] = [];
  for await (const line of jsonLines(Readable.from(chunks))) lines.push(line);
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
