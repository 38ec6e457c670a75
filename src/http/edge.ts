// The Node side of every request, before the app sees it. The fetch Request the app works with is built from
// the Host header and the request target, so both are checked here first:
// - Host must be a host name or IP address with an optional port: anything else (`a b`, `x/metrics?`, `[`)
//   gets 400, where it would otherwise throw while the URL is built (a 500) or, worse, smuggle a path into the
//   URL (`Host: x/metrics?` turning GET /v2/... into GET /metrics behind a proxy that filters by path).
// - The target routes as Django routed the legacy service: its path must be exactly one of the service's paths,
//   percent-decoded for the legacy v2 path only (`/v2/local%2Dpackage-list/` is the listing, `/%6Detrics` is no
//   path of ours; nor are `/v2/./local-package-list/`, `//metrics` and `/v2/../metrics`), and any other path
//   gets Django's 404 page. A raw `#` is part of the
//   query, as Django reads it (`?seed=7#` is the seed "7#"). The app then sees the route's own path, so no URL
//   parser can turn the target into another route. An absolute-form target is read as its path.
// - A body larger than MAX_BODY_BYTES gets 413 (known from Content-Length at once, or as soon as a chunked
//   body passes the limit): the rest is read and dropped, so an oversized document is never buffered, let
//   alone parsed, and the answer closes the connection. A compressed body gets 415: inflating it would undo
//   the size limit.
// - A request on a connection past its address's bound (MAX_CONNECTIONS_PER_ADDRESS, src/http/sockets.ts) gets
//   429, its body read and dropped alike.
// Each answer given here is logged and counted as the app's are (`record`, src/http/request-log.ts): a path of
// none of ours under the route label "other".
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { requestContext } from '../logger.js';
import { NOT_SHARED } from './cache-headers.js';
import { DJANGO_PAGE_HEADERS, NOT_FOUND_PAGE } from './django-pages.js';
import { UNEXPECTED } from './masked-errors.js';
import { type Refusal, refusalBody } from './refusals.js';
import { nodeRequestHead } from './request-head.js';
import { loggedPath, type RecordRequest } from './request-log.js';
import { GRAPHQL_PATH, LISTING_PATH, LISTING_PATH_WITHOUT_SLASH, ROUTED_PATHS } from './routes.js';

const LEGACY_PATHS: ReadonlySet<string> = new Set([LISTING_PATH, LISTING_PATH_WITHOUT_SLASH]);

const HOST =
  /^(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*\.?|\[[0-9A-Fa-f:.]+\])(?::(\d{1,5}))?$/;

export function validHost(host: string | undefined): boolean {
  if (host === undefined) return false;
  const match = HOST.exec(host);
  return match !== null && (match[1] === undefined || Number(match[1]) <= 65535);
}

export interface Target {
  /** One of ROUTED_PATHS. */
  path: string;
  /** The query as received, without its `?`; null when the target has none. */
  query: string | null;
}

/** The route a request target leads to, with its query as received; null when it leads to none of ours. */
export function resolveTarget(target: string | undefined): Target | null {
  if (!target) return null;
  let pathAndQuery = target;
  if (!target.startsWith('/')) {
    // absolute-form (`GET http://host/path`), as proxies may send: the path is what routes.
    const scheme = /^https?:\/\/[^/?#]*/i.exec(target);
    if (!scheme) return null;
    pathAndQuery = target.slice(scheme[0].length) || '/';
  }
  const mark = pathAndQuery.indexOf('?');
  const rawPath = mark < 0 ? pathAndQuery : pathAndQuery.slice(0, mark);
  const path = ROUTED_PATHS.has(rawPath) ? rawPath : legacyPath(rawPath);
  if (path === null) return null;
  return { path, query: mark < 0 ? null : pathAndQuery.slice(mark + 1) };
}

/**
 * The legacy v2 path a percent-encoded target names, as Django decoded it; null for any other. Only the v2 path
 * is decoded: every other route matches its raw path, so `/%6Detrics` is no way around a proxy rule that hides
 * `/metrics` by path.
 */
function legacyPath(rawPath: string): string | null {
  let path: string;
  try {
    path = decodeURIComponent(rawPath);
  } catch {
    return null; // a malformed escape: no path of ours has one
  }
  return LEGACY_PATHS.has(path) ? path : null;
}

/** The target the app is given: the route's path and the query, a raw `#` kept as part of it. */
const appTarget = ({ path, query }: Target) => (query === null ? path : `${path}?${query.replaceAll('#', '%23')}`);

/** The query string of each request as the client sent it (for Django's APPEND_SLASH redirect). */
const receivedQueries = new WeakMap<object, string | null>();

/** The query of a request as received (null: none), for the redirect that must copy it exactly. */
export function receivedQuery(request: object): string | null | undefined {
  return receivedQueries.get(request);
}

function notFound(request: IncomingMessage, response: ServerResponse): void {
  response.writeHead(404, {
    ...DJANGO_PAGE_HEADERS,
    'cache-control': NOT_SHARED,
    'content-length': Buffer.byteLength(NOT_FOUND_PAGE),
  });
  response.end(request.method === 'HEAD' ? undefined : NOT_FOUND_PAGE);
}

/**
 * Records an answer given here once it is sent (a refused body is read first): its route, or the path of a target
 * that is none of ours as a log line may show it. Nothing is recorded when the client left before any answer.
 */
function recordWhenSent(
  record: RecordRequest,
  request: IncomingMessage,
  response: ServerResponse,
  requestId: string,
  arrived: number,
): void {
  response.once('close', () => {
    if (!response.headersSent) return;
    const target = request.url ?? '';
    record({
      method: request.method ?? 'GET',
      path: resolveTarget(target)?.path ?? loggedPath(target),
      status: response.statusCode,
      seconds: (performance.now() - arrived) / 1000,
      requestId,
      from: { head: nodeRequestHead(request), server: { req: request } },
    });
  });
}

/** Answers and closes the connection. */
function refuse(request: IncomingMessage, response: ServerResponse, pathname: string, refusal: Refusal): void {
  const { body, headers } = refusalBody(pathname, refusal);
  response.writeHead(refusal.status, {
    ...headers,
    'content-length': Buffer.byteLength(body),
    connection: 'close',
  });
  response.end(request.method === 'HEAD' ? undefined : body);
}

/** How long the rest of a refused body is read (and dropped) before the answer goes out regardless. */
const LINGER_MS = 2000;

/**
 * Refuses a request whose body is still arriving: the rest is read and dropped, never kept, for at most
 * LINGER_MS, then the answer goes out with `Connection: close`. Answered earlier, the connection would either
 * stay open while the server is still reading a body it refused (a client reusing it got a reset), or be
 * closed with unread data, which resets it and can lose the answer.
 */
function refuseWhileReceiving(
  request: IncomingMessage,
  response: ServerResponse,
  pathname: string,
  refusal: Refusal,
): void {
  const answer = () => {
    clearTimeout(cut);
    if (!response.headersSent && !response.destroyed) refuse(request, response, pathname, refusal);
  };
  const cut = setTimeout(answer, LINGER_MS);
  cut.unref();
  request.once('end', answer);
  request.once('close', () => clearTimeout(cut));
  request.resume();
}

const badRequest = (message: string): Refusal => ({ status: 400, code: 'BAD_REQUEST', message });

/** Reads the body up to `limit` bytes; null when it is larger (the rest is not read); rejects if the client left. */
export function readBody(request: IncomingMessage, limit: number): Promise<Buffer | null> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        request.off('data', onData);
        request.pause();
        resolve(null);
        return;
      }
      chunks.push(chunk);
    };
    let ended = false;
    request.on('data', onData);
    request.once('end', () => {
      ended = true;
      resolve(Buffer.concat(chunks));
    });
    request.once('error', reject);
    // Closed before its end: the client left with its body unsent ('close' follows every request's end too).
    request.once('close', () => {
      if (!ended) reject(new Error('the client left before its body was read'));
    });
  });
}

/**
 * Answers a request before the app does (a kept answer sent at the edge: src/cache/edge-hits.ts), resolving true
 * once it has; false (nothing written) leaves it to the app.
 */
export type BeforeTheApp = (
  request: IncomingMessage,
  response: ServerResponse,
  requestId: string,
  target: Target,
) => false | Promise<boolean>;

export interface EdgeOptions {
  maxBodyBytes: number;
  /** Tried once the request has passed the edge's checks, before the app. */
  beforeTheApp?: BeforeTheApp | undefined;
  /** Take the request id from X-Request-Id (set by a trusted proxy); otherwise one is made here. */
  trustProxy: boolean;
  /** The refusal of a request on a connection past its address's bound (src/http/sockets.ts), or null. */
  refuseConnection?: (request: IncomingMessage) => Refusal | null;
  /** Told of an error thrown while a request was handled (then answered a masked 500, or by the app). */
  onFault?: ((error: unknown, requestId: string) => void) | undefined;
  /** Logs and counts the answers given here (404, refusals), as the app's requestRecorder does its own. */
  record?: RecordRequest | undefined;
}

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** The request's id: the proxy's where it is trusted and well-formed, else a new one. */
export function requestIdFor(request: IncomingMessage, trustProxy: boolean): string {
  const given = request.headers['x-request-id'];
  return trustProxy && typeof given === 'string' && REQUEST_ID.test(given) ? given : randomUUID();
}

type NodeHandler = (request: IncomingMessage, response: ServerResponse) => unknown;

/**
 * What is left to do when handling a request threw: told to `onFault` (logged with its request id), then a masked
 * 500 where nothing was written yet, or the connection ended where an answer was under way. Never a rejection
 * left unhandled: one would end the process.
 */
function answerFault(
  request: IncomingMessage,
  response: ServerResponse,
  requestId: string,
  error: unknown,
  onFault: EdgeOptions['onFault'],
): void {
  try {
    onFault?.(error, requestId);
  } catch {
    // a fault of the fault's report: the request is still answered below
  }
  if (response.headersSent || response.destroyed) {
    response.destroy();
    return;
  }
  const { body, headers } = refusalBody(resolveTarget(request.url)?.path ?? '', UNEXPECTED);
  response.writeHead(UNEXPECTED.status, {
    ...headers,
    'x-request-id': requestId,
    'content-length': Buffer.byteLength(body),
  });
  response.end(request.method === 'HEAD' ? undefined : body);
}

/** Calls `step`, a throw or a rejection given to `fault`: whatever it returns, nothing it does can go unhandled. */
function guarded<T>(
  step: () => T | Promise<T>,
  fault: (error: unknown) => void,
): Promise<T | undefined> | T | undefined {
  try {
    const result = step();
    return result instanceof Promise ? result.catch((error: unknown) => void fault(error)) : result;
  } catch (error) {
    fault(error);
    return undefined;
  }
}

/** Wraps the app's Node handler with the checks above, and gives each request an id (X-Request-Id). */
export function guardEdge(app: NodeHandler, options: EdgeOptions): NodeHandler {
  // Made once, not per request: a cached answer's request allocates little more than its one promise.
  const toApp = (request: IncomingMessage, response: ServerResponse, requestId: string) => {
    if (response.headersSent || response.destroyed) return;
    response.setHeader('x-request-id', requestId);
    return guarded(
      () => requestContext.run({ requestId }, () => app(request, response)),
      (error) => answerFault(request, response, requestId, error, options.onFault),
    );
  };
  // A throw at the edge before anything was written leaves the request to the app, which answers it with its
  // own rules (yoga masks what it cannot answer); once an answer is under way, the connection is ended.
  const edgeFault = (request: IncomingMessage, response: ServerResponse, requestId: string, error: unknown) => {
    try {
      options.onFault?.(error, requestId);
    } catch {
      // a fault of the fault's report: the request is still answered
    }
    if (response.headersSent && !response.destroyed) response.destroy();
    return toApp(request, response, requestId);
  };
  // One promise a request answered at the edge (a hit costs little else): its rejection handled where it is made.
  const first = (request: IncomingMessage, response: ServerResponse, requestId: string, target: Target): unknown => {
    let early: false | Promise<boolean>;
    try {
      early = options.beforeTheApp?.(request, response, requestId, target) ?? false;
    } catch (error) {
      return edgeFault(request, response, requestId, error);
    }
    if (early === false) return toApp(request, response, requestId);
    return early.then(
      (answered) => (answered ? undefined : toApp(request, response, requestId)),
      (error: unknown) => edgeFault(request, response, requestId, error),
    );
  };
  return (request, response) => {
    const arrived = performance.now();
    const requestId = requestIdFor(request, options.trustProxy);
    try {
      const target = passes(options, request, response, requestId, arrived);
      if (target === null) return;
      if (!(target instanceof Promise)) return first(request, response, requestId, target);
      return target
        .then((read) => read && first(request, response, requestId, read))
        .catch((error: unknown) => answerFault(request, response, requestId, error, options.onFault));
    } catch (error) {
      answerFault(request, response, requestId, error, options.onFault);
      return undefined;
    }
  };
}

/**
 * The request's route once it has passed the checks above (a promise when a chunked body had to be read first,
 * false if it was then refused), or null when it was answered here.
 */
function passes(
  { maxBodyBytes, refuseConnection, record }: EdgeOptions,
  request: IncomingMessage,
  response: ServerResponse,
  requestId: string,
  arrived: number,
): Target | Promise<Target | false> | null {
  /** Answered here: with the request id, as every answer, and recorded once sent. */
  const refused = (answer: () => void) => {
    response.setHeader('x-request-id', requestId);
    if (record) recordWhenSent(record, request, response, requestId, arrived);
    answer();
    return null;
  };
  const tooMany = refuseConnection?.(request);
  if (tooMany) {
    return refused(() => refuseWhileReceiving(request, response, resolveTarget(request.url)?.path ?? '', tooMany));
  }
  if (!validHost(request.headers.host)) {
    const path = resolveTarget(request.url)?.path ?? '';
    return refused(() => refuse(request, response, path, badRequest('Malformed Host header.')));
  }
  const target = resolveTarget(request.url);
  if (target === null) return refused(() => notFound(request, response));
  const pathname = target.path;
  // Only the redirect to the slashed path copies the query exactly as received.
  if (pathname === LISTING_PATH_WITHOUT_SLASH) receivedQueries.set(request, target.query);
  request.url = appTarget(target);

  const tooLarge: Refusal = {
    status: 413,
    code: 'PAYLOAD_TOO_LARGE',
    message: `The request body is larger than ${maxBodyBytes} bytes, the limit.`,
  };
  const declared = Number(request.headers['content-length'] ?? 0);
  if (declared > maxBodyBytes) return refused(() => refuseWhileReceiving(request, response, pathname, tooLarge));
  const coding = request.headers['content-encoding']?.trim().toLowerCase();
  if (pathname === GRAPHQL_PATH && coding && coding !== 'identity') {
    return refused(() =>
      refuseWhileReceiving(request, response, pathname, {
        status: 415,
        code: 'UNSUPPORTED_MEDIA_TYPE',
        message: `Send the request body uncompressed: Content-Encoding ${JSON.stringify(coding)} is not accepted.`,
        headers: { 'accept-encoding': 'identity' },
      }),
    );
  }
  if (request.method !== 'GET' && request.method !== 'HEAD' && request.headers['transfer-encoding']) {
    // A chunked body's size is known only as it arrives: read it here, within the limit, and hand it on.
    return readBody(request, maxBodyBytes)
      .catch(() => null)
      .then((body) => {
        if (body === null) return refused(() => refuseWhileReceiving(request, response, pathname, tooLarge)) ?? false;
        Object.assign(request, { body });
        return target;
      });
  }
  return target;
}
