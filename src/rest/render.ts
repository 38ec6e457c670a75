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
