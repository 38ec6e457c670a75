// A request refused before it reaches its route (bad Host, body too large, too many requests, bad key, ...):
// a short JSON answer in the shape the route's clients read. GraphQL clients get `errors` with a code, the
// legacy v2 clients DRF's `{"detail": ...}` with the v2 headers, anything else `{"detail": ...}`.
import { NOT_SHARED } from './cache-headers.js';
import { GRAPHQL_PATH, LISTING_PATH, V2_HEADERS } from './routes.js';

export interface Refusal {
  status: number;
  /** GraphQL `extensions.code`. */
  code: string;
  message: string;
  /** The v2 path's wording, where DRF has its own (e.g. "Request was throttled. ..."); `message` otherwise. */
  v2Detail?: string;
  headers?: Record<string, string>;
}

export function refusalBody(pathname: string, refusal: Refusal): { body: string; headers: Record<string, string> } {
  if (pathname === GRAPHQL_PATH) {
    return {
      body: JSON.stringify({ errors: [{ message: refusal.message, extensions: { code: refusal.code } }] }),
      headers: { 'content-type': 'application/json; charset=utf-8', 'cache-control': NOT_SHARED, ...refusal.headers },
    };
  }
  const detail = JSON.stringify({
    detail: pathname === LISTING_PATH ? (refusal.v2Detail ?? refusal.message) : refusal.message,
  });
  const headers = pathname === LISTING_PATH ? V2_HEADERS : { 'content-type': 'application/json' };
  return { body: detail, headers: { ...headers, 'cache-control': NOT_SHARED, ...refusal.headers } };
}

/** As a fetch Response (for yoga plugins, which pass their own `Response` class). */
export function refusalResponse(
  ResponseClass: typeof Response,
  request: Request,
  pathname: string,
  refusal: Refusal,
): Response {
  const { body, headers } = refusalBody(pathname, refusal);
  return new ResponseClass(request.method === 'HEAD' ? null : body, { status: refusal.status, headers });
}

/** 405 for a method other than GET and HEAD on a route that takes only those (health, metrics, OpenAPI). */
export function onlyGetAndHead(ResponseClass: typeof Response, request: Request): Response | null {
  if (request.method === 'GET' || request.method === 'HEAD') return null;
  return new ResponseClass(JSON.stringify({ detail: `Method "${request.method}" not allowed.` }), {
    status: 405,
    headers: { 'content-type': 'application/json', allow: 'GET, HEAD' },
  });
}
