// What the edge's guards and the response cache read of a request: its method and headers. A fetch Request is
// one; so is a node:http request seen through `nodeRequestHead`, which lets a kept answer be found and sent at
// the Node edge (src/cache/edge-hits.ts) with the same functions the app's plugins use.
import type { IncomingMessage } from 'node:http';

export interface RequestHead {
  method: string;
  headers: { get(name: string): string | null };
}

/** A node:http request as a RequestHead: repeated headers joined as node:http and the fetch API join them. */
export function nodeRequestHead(request: IncomingMessage): RequestHead {
  const { headers } = request;
  return {
    method: request.method ?? 'GET',
    headers: {
      get(name) {
        const value = headers[name];
        return value === undefined ? null : Array.isArray(value) ? value.join(', ') : value;
      },
    },
  };
}

/**
 * Whether yoga reads a POST with this Content-Type as JSON (its parser's test: the first of a list, as written):
 * the Node edge runs no other, and the response cache keeps no other (yoga refuses the rest, 415).
 */
export function jsonBody(contentType: string | null | undefined): boolean {
  const first = contentType?.split(',')[0];
  return ['application/json', 'application/graphql+json'].some(
    (type) => first === type || first?.startsWith(`${type};`) === true,
  );
}
