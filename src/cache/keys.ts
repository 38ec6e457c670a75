// What a cached answer depends on, besides the listing version: everything in the request that can change it.
// A v2 page: its query string, the Accept header (absent and empty are not the same: an empty one is refused
// with 406), the caller's access (when V2_API_KEYS is set) and the public address its next/previous links are
// built on (behind a trusted proxy, the forwarded host and scheme). A GraphQL answer: its query string or POST
// body, the Accept header and the caller's scopes. A v2 GET and HEAD share a key; other methods are never cached.
import type { Caller } from '../http/callers.js';
import { GRAPHQL_PATH, LISTING_PATH } from '../http/routes.js';

/** The caller's part of the key: what they may see. */
export function scopeOf(caller: Caller, path: string, v2KeysRequired: boolean): string {
  if (path === LISTING_PATH) return v2KeysRequired ? `v2:${caller.v2?.kind ?? 'none'}` : 'v2';
  const credential = caller.graphql;
  return credential.kind === 'key' ? `key:${[...credential.key.scopes].sort().join(',')}` : credential.kind;
}

/** Anonymous answers may be kept by shared caches; answers for a key may not. */
export const isAnonymous = (scope: string) => scope === 'anonymous' || scope === 'v2';

/** What identifies the answer (as JSON text), besides the version; null for requests that are not cached. */
export async function requestKey(
  request: Request,
  url: URL,
  scope: string,
  publicBase: (request: Request) => string,
): Promise<string | null> {
  const accept = request.headers.get('accept');
  const read = request.method === 'GET' || request.method === 'HEAD';
  if (url.pathname === LISTING_PATH) {
    // Without a seed the order is chosen at random: another order on each request.
    if (!read || !url.searchParams.has('seed')) return null;
    return JSON.stringify(['v2', url.search, accept, scope, publicBase(request)]);
  }
  if (url.pathname !== GRAPHQL_PATH) return null;
  // GraphQL over GET only: HEAD is no GraphQL method (405), so a kept GET answer must not stand for it.
  if (request.method === 'GET') {
    // A query or a persisted operation's hash; neither: GraphiQL's page.
    if (!url.searchParams.has('query') && !url.searchParams.has('extensions')) return null;
    return JSON.stringify(['graphql', url.search, accept, scope]);
  }
  if (request.method !== 'POST') return null;
  return JSON.stringify(['graphql-post', await request.clone().text(), accept, scope]);
}
