// The comparison of the edge's differential tests (test/graphql/edge-operations.test.ts, test/cache/edge-hits.test.ts,
// test/edge/settings-matrix.test.ts): one request asked of the server answering at the edge and of the one leaving
// every request to yoga (test/helpers/edge-pair.ts), whose answers must be the same status, headers (but those of
// the request or the connection) and bytes.
import { expect } from 'vitest';
import { type Exchange, type ServedApp, send } from './http-server.js';

export interface Ask {
  method?: string;
  path?: string;
  headers?: Record<string, string>;
  body?: string;
  /** No seed given: each answer draws its own order, so only its status and headers but the length compare. */
  drawn?: boolean;
}

/** The request (a POST to /graphql unless told otherwise) with exactly these headers. */
export const ask = (server: ServedApp, { method = 'POST', path = '/graphql', headers = {}, body }: Ask) =>
  send(server.url, { method, path, headers, ...(body === undefined ? {} : { body }) });

/** What must be the same: status, headers but the per-request and per-connection ones, and the bytes. */
export function comparable({ status, headers, body }: Exchange, drawn = false) {
  const { date: _d, 'x-request-id': _id, connection: _c, 'keep-alive': _k, ...rest } = headers;
  if (drawn) {
    // Each side draws its own seed from the pool: one may draw a page it kept already (a hit) where the other's is new.
    const { 'content-length': _l, etag: _e, 'surrogate-key': _s, 'cache-tag': _t, 'x-cache': _x, ...shape } = rest;
    return { status, headers: shape, body: JSON.parse(body.toString()).data ? 'data' : 'no data' };
  }
  return { status, headers: rest, body: body.toString('base64') };
}

/** The request as a failure names it. */
export const described = (request: Ask) =>
  `${request.method ?? 'POST'} ${request.path ?? '/graphql'} ${JSON.stringify(request.headers)} ${request.body?.slice(0, 200)}`;

/** The answer, or a failure naming the request after 10 s. */
export const inTime = <T>(answer: Promise<T>, who: string, request: Ask) =>
  Promise.race([
    answer,
    new Promise<never>((_, reject) =>
      setTimeout(() => reject(new Error(`${who} did not answer ${described(request)}`)), 10_000),
    ),
  ]);

/** Asks both the same request; their answers must be the same. Returns the edge's. */
export async function same(both: { edge: ServedApp; app: ServedApp }, request: Ask): Promise<Exchange> {
  const fromEdge = await inTime(ask(both.edge, request), 'the edge', request);
  const fromApp = await inTime(ask(both.app, request), 'yoga', request);
  expect(comparable(fromEdge, request.drawn), described(request)).toEqual(comparable(fromApp, request.drawn));
  return fromEdge;
}
