// What `npm run check:v2` asks a server and what it expects of the links: one request read whole, and DRF's
// LimitOffsetPagination links (spec 4.1) for a page.

export interface Fetched {
  res: Response;
  text: string;
  body: unknown;
  url: string;
}

/** One request, without following redirects; the body parsed when it is JSON. */
export async function fetchPage(url: string, init: RequestInit = {}): Promise<Fetched> {
  const res = await fetch(url, { redirect: 'manual', ...init });
  const text = init.method === 'HEAD' ? '' : await res.text();
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined;
  }
  return { res, text, body, url };
}

/** `?a=1&b=2`, as a form encodes it. */
export const query = (params: Record<string, string | number>) =>
  `?${new URLSearchParams(Object.entries(params).map(([k, v]) => [k, String(v)])).toString()}`;

/** Python's form encoding of a query value, as DRF's replace_query_param writes it. */
const formValue = (s: string) =>
  encodeURIComponent(s)
    .replace(/%20/g, '+')
    .replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);

/** Python's string order: by code point, not by UTF-16 unit. */
const byCodePoint = (a: string, b: string) => {
  const x = [...a].map((c) => c.codePointAt(0) as number);
  const y = [...b].map((c) => c.codePointAt(0) as number);
  for (let i = 0; i < Math.min(x.length, y.length); i++) if (x[i] !== y[i]) return (x[i] as number) - (y[i] as number);
  return x.length - y.length;
};

/**
 * The link DRF writes: the request's query with `limit` set to the page size in force and `offset` moved by it,
 * every key sorted; next is null once offset + limit reaches count, previous null at offset 0, and the previous
 * link to the first page has no offset.
 */
export function expectedLink(
  requestUrl: string,
  page: { offset: number; limit: number; count: number; dir: 'next' | 'previous' },
): string | null {
  const { offset, limit, count, dir } = page;
  if (dir === 'next' ? offset + limit >= count : offset <= 0) return null;
  const request = new URL(requestUrl);
  const params = new Map<string, string[]>();
  for (const [k, v] of request.searchParams) params.set(k, [...(params.get(k) ?? []), v]);
  params.set('limit', [String(limit)]);
  const target = dir === 'next' ? offset + limit : offset - limit;
  if (target <= 0 && dir === 'previous') params.delete('offset');
  else params.set('offset', [String(target)]);
  const pairs = [...params.keys()]
    .sort(byCodePoint)
    .flatMap((k) => (params.get(k) ?? []).map((v) => `${formValue(k)}=${formValue(v)}`));
  return `${request.origin}${request.pathname}?${pairs.join('&')}`;
}
