// CORS for browser frontends, on /graphql only (the v2 path answers OPTIONS with DRF's metadata, as the legacy
// view did; the other routes are for operators). Written here rather than taken from @whatwg-node/server, whose
// `*` reflects the caller's origin: a literal `*` on every answer, asked from a site or not, keeps one cacheable
// answer for every caller (no Vary: Origin), and credentials are allowed only to the origins listed in
// CORS_ORIGINS, never to any site that asks. With a list, every answer says `Vary: Origin`, the one without an
// Origin too: a shared cache must not hand an answer without the site's allowance to that site.
import type { Plugin } from 'graphql-yoga';
import { addVary } from './compression.js';
import { GRAPHQL_PATH } from './routes.js';

const ALLOW_METHODS = 'GET, POST, OPTIONS';
const ALLOW_HEADERS = 'Authorization, Content-Type, Accept, If-None-Match, X-Request-Id';
const EXPOSE_HEADERS = 'ETag, Retry-After, X-Request-Id';

/** What CORS adds to an answer of /graphql, for the request's Origin. */
export interface CorsPolicy {
  /** Whether every answer says `Vary: Origin` (with a list of origins: the allowance depends on it). */
  varyOrigin: boolean;
  /** The Access-Control headers of an answer (the preflight's too) to a request from `origin` (null: none sent). */
  answerHeaders(origin: string | null): Readonly<Record<string, string>> | null;
}

/**
 * `origins`: ['*'] for any site without credentials, or the exact origins allowed, with credentials; [] for none
 * (production without CORS_ORIGINS, which a server start refuses: src/start-checks.ts).
 */
export function corsPolicy(origins: readonly string[]): CorsPolicy {
  const anyOrigin = origins.length === 1 && origins[0] === '*';
  const allowed = new Set(origins);
  const any = Object.freeze({ 'access-control-allow-origin': '*', 'access-control-expose-headers': EXPOSE_HEADERS });
  return {
    varyOrigin: !anyOrigin,
    answerHeaders(origin) {
      if (anyOrigin) return any;
      if (origin === null || !allowed.has(origin)) return null;
      return {
        'access-control-allow-origin': origin,
        'access-control-allow-credentials': 'true',
        'access-control-expose-headers': EXPOSE_HEADERS,
      };
    },
  };
}

export function cors(policy: CorsPolicy): Plugin {
  return {
    onRequest({ request, url, fetchAPI, endResponse }) {
      if (url.pathname !== GRAPHQL_PATH || request.method !== 'OPTIONS') return;
      const origin = request.headers.get('origin');
      const headers = origin === null ? null : policy.answerHeaders(origin);
      endResponse(
        new fetchAPI.Response(null, {
          status: 204,
          headers: {
            'content-length': '0',
            ...(headers && {
              ...headers,
              'access-control-allow-methods': ALLOW_METHODS,
              'access-control-allow-headers': ALLOW_HEADERS,
              'access-control-max-age': '600',
            }),
          },
        }),
      );
    },
    onResponse({ request, response }) {
      if (new URL(request.url).pathname !== GRAPHQL_PATH) return;
      if (policy.varyOrigin) addVary(response.headers, 'Origin');
      const headers = policy.answerHeaders(request.headers.get('origin'));
      if (!headers) return;
      for (const [name, value] of Object.entries(headers)) response.headers.set(name, value);
    },
  };
}
