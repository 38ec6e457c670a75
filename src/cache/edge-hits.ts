// Cache hits sent at the Node edge: a request whose answer is kept (in this process's memory, or in Redis) is
// answered from the raw node:http request, before yoga builds its fetch Request, runs its plugins and writes its
// Response: the v2 door's GETs here, the GraphQL door's through src/graphql/edge-operations.ts. A hit then
// costs about what its bytes cost (a version read shared with the requests arriving beside it, a key, one
// writeHead and one write), as Varnish and nginx answer a hit without the backend. It is the answer the app's
// path gives (test/cache/edge-hits.test.ts compares them): the same decisions, made by the same functions, in
// the same order as the app's plugins make them (src/app.ts): the request budget, the key and its version, the
// kept answer's representation (ETag, 304, coding), CORS and Vary, the access log line and the metrics.
//
// Anything else goes to the app, which answers as it always has: a method other than GET, a request with a
// body or an API key, a coding not yet made, and every miss. A request counted against its budget here is not
// counted again there.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Caller, CallerOf } from '../http/callers.js';
import type { CorsPolicy } from '../http/cors.js';
import type { BeforeTheApp } from '../http/edge.js';
import { countAtTheEdge, type RequestBudget } from '../http/rate-limit.js';
import { nodeRequestHead, type RequestHead } from '../http/request-head.js';
import type { RecordRequest } from '../http/request-log.js';
import { asksForGraphiql, GRAPHQL_PATH, LISTING_PATH } from '../http/routes.js';
import { inSpan, tracingOn } from '../tracing.js';
import type { Answer, InMemory } from './answers.js';
import type { Pending, ResponseCache } from './response-cache.js';
import { LATE } from './version-reads.js';

export interface EdgeHitOptions {
  cache: ResponseCache;
  /** The request budget (RATE_LIMIT), undefined when off. */
  budget: RequestBudget | undefined;
  /** Who calls (not remembered per request: the edge asks once). */
  identify: CallerOf;
  cors: CorsPolicy;
  record: RecordRequest;
  /** Whether GraphiQL's page is served (it is the answer to a browser's GET /graphql, never a kept one). */
  graphiql: boolean;
}

/** The answer kept in this process's memory, or in Redis (then kept in memory too). */
async function keptFor(cache: ResponseCache, key: string): Promise<InMemory | undefined> {
  return cache.store.peek(key) ?? ((await cache.store.get(key)) ? cache.store.peek(key) : undefined);
}

/** The lookup as a span of the request's trace, as the app's path records it. */
const tracedLookup = (cache: ResponseCache, key: string) =>
  inSpan('cache lookup', {}, async (span) => {
    const kept = await keptFor(cache, key);
    span?.setAttribute('cache.result', kept ? 'hit' : 'miss');
    return kept;
  });

/**
 * How long the edge waits for the listing's version (a healthy database answers in a millisecond or two): past it
 * the app answers, with its own wait and its own refusals, so that a struggling database costs a request the app's
 * bounds (its 503 within the statement timeout), not those plus the edge's.
 */
const VERSION_WAIT_MS = 250;

/** Where to look for URL's parts: the search of a path is the same on any origin. */
const ORIGIN = 'http://edge.invalid';

/** A hit's status, headers (but the request id and CORS: flat, name and value) and body, made once per variant. */
interface PreparedHit {
  status: number;
  headers: string[];
  body: Uint8Array | undefined;
}

/** Variants kept per answer (a client's Accept-Encoding and If-None-Match): past it, heads are made per request. */
const VARIANTS = 16;
/** The longest variant kept (the headers' text): a hit's head costs its few hundred bytes, never a client's kilobytes. */
const MAX_VARIANT = 256;

/** Kept answers looked up and sent at the Node edge; the GraphQL door's edge (src/graphql/edge-operations.ts) too. */
export interface KeptAtTheEdge {
  /**
   * What the request's answer is kept under (null: it is not kept), and the answer if this process holds it;
   * LATE when the listing's version was not read within VERSION_WAIT_MS (the app then answers the request).
   */
  lookup(
    head: RequestHead,
    path: string,
    target: string,
    caller: Caller,
    body?: string,
  ): Promise<{ pending: Pending | null; kept: InMemory | undefined } | typeof LATE>;
  /** Sends the kept answer and logs it; false (nothing written) when a coding it needs is not made yet. */
  send(hit: KeptHit): boolean;
}

/** A kept answer to send, and to whom. */
export interface KeptHit {
  response: ServerResponse;
  requestId: string;
  head: RequestHead;
  path: string;
  pending: Pending;
  kept: InMemory;
  /** When the request began (performance.now()), for its duration. */
  started: number;
  /** The GraphQL operation's name, for the log line. */
  operation?: string | undefined;
  /** Who asked, as the door identified them (its key's name and address go on the log line). */
  caller: Caller;
}

export function keptAtTheEdge({
  cache,
  cors,
  record,
}: Pick<EdgeHitOptions, 'cache' | 'cors' | 'record'>): KeptAtTheEdge {
  const prepared = new WeakMap<Answer, Map<string, PreparedHit>>();

  /** The hit as `head` gets it, or undefined when a coding it asks for is not made yet (the app's path makes it). */
  function hitFor(head: RequestHead, path: string, pending: Pending, kept: InMemory): PreparedHit | undefined {
    const { answer } = kept;
    const variant = `${head.method}\n${head.headers.get('accept-encoding')}\n${head.headers.get('if-none-match')}`;
    let variants = prepared.get(answer);
    const known = variants?.get(variant);
    if (known) return known;
    const sent = cache.represent(head, path, pending, answer, answer.headers, 'hit');
    const body = sent.encoding ? kept.encodedNow(sent.encoding) : answer.body;
    if (!body) return undefined;
    const headers: string[] = [];
    for (const name in sent.headers) headers.push(name, sent.headers[name] as string);
    if (sent.body) headers.push('content-length', String(body.byteLength));
    const hit = { status: sent.status, headers, body: sent.body ? body : undefined };
    if (!variants) {
      variants = new Map();
      prepared.set(answer, variants);
    }
    // Kept for the headers clients commonly send; a long one (a list of tags, say) is made again each time.
    if (variants.size < VARIANTS && variant.length <= MAX_VARIANT) variants.set(variant, hit);
    return hit;
  }

  return {
    async lookup(head, path, target, caller, body) {
      const at = { pathname: path, target, url: () => new URL(target, ORIGIN) };
      const pending = await cache.pendingFor(head, at, caller, body, VERSION_WAIT_MS);
      if (pending === LATE) return LATE;
      if (!pending) return { pending, kept: undefined };
      const kept = tracingOn() ? await tracedLookup(cache, pending.key) : await keptFor(cache, pending.key);
      return { pending, kept };
    },
    send({ response, requestId, head, path, pending, kept, started, operation, caller }) {
      const hit = hitFor(head, path, pending, kept);
      if (!hit) return false;
      const headers = ['x-request-id', requestId, ...hit.headers];
      const allowance = path === GRAPHQL_PATH ? cors.answerHeaders(head.headers.get('origin')) : null;
      if (allowance) for (const name in allowance) headers.push(name, allowance[name] as string);
      response.writeHead(hit.status, headers);
      response.end(hit.body);
      cache.answered(path, 'hit');
      const seconds = (performance.now() - started) / 1000;
      record({ method: head.method, path, status: hit.status, seconds, operation, requestId, caller });
      return true;
    },
  };
}

/**
 * Answers a GET from a kept answer, resolving true once it is sent; false (nothing written) when the app must
 * answer. Called after the edge's own checks, with the route's target.
 */
export function edgeHits(options: EdgeHitOptions): BeforeTheApp {
  const { budget, identify } = options;
  const kept = keptAtTheEdge(options);

  async function answer(request: IncomingMessage, response: ServerResponse, requestId: string, path: string) {
    const started = performance.now();
    const head = nodeRequestHead(request);
    const caller = identify(head, { req: request });
    // Before the cache, as in the app: a kept answer costs its client a request too.
    if (budget && !(await countAtTheEdge(budget, request, caller.rateKey)).allowed) return false;
    const found = await kept.lookup(head, path, request.url ?? path, caller);
    // Not kept in this process, or a coding asked for the first time: the app's path answers (and makes it).
    if (found === LATE || !found.pending || !found.kept) return false;
    return kept.send({ response, requestId, head, path, pending: found.pending, kept: found.kept, started, caller });
  }

  return (request, response, requestId, { path }) => {
    if (request.method !== 'GET' || (path !== GRAPHQL_PATH && path !== LISTING_PATH)) return false;
    const { headers } = request;
    if (headers.authorization !== undefined || headers['transfer-encoding'] !== undefined) return false;
    if (headers['content-length'] !== undefined && headers['content-length'] !== '0') return false;
    if (path === GRAPHQL_PATH && options.graphiql && asksForGraphiql('GET', headers.accept)) return false;
    return answer(request, response, requestId, path);
  };
}
