// The versioned response cache and HTTP caching of both doors. An answer is a function of the listing version,
// the request (src/cache/keys.ts says which parts), the build and the settings that shape answers
// (src/cache/fingerprint.ts), so it is kept under exactly that key and never goes stale: a write bumps the
// version, and the next request reads the new version and misses. The key is made with the version read before
// the answer; the answer is kept under the version its execution read, when another (an import committed in
// between, or the operation ran again on another database). The same key gives
// each representation a strong ETag, and a conditional GET whose answer is kept is answered 304 after one
// small read (the version).
//
// The cache changes nothing but speed: a hit is the answer the route would give (the same status, headers and
// bytes once decoded), encoded as the request admits, its headers copied from the kept answer, never shared.
// Not kept: answers other than 200, GraphQL answers with errors or withheld fields, and answers that depend on
// a choice made at random (no seed given and no pool of seeds to draw from: the resolvers mark them, see
// `markUncacheable`; a seed drawn from the pool is named in the key, src/cache/keys.ts); these leave as
// `private, no-store` (src/http/cache-headers.ts), so no CDN keeps them either. The v2 door keeps
// its final bytes. Chosen over @graphql-yoga/plugin-response-cache, which keeps execution results (so every hit
// is serialised again, 440 kB for a v2 page) under TTLs and entity invalidation that a versioned listing does
// not need.
import { createHash } from 'node:crypto';
import type { Plugin } from 'graphql-yoga';
import type { ReadPath } from '../db/sql.js';
import type { Caller, CallerOf, ServerContext } from '../http/callers.js';
import { varyWithout } from '../http/compression.js';
import type { PublicBase } from '../http/public-base.js';
import type { RequestHead } from '../http/request-head.js';
import { GRAPHQL_PATH, LISTING_PATH } from '../http/routes.js';
import type { CurrentVersion } from '../listing/version.js';
import { inSpan } from '../tracing.js';
import type { Answer, AnswerStore } from './answers.js';
import { isAnonymous, type KeyedRequest, requestKey, scopeOf } from './keys.js';
import { type Representation, representation } from './representation.js';
import { type Entities, surrogateHeaders, surrogateKeys } from './surrogate-keys.js';
import { LATE, lastVersionRead, versionWithin } from './version-reads.js';

/**
 * Per request: whether its answer may be kept (resolvers and the error check clear it), and the listing version
 * its execution read (which may not be the one its key was made with: an import committed in between, or the
 * operation ran again on another database).
 */
export interface CacheNote {
  cacheable: boolean;
  readVersion?: string | undefined;
  /** The packages and photographers the answer holds: its surrogate keys (src/cache/surrogate-keys.ts). */
  entities?: Entities;
}

const notes = new WeakMap<Request, CacheNote>();

/** The note a request's context carries; the context factory calls it, the resolvers flip it. */
export function cacheNoteFor(request: Request): CacheNote {
  let note = notes.get(request);
  if (!note) {
    note = { cacheable: true };
    notes.set(request, note);
  }
  return note;
}

/** The answer depends on something other than the version and the request (a seed chosen at random). */
export function markUncacheable(note: { cacheable: boolean }): void {
  note.cacheable = false;
}

/** Headers of a route's answer that are kept with it; per-request ones (CORS, request id) are added anew. */
const KEPT_HEADERS = ['content-type', 'vary', 'allow'];
/**
 * A route's headers about how its body was sent (a multipart answer is written chunked): a kept answer goes out
 * whole, with its Content-Length, and RFC 9112 (6.1) forbids Transfer-Encoding beside it.
 */
const FRAMING_HEADERS = ['transfer-encoding', 'connection', 'keep-alive'];

export interface ResponseCacheOptions {
  store: AnswerStore;
  /** Where a request reads: its version is read there, where its answer is made. */
  reads: { forRequest(request: object): Pick<ReadPath, 'single'> };
  /**
   * The version a request arriving now may use (shared reads: src/listing/version.ts), null when it could not
   * be read in time: the request then goes on without the cache.
   */
  currentVersion: CurrentVersion;
  callerOf: CallerOf;
  /** The address the v2 links are built on, for a request (part of a v2 answer's key). */
  publicBase: PublicBase;
  /** Cache-Control for anonymous answers, e.g. "public, max-age=5, stale-while-revalidate=30". */
  cacheControl: string;
  /** Whether the v2 door requires an API key (then whether one was given is part of the key). */
  v2KeysRequired: boolean;
  /** SEED_POOL: a request without a seed draws one of these, and its key names the draw. */
  seedPool: number;
  /** The build's and the answer-shaping settings' fingerprint (src/cache/fingerprint.ts), in every key. */
  fingerprint: string;
  /** CDN_MAX_AGE: how long a CDN may keep an anonymous answer (Surrogate-Control), purged when the listing changes. */
  cdnMaxAgeSeconds: number;
  /** The document a request's `extensions` name by hash (persisted queries), for the key's guess at a seed draw. */
  persistedDocument?: (extensions: unknown) => Promise<string | undefined>;
  /** Told of each answer the cache gives, by path: kept bytes (hit) or made and kept (miss), for the metrics. */
  onAnswer?: (pathname: string, result: CacheResult) => void;
  /** Whether CORS varies GraphQL answers by Origin (CORS_ORIGINS is a list): said in every one sent. */
  varyOrigin?: boolean;
  /**
   * STALE_IF_ERROR: while the version cannot be read (the database is away), for this long after it last was, a
   * request's answer kept under that version is sent, marked stale, instead of the route's 503; 0: never.
   */
  staleIfErrorSeconds?: number;
}

/** Where an answer the cache gave came from: kept (hit), made and kept (miss), kept in a version gone (stale). */
export type CacheResult = 'hit' | 'miss' | 'stale';

/** How many request parts are remembered, and the longest request target that is. */
const REMEMBERED = 1000;
const MAX_REMEMBERED_TARGET = 2048;

/** Where a request goes: its path, its target as received (path and query), and its URL, parsed when needed. */
export interface RequestTarget {
  pathname: string;
  target: string;
  url(): URL;
}

/** A request whose answer may be kept: what it is kept under. */
export interface Pending {
  key: string;
  /** Whether the answer is anyone's: only those go to a CDN, with their surrogate keys. */
  shared: boolean;
  /** What the key was made of: the version read before the answer, and the request's part. */
  version: string;
  id: string;
  cacheControl: string;
  /** Seconds since the version was read, where the database is away and only a kept answer may be sent (stale). */
  staleSeconds?: number;
}

/** An answer made and kept: under what, as kept, and the headers it goes out on. */
export interface Kept {
  pending: Pending;
  answer: Answer;
  base: Record<string, string>;
}

/** The cache's decisions, shared by its plugin and by the hits sent at the Node edge (src/cache/edge-hits.ts). */
export interface ResponseCache {
  store: AnswerStore;
  /**
   * What the request's answer is kept under, its version read after the request arrived; null for a request
   * whose answer is not kept, or when the version could not be read at all (the route then answers as it would
   * without a cache: 503, TIMEOUT). LATE when `versionWaitMs` is given and passed first: the Node edge waits
   * briefly, then leaves the request to the app, which waits on with its own bounds.
   */
  pendingFor(request: KeyedRequest, at: RequestTarget, caller: Caller, body?: string): Promise<Pending | null>;
  pendingFor(
    request: KeyedRequest,
    at: RequestTarget,
    caller: Caller,
    body: string | undefined,
    versionWaitMs: number,
  ): Promise<Pending | null | typeof LATE>;
  /**
   * Keeps a route's answer when it may be kept (a 200 whose note allows it, neither a stream nor encoded), under
   * the version it was made from: what it is kept under, the kept answer, and the headers it goes out on (the
   * route's, with the kept ones over them). `headers` by lowercase name.
   */
  keep(
    request: Pick<RequestHead, 'method'>,
    pending: Pending,
    note: CacheNote | undefined,
    status: number,
    headers: Readonly<Record<string, string>>,
    body: () => Promise<Uint8Array> | Uint8Array,
  ): Promise<Kept | null>;
  /** Told of each answer given from the cache (metrics). */
  answered(pathname: string, result: CacheResult): void;
  /** How a kept answer goes out to `request` on `pathname` (src/cache/representation.ts), at either door. */
  represent(
    request: RequestHead,
    pathname: string,
    pending: Pick<Pending, 'key' | 'cacheControl'>,
    answer: Answer,
    base: Readonly<Record<string, string>>,
    cache: 'hit' | 'miss',
  ): Representation;
  plugin: Plugin;
}

export function createResponseCache(options: ResponseCacheOptions): ResponseCache {
  const pending = new WeakMap<Request, Pending>();
  const keyOf = (version: string, id: string) =>
    createHash('sha256').update(`${options.fingerprint}\n${version}\n${id}`).digest('base64url');
  const answered = (pathname: string, result: CacheResult) => options.onAnswer?.(pathname, result);

  /**
   * Request parts already made, by the text they were made of (path and query, Accept, scope, the links' base):
   * a request seen before costs a lookup, not a parse of its URL and a hash. Only stable parts are kept (not a
   * draw from the seed pool), at most REMEMBERED of them, each with the key it last made.
   */
  const remembered = new Map<string, { id: string; version: string; key: string }>();

  const lastRead = lastVersionRead(options.staleIfErrorSeconds ?? 0);

  /** What the request's answer is kept under in the last version read, while STALE_IF_ERROR allows; else null. */
  function staleFor(id: string, scope: string): Pending | null {
    const stale = lastRead.stale();
    if (!stale) return null;
    const shared = isAnonymous(scope);
    const cacheControl = shared ? options.cacheControl : 'private, no-cache';
    const { version, staleSeconds } = stale;
    return { key: keyOf(version, id), version, id, shared, cacheControl, staleSeconds };
  }

  async function pendingFor(
    request: KeyedRequest,
    at: RequestTarget,
    caller: Caller,
    body?: string,
    versionWaitMs?: number,
  ): Promise<Pending | null | typeof LATE> {
    const scope = scopeOf(caller, at.pathname, options.v2KeysRequired);
    const base = at.pathname === LISTING_PATH ? options.publicBase(request) : '';
    // A missing Accept (-) and `Accept: null` (=null) are different requests (DRF refuses the second); no header
    // value holds a newline.
    const accept = request.headers.get('accept');
    const text =
      request.method === 'GET' && at.target.length <= MAX_REMEMBERED_TARGET
        ? `${scope}\n${base}\n${accept === null ? '-' : `=${accept}`}\n${at.target}`
        : undefined;
    let known = text === undefined ? undefined : remembered.get(text);
    let id = known?.id;
    if (id === undefined) {
      const { publicBase, seedPool, persistedDocument } = options;
      const part = await requestKey(request, at.url(), scope, publicBase, seedPool, persistedDocument, body);
      if (part === null) return null;
      id = part.id;
      if (part.stable && text !== undefined) {
        if (remembered.size >= REMEMBERED) remembered.clear();
        known = { id, version: '', key: '' };
        remembered.set(text, known);
      }
    }
    const reading = options.currentVersion(options.reads.forRequest(request));
    const version = await (versionWaitMs === undefined ? reading : versionWithin(reading, versionWaitMs));
    if (version === LATE) return LATE;
    if (version === null) {
      const stale = staleFor(id, scope);
      // The edge leaves a stale answer to the app: one way of sending it, with its own marks.
      return stale && versionWaitMs !== undefined ? LATE : stale;
    }
    lastRead.seen(version);
    let key: string;
    if (known?.version === version) key = known.key;
    else {
      key = keyOf(version, id);
      if (known) Object.assign(known, { version, key });
    }
    const shared = isAnonymous(scope);
    return { key, version, id, shared, cacheControl: shared ? options.cacheControl : 'private, no-cache' };
  }

  const represent: ResponseCache['represent'] = (request, pathname, { key, cacheControl }, answer, base, cache) =>
    representation(
      request,
      key,
      answer,
      base,
      cacheControl,
      cache,
      options.varyOrigin === true && pathname === GRAPHQL_PATH,
    );

  /** The kept answer as this request gets it, on `base` headers, as a fetch Response. */
  async function respond(
    request: Request,
    { key, cacheControl, staleSeconds }: Pending,
    answer: Answer,
    base: Record<string, string>,
    cache: 'hit' | 'miss',
    ResponseClass: typeof Response,
  ): Promise<Response> {
    const pathname = new URL(request.url).pathname;
    const sent = represent(request, pathname, { key, cacheControl }, answer, base, cache);
    if (staleSeconds !== undefined) {
      // Made from the last version read, that long ago (RFC 9111's Age), while the database is away.
      sent.headers['x-cache'] = 'stale';
      sent.headers.age = String(Math.floor(staleSeconds));
    }
    answered(pathname, staleSeconds === undefined ? cache : 'stale');
    if (!sent.body) return new ResponseClass(null, { status: sent.status, headers: sent.headers });
    const body = sent.encoding ? await options.store.encoded(key, answer, sent.encoding) : answer.body;
    sent.headers['content-length'] = String(body.byteLength);
    return new ResponseClass(body as BodyInit, { status: sent.status, headers: sent.headers });
  }

  const plugin: Plugin = {
    async onRequest({ request, url, serverContext, endResponse, fetchAPI }) {
      // The target as the Node edge names it (path and query, no origin): one remembered part for both doors.
      const at = { pathname: url.pathname, target: url.pathname + url.search, url: () => url };
      const pend = await pendingFor(request, at, options.callerOf(request, serverContext as ServerContext));
      if (pend === null || pend === LATE) return; // LATE: never, without a wait
      // Stale: the kept answer if there is one, else the route's own answer (a 503), never kept.
      if (pend.staleSeconds === undefined) pending.set(request, pend);
      const entry = await inSpan('cache lookup', {}, async (span) => {
        const found = await options.store.get(pend.key);
        span?.setAttribute('cache.result', found ? 'hit' : 'miss');
        return found;
      });
      if (!entry) return;
      endResponse(await respond(request, pend, entry, entry.headers, 'hit', fetchAPI.Response));
    },

    onExecute({ args }) {
      const context = args.contextValue as {
        cacheNote?: CacheNote;
        withheld?: Set<string>;
        session?: { readVersion(): string | undefined };
      };
      return {
        onExecuteDone({ result }) {
          if (!context.cacheNote) return;
          // The session of the operation's last run: the version its answer was made from.
          context.cacheNote.readVersion = context.session?.readVersion();
          // Withheld private fields get their error after this hook (private-fields.ts): look at the set itself.
          const errors = 'errors' in result && (result.errors?.length ?? 0) > 0;
          if (errors || (context.withheld?.size ?? 0) > 0) markUncacheable(context.cacheNote);
        },
      };
    },

    async onResponse({ request, response, setResponse, fetchAPI }) {
      const pend = pending.get(request);
      if (!pend || response.headers.get('x-cache') === 'hit') return;
      // Filtered by lowercase name: yoga's multipart answer sets `Transfer-Encoding`.
      const headers: Record<string, string> = {};
      for (const [name, value] of response.headers) {
        const lower = name.toLowerCase();
        if (!FRAMING_HEADERS.includes(lower)) headers[lower] = value;
      }
      const made = await keep(
        request,
        pend,
        notes.get(request),
        response.status,
        headers,
        async () => new Uint8Array(await response.arrayBuffer()),
      );
      if (made) setResponse(await respond(request, made.pending, made.answer, made.base, 'miss', fetchAPI.Response));
    },
  };

  async function keep(
    request: Pick<RequestHead, 'method'>,
    pend: Pending,
    note: CacheNote | undefined,
    status: number,
    headers: Readonly<Record<string, string>>,
    body: () => Promise<Uint8Array> | Uint8Array,
  ): Promise<Kept | null> {
    if (status !== 200 || note?.cacheable === false) return null;
    // An event stream (a subscription whose document the key did not see, e.g. persisted) is never read whole.
    if (headers['content-type']?.startsWith('text/event-stream') || 'content-encoding' in headers) return null;
    // Kept, and named by its ETag, under the version it was made from, whichever the key was made with.
    const read = note?.readVersion;
    const under =
      read !== undefined && read !== pend.version ? { ...pend, key: keyOf(read, pend.id), version: read } : pend;
    const kept: Record<string, string> = {};
    for (const name of KEPT_HEADERS) {
      const value = name === 'vary' ? varyWithout(headers.vary, 'Origin') : headers[name];
      if (value !== undefined) kept[name] = value;
    }
    // Kept with the answer, so a hit tells a CDN the same.
    if (under.shared)
      Object.assign(kept, surrogateHeaders(surrogateKeys(under.version, note?.entities), options.cdnMaxAgeSeconds));
    const answer = { status: 200, headers: kept, body: await body() };
    // A HEAD answer has no body to keep; the GET that follows fills the cache.
    const made = request.method === 'HEAD' ? answer : options.store.set(under.key, answer);
    return { pending: under, answer: made, base: { ...headers, ...kept } };
  }

  return {
    store: options.store,
    pendingFor: pendingFor as ResponseCache['pendingFor'],
    keep,
    answered,
    represent,
    plugin,
  };
}
