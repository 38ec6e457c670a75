// An API key that is not one of ours gets 401 on /graphql at once, rather than an anonymous answer: a client
// with a mistyped or revoked key should learn it, not wonder why the private fields are null.
// (The v2 path checks its own keys, V2_API_KEYS, in the order DRF would: see src/rest/endpoint.ts.)
import type { Plugin } from 'graphql-yoga';
import type { Caller, ServerContext } from './callers.js';
import { refusalResponse } from './refusals.js';
import { GRAPHQL_PATH } from './routes.js';

export function rejectUnknownKeys(callerOf: (request: Request, server?: ServerContext) => Caller): Plugin {
  return {
    onRequest({ request, url, serverContext, fetchAPI, endResponse }) {
      if (url.pathname !== GRAPHQL_PATH || request.method === 'OPTIONS') return;
      if (callerOf(request, serverContext as ServerContext).graphql.kind !== 'invalid') return;
      endResponse(
        refusalResponse(fetchAPI.Response, request, url.pathname, {
          status: 401,
          code: 'UNAUTHENTICATED',
          message: 'The API key is not valid. Send Authorization: Bearer <key> with a configured key, or no key.',
          headers: { 'www-authenticate': 'Bearer realm="listing"' },
        }),
      );
    },
  };
}
