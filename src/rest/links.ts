// The next and previous links, built as DRF's LimitOffsetPagination builds them with replace_query_param and
// remove_query_param: the request's own query (repeated keys, blank values and unknown parameters kept), with
// limit set to the page size in force and offset moved by it, keys sorted, values form-encoded.

/** Python's urllib.parse.quote_plus: everything but letters, digits and _.-~ is %-encoded, spaces as +. */
function quotePlus(text: string): string {
  return encodeURIComponent(text)
    .replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`)
    .replace(/%20/g, '+');
}

/** Python's string order: by code point (JavaScript's default sort compares UTF-16 code units instead). */
function byCodePoint(a: string, b: string): number {
  const left = Array.from(a, (char) => char.codePointAt(0) as number);
  const right = Array.from(b, (char) => char.codePointAt(0) as number);
  for (let i = 0; i < Math.min(left.length, right.length); i++) {
    if (left[i] !== right[i]) return (left[i] as number) - (right[i] as number);
  }
  return left.length - right.length;
}

/** parse_qs(keep_blank_values=True) into an ordered map of key -> values, then urlencode(sorted(...), doseq). */
function withParams(base: string, query: URLSearchParams, changes: Record<string, string | null>): string {
  const params = new Map<string, string[]>();
  for (const [key, value] of query) params.set(key, [...(params.get(key) ?? []), value]);
  for (const [key, value] of Object.entries(changes)) {
    if (value === null) params.delete(key);
    else params.set(key, [value]);
  }
  const pairs = [...params.keys()]
    .sort(byCodePoint)
    .flatMap((key) => (params.get(key) ?? []).map((value) => `${quotePlus(key)}=${quotePlus(value)}`));
  return `${base}?${pairs.join('&')}`;
}

export interface LinkInput {
  /** Absolute URL of the endpoint, without query: https://host/v2/local-package-list/ */
  base: string;
  /** The request's query string as received (seed added when the service chose it). */
  query: URLSearchParams;
  count: number;
  limit: number;
  /** As sent, however large: the links carry it back unclamped. */
  offset: bigint;
}

export function nextLink({ base, query, count, limit, offset }: LinkInput): string | null {
  if (offset + BigInt(limit) >= BigInt(count)) return null;
  return withParams(base, query, { limit: String(limit), offset: String(offset + BigInt(limit)) });
}

export function previousLink({ base, query, limit, offset }: LinkInput): string | null {
  if (offset <= 0n) return null;
  if (offset - BigInt(limit) <= 0n) return withParams(base, query, { limit: String(limit), offset: null });
  return withParams(base, query, { limit: String(limit), offset: String(offset - BigInt(limit)) });
}
