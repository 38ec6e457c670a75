// What every answer tells the caches between it and its client (RFC 9111). Only the response cache
// (src/cache/response-cache.ts) may call an answer shareable: an anonymous answer it keeps, with `CACHE_CONTROL`
// and the Surrogate headers a CDN files it under. Every other answer, of every route (errors, refusals, streams,
// answers drawn at random, answers for an API key that were not kept), is `private, no-store`: what the gateway
// does not keep, no shared cache may keep either, since no purge would ever reach it.
//
// `Vary` names each request header an answer of a route depends on, so a cache never hands one client's
// representation to another: the GraphQL door negotiates its media type from Accept (JSON, GraphQL-over-HTTP,
// multipart, event streams) and its answer from Authorization (private fields, scopes, a 401 for an unknown key);
// the v2 view negotiates from Accept (its own Vary, from DRF) and from Authorization where V2_API_KEYS is set.
// Accept-Encoding is added where the answer is compressible (src/http/compression.ts).
import type { Plugin } from 'graphql-yoga';
import { addVary } from './compression.js';
import { GRAPHQL_PATH, LISTING_PATH } from './routes.js';

/** Cache-Control of every answer no shared cache may keep. */
export const NOT_SHARED = 'private, no-store';

/**
 * The request headers an answer of the route depends on, besides Accept-Encoding and what the route says itself:
 * the v2 view's answers already say `Vary: Accept` (DRF's), Django's own pages (404, 400) depend on nothing.
 */
export function varyFor(pathname: string, varies: boolean, v2KeysRequired: boolean): readonly string[] {
  if (pathname === GRAPHQL_PATH) return ['Accept', 'Authorization'];
  if (pathname === LISTING_PATH && v2KeysRequired && varies) return ['Authorization'];
  return [];
}

/**
 * Before the response cache, so that the answers it keeps carry this Vary, and it replaces the Cache-Control of
 * those it shares; every answer without one of its own leaves as NOT_SHARED.
 */
export function cacheHeaders(options: { v2KeysRequired: boolean }): Plugin {
  return {
    onResponse({ request, response }) {
      const { headers } = response;
      const names = varyFor(new URL(request.url).pathname, headers.has('vary'), options.v2KeysRequired);
      for (const name of names) addVary(headers, name);
      if (!headers.has('cache-control')) headers.set('cache-control', NOT_SHARED);
    },
  };
}
