// Content negotiation as Django REST Framework's DefaultContentNegotiation did it for the legacy view, before the
// method is looked at: the `format` query parameter (its last value, as Django's QueryDict gives it; an empty one
// counts as absent) must name the JSON renderer (`json`, or `api`), else 404; then the Accept header must admit
// application/json, else 406. Accept entries are tried most specific first (DRF orders by precedence, not by
// q-value); the one that matched may carry `indent=N`, which the JSON renderer honours (0 to 8; 0 is compact).
// Written by hand because it reproduces DRF's rules, not HTTP's general ones (q=0 does not refuse, for one).
import { pythonInt } from './python-int.js';

const FORMATS = new Set(['api', 'json']);

export type Negotiation =
  | { ok: true /** Spaces per level, or null for the compact form. */; indent: number | null }
  | { ok: false; status: 404 | 406; detail: string };

interface MediaType {
  main: string;
  sub: string;
  params: Map<string, string>;
}

/** Django's _parseparam: `;`-separated parts, where a `;` inside double quotes does not separate. */
function parts(text: string): string[] {
  const out: string[] = [];
  let rest = `;${text}`;
  while (rest.startsWith(';')) {
    rest = rest.slice(1);
    let end = rest.indexOf(';');
    while (
      end > 0 &&
      ((rest.slice(0, end).match(/"/g)?.length ?? 0) - (rest.slice(0, end).match(/\\"/g)?.length ?? 0)) % 2
    ) {
      end = rest.indexOf(';', end + 1);
    }
    if (end < 0) end = rest.length;
    out.push(rest.slice(0, end).trim());
    rest = rest.slice(end);
  }
  return out;
}

/** Django's parse_header_parameters, as DRF's _MediaType reads a media type. */
function mediaType(text: string): MediaType {
  const [full = '', ...rest] = parts(text);
  const params = new Map<string, string>();
  for (const part of rest) {
    const eq = part.indexOf('=');
    if (eq < 0) continue;
    let value = part.slice(eq + 1).trim();
    if (value.length >= 2 && value.startsWith('"') && value.endsWith('"')) {
      value = value.slice(1, -1).replaceAll('\\\\', '\\').replaceAll('\\"', '"');
    }
    params.set(part.slice(0, eq).trim().toLowerCase(), value);
  }
  const type = full.toLowerCase();
  const slash = type.indexOf('/');
  return { main: slash < 0 ? type : type.slice(0, slash), sub: slash < 0 ? '' : type.slice(slash + 1), params };
}

/** DRF's _MediaType.precedence: 3 with parameters (other than q), 2 a full type, 1 a type with any subtype, 0 any type. */
function precedence(type: MediaType): number {
  if (type.main === '*') return 0;
  if (type.sub === '*') return 1;
  return type.params.size === 0 || (type.params.size === 1 && type.params.has('q')) ? 2 : 3;
}

/** Whether application/json satisfies the entry (DRF's _MediaType.match, the renderer's type on the left). */
const admitsJson = (type: MediaType) =>
  (type.main === '*' || type.main === 'application') && (type.sub === '*' || type.sub === 'json');

/** DRF's JSONRenderer.get_indent: int(indent) clamped to 0..8, 0 meaning none. */
function indentOf(type: MediaType): number | null {
  const text = type.params.get('indent');
  const value = text === undefined ? undefined : pythonInt(text);
  if (value === undefined) return null;
  const clamped = Number(value < 0n ? 0n : value > 8n ? 8n : value);
  return clamped === 0 ? null : clamped;
}

export function negotiate(query: URLSearchParams, accept: string | null): Negotiation {
  const formats = query.getAll('format');
  const format = formats[formats.length - 1];
  if (format && !FORMATS.has(format)) return { ok: false, status: 404, detail: 'Not found.' };
  const entries = (accept ?? '*/*').split(',').map((entry) => mediaType(entry.trim()));
  for (const level of [3, 2, 1, 0]) {
    const match = entries.find((type) => precedence(type) === level && admitsJson(type));
    if (match) return { ok: true, indent: indentOf(match) };
  }
  return { ok: false, status: 406, detail: 'Could not satisfy the request Accept header.' };
}
