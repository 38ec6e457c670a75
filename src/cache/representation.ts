// How a kept answer goes out to one request, decided in one place for the app's plugin (src/cache/response-
// cache.ts) and for the hits sent at the Node edge (src/cache/edge-hits.ts): its ETag (per content coding), the
// cache's Cache-Control and X-Cache, `Vary: Accept-Encoding`, the coding the request admits, and a 304 where
// If-None-Match names the representation (without the headers that describe a body it does not carry).
import { type Encoding, encodingFor, variesByEncoding, varyFirst, varyWith } from '../http/compression.js';
import type { RequestHead } from '../http/request-head.js';
import type { Answer } from './answers.js';
import { describesBody, etagOf, noneMatches } from './conditional.js';

export interface Representation {
  status: number;
  /** Every header but Content-Length and the per-request ones (CORS, the request id); lowercase names. */
  headers: Record<string, string>;
  /** The coding of the body sent (Content-Encoding is among the headers), or null: the kept bytes as they are. */
  encoding: Encoding | null;
  /** Whether a body goes out: not for a 304, nor for a HEAD. */
  body: boolean;
}

/**
 * The kept answer under `key` as `request` gets it, on `base` (the kept headers, or the route's answer's with
 * the kept ones over them): `cache` says where it came from (X-Cache). `varyOrigin`: this instance's CORS varies
 * its GraphQL answers by Origin (a list of origins); a kept answer's Vary never names Origin, since an instance
 * sharing Redis may allow any origin, and Origin goes first, where the app's CORS puts it.
 */
export function representation(
  request: RequestHead,
  key: string,
  answer: Answer,
  base: Readonly<Record<string, string>>,
  cacheControl: string,
  cache: 'hit' | 'miss',
  varyOrigin: boolean,
): Representation {
  const encoding = encodingFor(request, answer.headers['content-type'] ?? null, answer.body.byteLength);
  const headers: Record<string, string> = { ...base };
  // Validators and conditions are for GET and HEAD: a POST (a GraphQL query sent that way) has neither.
  const conditional = request.method === 'GET' || request.method === 'HEAD';
  const etag = etagOf(key, encoding);
  if (conditional) headers.etag = etag;
  headers['cache-control'] = cacheControl;
  headers['x-cache'] = cache;
  const type = answer.headers['content-type'] ?? '';
  if (variesByEncoding(type, answer.status)) headers.vary = varyWith(headers.vary, 'Accept-Encoding');
  if (varyOrigin) headers.vary = varyFirst(headers.vary, 'Origin');
  if (conditional && noneMatches(request.headers.get('if-none-match'), etag)) {
    for (const name of Object.keys(headers)) if (describesBody(name)) delete headers[name];
    return { status: 304, headers, encoding: null, body: false };
  }
  if (request.method === 'HEAD') return { status: answer.status, headers, encoding: null, body: false };
  if (encoding) headers['content-encoding'] = encoding;
  return { status: answer.status, headers, encoding, body: true };
}
