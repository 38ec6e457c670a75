// The next and previous links, built as DRF's LimitOffsetPagination builds them with replace_query_param and
// remove_query_param: the request's own query (repeated keys, blank values and unknown parameters kept), with
// limit set to the page size in force and offset moved by it, keys sorted, values form-encoded.

/** Python's urllib.parse.quote_plus: everything but letters, digits and _.-~ is %-encoded, spaces as +. */
function quotePlus(text: string): string {
  return encodeURIComponent(text)
    .replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`)
    .replace(/%20/g, '+');
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
    .sort()
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
  offset: number;
}

export function nextLink({ base, query, count, limit, offset }: LinkInput): string | null {
  if (offset + limit >= count) return null;
  return withParams(base, query, { limit: String(limit), offset: String(offset + limit) });
}

export function previousLink({ base, query, limit, offset }: LinkInput): string | null {
  if (offset <= 0) return null;
  if (offset - limit <= 0) return withParams(base, query, { limit: String(limit), offset: null });
  return withParams(base, query, { limit: String(limit), offset: String(offset - limit) });
}
