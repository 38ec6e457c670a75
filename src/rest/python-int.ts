// Python 3's int(text), which the legacy view applied to limit, offset and seed (and DRF's JSONRenderer to the
// Accept header's indent). Written here because no JavaScript parser reads integers as Python does:
// - surrounding whitespace as int() reads it: what str.strip() strips, except U+001C-U+001F (int() keeps
//   characters below U+007F as they are and then skips only ASCII's own whitespace), so U+0085, U+00A0 and U+3000
//   are whitespace, U+001C-U+001F and U+FEFF are not;
// - an optional sign, then decimal digits of any script (Unicode category Nd: "١٢" and "１２" are 12), with
//   single underscores between digits (PEP 515);
// - more than 4,300 digits is refused (Python's default limit for converting a string to an integer).
// The value is a BigInt: an offset may be any size and must come back in the links as sent.

const WHITESPACE = '\\t\\n\\x0b\\x0c\\r \\x85\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000';
const STRIP = new RegExp(`^[${WHITESPACE}]+|[${WHITESPACE}]+$`, 'g');
const LITERAL = /^([+-]?)(\p{Nd}+(?:_\p{Nd}+)*)$/u;
const DIGIT = /^\p{Nd}$/u;
const MAX_DIGITS = 4300;

/** The whitespace int() skips around a number. */
function stripIntWhitespace(text: string): string {
  return text.replace(STRIP, '');
}

const isDigit = (codePoint: number) => codePoint > 0 && DIGIT.test(String.fromCodePoint(codePoint));

/**
 * The value of a decimal digit of any script. Unicode keeps every script's digits contiguous and in order, 0 to 9
 * (blocks of several scripts follow each other in tens), so the distance from the start of the run tells it.
 */
function digitValue(codePoint: number): number {
  if (codePoint >= 0x30 && codePoint <= 0x39) return codePoint - 0x30;
  let start = codePoint;
  while (isDigit(start - 1)) start--;
  return (codePoint - start) % 10;
}

/** int(text) as Python 3 computes it, or undefined where Python raises ValueError. */
export function pythonInt(text: string): bigint | undefined {
  const match = LITERAL.exec(stripIntWhitespace(text));
  if (!match) return undefined;
  const digits = Array.from((match[2] as string).replaceAll('_', ''), (char) =>
    digitValue(char.codePointAt(0) as number),
  );
  if (digits.length > MAX_DIGITS) return undefined;
  return BigInt(`${match[1]}${digits.join('')}`);
}
