// Who is calling: the API key a request carries (checked once per request) and the client's address. The
// address is the socket's peer; X-Forwarded-For is read only with TRUST_PROXY, and then its LAST entry, the
// one the trusted proxy itself appended (earlier entries are whatever the client chose to send).
import type { ApiKey, Credential } from '../api-keys.js';
import { identify } from '../api-keys.js';
import type { RequestHead } from './request-head.js';

export interface Caller {
  /** The key checked against API_KEYS (GraphQL scopes). */
  graphql: Credential;
  /** The key checked against V2_API_KEYS; null when the v2 path is open. */
  v2: Credential | null;
  address: string;
  /** Rate limits count per key where there is a valid one, else per address. */
  rateKey: string;
}

/** What yoga passes as server context under node:http (`req`), or a test's stand-in. */
export interface ServerContext {
  req?: { socket?: { remoteAddress?: string } };
  clientAddress?: string;
}

export interface CallerOptions {
  /**
   * Read at every call, never copied: a keys file's reload replaces the list's contents in place (src/api-keys.ts),
   * and the next request is checked against the new keys, at both doors and for the response cache's scopes.
   */
  apiKeys: readonly ApiKey[];
  v2ApiKeys: readonly ApiKey[] | undefined;
  trustProxy: boolean;
}

/** Who calls, from a request's headers (a fetch Request, or a node:http one at the edge) and its connection. */
export type CallerOf = (request: RequestHead, server?: ServerContext) => Caller;

/** Who calls, found anew at each call (the edge asks once a request). */
export function identifyCaller(options: CallerOptions): CallerOf {
  return (request, server) => {
    const authorization = request.headers.get('authorization');
    const graphql = identify(authorization, options.apiKeys);
    const v2 = options.v2ApiKeys ? identify(authorization, options.v2ApiKeys) : null;
    const address = clientAddress(request, server, options.trustProxy);
    const name = keyName({ graphql, v2 });
    return { graphql, v2, address, rateKey: name ? `key:${name}` : `ip:${address}` };
  };
}

/** The name of the valid key a caller presented (API_KEYS first, then V2_API_KEYS): rate limits and log lines. */
export function keyName({ graphql, v2 }: Pick<Caller, 'graphql' | 'v2'>): string | undefined {
  return graphql.kind === 'key' ? graphql.key.name : v2?.kind === 'key' ? v2.key.name : undefined;
}

/** Who calls, found once per request (the app's plugins ask again and again). */
export function callerIdentity(options: CallerOptions): CallerOf {
  const known = new WeakMap<RequestHead, Caller>();
  const identifyNow = identifyCaller(options);
  return (request, server) => {
    let caller = known.get(request);
    if (!caller) {
      caller = identifyNow(request, server);
      known.set(request, caller);
    }
    return caller;
  };
}

function clientAddress(request: RequestHead, server: ServerContext | undefined, trustProxy: boolean): string {
  if (trustProxy) {
    const forwarded = request.headers.get('x-forwarded-for')?.split(',').pop()?.trim();
    if (forwarded) return forwarded;
  }
  return server?.clientAddress ?? server?.req?.socket?.remoteAddress ?? 'unknown';
}
