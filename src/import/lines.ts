// The lines of a stream as JSON Lines defines them: split at "\n" only, a "\r" before it dropped. Not
// node:readline, which on Node 24 also ends a line at U+2028 and U+2029: JSON allows both raw inside a string, and
// JSON.stringify writes them raw, so a title holding one would cut its record in two.
import { StringDecoder } from 'node:string_decoder';

const withoutCarriageReturn = (line: string) => (line.endsWith('\r') ? line.slice(0, -1) : line);

/** Each line of `input` (UTF-8), without its line ending; a last line without one is a line too. */
export async function* jsonLines(input: AsyncIterable<Buffer | string>): AsyncGenerator<string> {
  const decoder = new StringDecoder('utf8');
  let pending = '';
  for await (const chunk of input) {
    pending += typeof chunk === 'string' ? chunk : decoder.write(chunk);
    let start = 0;
    for (let end = pending.indexOf('\n'); end !== -1; end = pending.indexOf('\n', start)) {
      yield withoutCarriageReturn(pending.slice(start, end));
      start = end + 1;
    }
    pending = pending.slice(start);
  }
  pending += decoder.end();
  if (pending !== '') yield withoutCarriageReturn(pending);
}
