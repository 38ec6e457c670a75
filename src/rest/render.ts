import type { Utf8Json } from '../listing/rows.js';

// JSON bytes as DRF's JSONRenderer writes them: compact separators, UTF-8 characters unescaped
// (ensure_ascii=False), and U+2028/U+2029 escaped so the output is also valid JavaScript. JSON.stringify
// escapes exactly what Python's json.dumps does otherwise (", \, and control characters as \b \f \n \r \t or
// \u00XX in lower-case hex), so only the two line separators need a second look.
//
// With an indent (Accept: application/json; indent=N) it writes what json.dumps(indent=N, separators=(',', ': '))
// writes: JSON.stringify's indented form is the same (newlines, N spaces a level, ": " after keys, [] and {} when
// empty).
export function renderJson(value: unknown, indent: number | null = null): string {
  const text = indent === null ? JSON.stringify(value) : JSON.stringify(value, null, indent);
  return text.replace(/[\u2028\u2029]/g, (c) => (c === '\u2028' ? '\\u2028' : '\\u2029'));
}

/**
 * A v2 page whose records are ready JSON texts (DRF's bytes each, as UTF-8): the envelope rendered, the records
 * spliced in as they are. With an indent the records are parsed and the whole page rendered indented (rare).
 */
export function renderPage(
  envelope: { count: number; next: string | null; previous: string | null },
  records: readonly Utf8Json[],
  indent: number | null,
): Uint8Array | string {
  if (indent !== null) {
    const results = records.map((record) => JSON.parse(record.toJSON()));
    return renderJson({ ...envelope, results }, indent);
  }
  const parts: Uint8Array[] = [Buffer.from(`${renderJson(envelope).slice(0, -1)},"results":[`)];
  records.forEach((record, i) => {
    if (i > 0) parts.push(COMMA);
    parts.push(record.bytes);
  });
  parts.push(CLOSE);
  return Buffer.concat(parts);
}

const COMMA = Buffer.from(',');
const CLOSE = Buffer.from(']}');
