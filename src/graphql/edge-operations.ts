// GraphQL queries answered at the Node edge: a plain query (GET parameters or a JSON body, answered as JSON) is
// read from the raw node:http request and run through yoga's own envelop (parse and validation from its caches,
// the context, every execution plugin: limits, private fields, prepared photographers, graphql-jit, the read
// session, the deadline, the metrics), but not through yoga's HTTP layer: no fetch Request or Response, no
// request parser, no chain of onRequest, onParams, onResultProcess and onResponse hooks. On a small page that
// layer was a third of the server's CPU. What those hooks decide is decided here by the functions they call
// (src/graphql/edge-request.ts reads the request as yoga does; the budget, the response cache, the result's
// rendering, Vary and Cache-Control, compression, CORS, the log line), in their order, and test/graphql/edge-
// operations.test.ts holds every answer to the one yoga gives.
//
// Anything else goes to yoga: another method or media type, persisted queries (extensions), a batch, an API key
// that is not ours, GraphiQL, a document that does not parse or validate, an operation that is not a query, an
// execution that throws. A body read here is handed on with the request.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { type DocumentNode, getOperationAST } from 'graphql';
import { isAsyncIterable, processRegularResult, type YogaServerInstance } from 'graphql-yoga';
import type { KeptAtTheEdge } from '../cache/edge-hits.js';
import type { CacheNote, Pending, ResponseCache } from '../cache/response-cache.js';
import { LATE } from '../cache/version-reads.js';
import { NOT_SHARED, varyFor } from '../http/cache-headers.js';
import type { CallerOf } from '../http/callers.js';
import { compressedAnswer, varyWith } from '../http/compression.js';
import type { CorsPolicy } from '../http/cors.js';
import { postIsJson } from '../http/csrf.js';
import { type BeforeTheApp, readBody } from '../http/edge.js';
import { countAtTheEdge, type RequestBudget } from '../http/rate-limit.js';
import { jsonBody, nodeRequestHead, type RequestHead } from '../http/request-head.js';
import type { RecordRequest } from '../http/request-log.js';
import { asksForGraphiql, GRAPHQL_PATH } from '../http/routes.js';
import { requestContext } from '../logger.js';
import type { Context } from './context.js';
import { withOneUnavailable } from './database-errors.js';
import { type EdgeParams, getParams, postParams, regularMediaType } from './edge-request.js';
import { withClientErrors } from './limits.js';

/** What the edge takes of the app's yoga: its envelop, with the app's plugins. */
export type Enveloping = Pick<YogaServerInstance<Record<string, unknown>, Context>, 'getEnveloped'>;

export interface EdgeOperationOptions {
  /** The app's yoga, once made (it is made after the edge's parts). */
  yoga: () => Enveloping;
  /** The response cache's hits and keeping, where the cache is on. */
  cache: { kept: KeptAtTheEdge; responses: ResponseCache } | undefined;
  budget: RequestBudget | undefined;
  /** Who calls (asked once a request). */
  identify: CallerOf;
  cors: CorsPolicy;
  record: RecordRequest;
  /** Whether GraphiQL's page is served (a browser's GET /graphql gets it). */
  graphiql: boolean;
  /** The largest body read (MAX_BODY_BYTES; the edge refused larger ones already). */
  maxBodyBytes: number;
}

/** yoga's result processor writes into a Response; here it writes into this, which only holds what it was given. */
class Rendered {
  constructor(
    readonly body: string,
    readonly init: { status?: number; headers?: Record<string, string> },
  ) {}
}
const RENDERING = { Response: Rendered } as unknown as Parameters<typeof processRegularResult>[1];

/**
 * The request's body: read here (and handed on with the request should yoga answer after all), or as the edge
 * read a chunked one; null when the client left before sending it all (nobody is left to answer).
 */
async function bodyOf(request: IncomingMessage, limit: number): Promise<string | null> {
  const given = (request as { body?: unknown }).body;
  if (Buffer.isBuffer(given)) return given.toString('utf8');
  // Its length was checked against the limit already (src/http/edge.ts): a body is never larger than it says.
  const body = await readBody(request, limit).catch(() => null);
  if (body === null) return null;
  Object.assign(request, { body });
  return body.toString('utf8');
}

export function edgeOperations(options: EdgeOperationOptions): BeforeTheApp {
  const { cache, budget, identify, cors, record } = options;

  /** Runs the query through yoga's envelop; null where yoga must answer (and nothing has been executed). */
  async function execute(head: RequestHead, request: IncomingMessage, params: EdgeParams) {
    // The initial context as yoga makes it: the server's (node:http's request), the request and its parameters.
    const enveloped = options.yoga().getEnveloped({ req: request, request: head, params });
    let document: DocumentNode;
    try {
      document = enveloped.parse(params.query);
    } catch {
      return null; // a syntax error or too many tokens: yoga's refusal
    }
    if (enveloped.validate(enveloped.schema, document).length > 0) return null;
    if (getOperationAST(document, params.operationName)?.operation !== 'query') return null;
    const context = (await enveloped.contextFactory()) as unknown as Context;
    const result = await enveloped.execute({
      schema: enveloped.schema,
      document,
      contextValue: context,
      variableValues: params.variables,
      operationName: params.operationName,
    });
    return { result, note: context.cacheNote };
  }

  async function answer(
    request: IncomingMessage,
    response: ServerResponse,
    requestId: string,
    mediaType: NonNullable<ReturnType<typeof regularMediaType>>,
  ): Promise<boolean> {
    const started = performance.now();
    const head = nodeRequestHead(request);
    const caller = identify(head, { req: request });
    if (caller.graphql.kind === 'invalid') return false; // a key that is not ours: yoga's 401
    if (budget && !(await countAtTheEdge(budget, request, caller.rateKey)).allowed) return false;
    const body = head.method === 'POST' ? await bodyOf(request, options.maxBodyBytes) : undefined;
    if (body === null) return true; // the client left: nothing to answer
    const target = request.url ?? GRAPHQL_PATH;
    // A kept answer first: a persisted query asked by hash is one (its parameters are not those of a plain query).
    const found = cache && (await cache.kept.lookup(head, GRAPHQL_PATH, target, caller, body));
    // The version not read in time: the app answers, as it answers a kept v2 page's request then (one fallback).
    if (found === LATE) return false;
    if (found?.pending && found.kept) {
      const hit = { response, requestId, head, path: GRAPHQL_PATH, pending: found.pending, kept: found.kept };
      return cache?.kept.send({ ...hit, started, caller }) ?? false;
    }
    const params = body === undefined ? getParams(target.slice(target.indexOf('?') + 1)) : postParams(body);
    if (!params) return false;
    const operation = params.operationName?.slice(0, 100);
    let ran: Awaited<ReturnType<typeof execute>>;
    try {
      // What the execution logs carries the request's id, as in the app (src/logger.ts).
      ran = await requestContext.run({ requestId }, () => execute(head, request, params));
    } catch {
      ran = null; // thrown, not answered: yoga's error handling answers it
    }
    if (!ran || isAsyncIterable(ran.result)) return false;
    // The result as yoga's onResultProcess hooks leave it (in the app's plugin order), rendered as its regular
    // processor renders it.
    const result = withOneUnavailable(withClientErrors(ran.result as Parameters<typeof withClientErrors>[0]));
    const rendered = processRegularResult(result as never, RENDERING, mediaType) as unknown as Rendered;
    const status = rendered.init.status ?? 200;
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(rendered.init.headers ?? {})) headers[name.toLowerCase()] = value;
    // What the app's onResponse hooks add, in their order: CORS, then Vary and Cache-Control, then the cache
    // (which keeps the answer), then compression (of an answer not kept).
    if (cors.varyOrigin) headers.vary = varyWith(headers.vary, 'Origin');
    Object.assign(headers, cors.answerHeaders(head.headers.get('origin')));
    for (const name of varyFor(GRAPHQL_PATH, true, false)) headers.vary = varyWith(headers.vary, name);
    headers['cache-control'] ??= NOT_SHARED;
    let bytes: Uint8Array = Buffer.from(rendered.body);
    const made = found?.pending && (await keep(head, found.pending, ran.note, status, headers, bytes));
    let sent: { status: number; bytes: Uint8Array | undefined };
    if (made) sent = made;
    else {
      const compressed = await compressedAnswer(head, headers['content-type'] ?? '', status, bytes);
      if (compressed.vary) headers.vary = varyWith(headers.vary, 'Accept-Encoding');
      if (compressed.encoding) headers['content-encoding'] = compressed.encoding;
      bytes = compressed.body;
      headers['content-length'] = String(bytes.byteLength);
      sent = { status, bytes };
    }
    response.writeHead(sent.status, { 'x-request-id': requestId, ...headers });
    response.end(sent.bytes);
    const seconds = (performance.now() - started) / 1000;
    record({ method: head.method, path: GRAPHQL_PATH, status: sent.status, seconds, operation, requestId, caller });
    return true;
  }

  /** Keeps the answer where the cache may, and writes its headers as the cache sends a miss: null where not kept. */
  async function keep(
    head: RequestHead,
    pending: Pending,
    note: CacheNote,
    status: number,
    headers: Record<string, string>,
    bytes: Uint8Array,
  ): Promise<{ status: number; bytes: Uint8Array | undefined } | null> {
    const responses = cache?.responses;
    const made = responses && (await responses.keep(head, pending, note, status, headers, () => bytes));
    if (!responses || !made) return null;
    const sent = responses.represent(head, GRAPHQL_PATH, made.pending, made.answer, made.base, 'miss');
    responses.answered(GRAPHQL_PATH, 'miss');
    for (const name of Object.keys(headers)) delete headers[name];
    Object.assign(headers, sent.headers);
    if (!sent.body) return { status: sent.status, bytes: undefined };
    const body = sent.encoding
      ? await responses.store.encoded(made.pending.key, made.answer, sent.encoding)
      : made.answer.body;
    headers['content-length'] = String(body.byteLength);
    return { status: sent.status, bytes: body };
  }

  return (request, response, requestId, { path }) => {
    if (path !== GRAPHQL_PATH || (request.method !== 'GET' && request.method !== 'POST')) return false;
    const { headers } = request;
    if (request.method === 'POST' && !(jsonBody(headers['content-type']) && postIsJson(headers['content-type']))) {
      return false;
    }
    if (request.method === 'GET' && options.graphiql && asksForGraphiql('GET', headers.accept)) return false;
    const mediaType = regularMediaType(headers.accept);
    if (!mediaType) return false;
    return answer(request, response, requestId, mediaType);
  };
}
