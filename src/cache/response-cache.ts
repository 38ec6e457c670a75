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
import type { Caller, ServerContext } from '../http/callers.js';
import { addVary, encodingFor } from '../http/compression.js';
import { readListingVersion } from '../listing/version.js';
import { inSpan } from '../tracing.js';
import type { Answer, AnswerStore } from './answers.js';
import { describesBody, etagOf, noneMatches } from './conditional.js';
import { isAnonymous, requestKey, scopeOf } from './keys.js';
import { type Entities, surrogateHeaders, surrogateKeys } from './surrogate-keys.js';

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
  callerOf: (request: Request, server?: ServerContext) => Caller;
  /** The address the v2 links are built on, for a request (part of a v2 answer's key). */
  publicBase: (request: Request) => string;
  /** Cache-Control for anonymous answers, e.g. "public, max-age=5, stale-while-revalidate=30". */
  cacheControl: string;
  /** Whether the v2 door requires an API key (then whether one was given is part of the key). */
  v2KeysRequired: boolean;
  /** How long the version may take before the request goes on without the cache. */
  versionTimeoutMs: number;
  /** SEED_POOL: a request without a seed draws one of these, and its key names the draw. */
  seedPool: number;
  /** The build's and the answer-shaping settings' fingerprint (src/cache/fingerprint.ts), in every key. */
  fingerprint: string;
  /** CDN_MAX_AGE: how long a CDN may keep an anonymous answer (Surrogate-Control), purged when the listing changes. */
  cdnMaxAgeSeconds: number;
  /** The document a request's `extensions` name by hash (persisted queries), for the key's guess at a seed draw. */
  persistedDocument?: (extensions: unknown) => Promise<string | undefined>;
  /** Told of each answer the cache gives: kept bytes (hit) or made and kept (miss), for the metrics. */
  onAnswer?: (request: Request, result: 'hit' | 'miss') => void;
}

interface Pending {
  key: string;
  /** Whether the answer is anyone's: only those go to a CDN, with their surrogate keys. */
  shared: boolean;
  /** What the key was made of: the version read before the answer, and the request's part. */
  version: string;
  id: string;
  cacheControl: string;
}

export function responseCache(options: ResponseCacheOptions): Plugin {
  const pending = new WeakMap<Request, Pending>();
  const keyOf = (version: string, id: string) =>
    createHash('sha256').update(`${options.fingerprint}\n${version}\n${id}`).digest('base64url');

  /** The listing version, or null when it cannot be read within `ms` (the embedded database cannot cancel). */
  async function versionWithin(read: Pick<ReadPath, 'single'>, ms: number): Promise<string | null> {
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<null>((resolve) => {
      timer = setTimeout(() => resolve(null), ms);
    });
    try {
      return await Promise.race([readListingVersion((statement) => read.single(statement)).catch(() => null), late]);
    } finally {
      clearTimeout(timer);
    }
  }

  /**
   * The kept answer as this request gets it, on `headers` (a copy of the kept ones, or of the route's answer
   * with what the plugins before added): encoded as it admits, or a 304 where If-None-Match holds.
   */
  async function represent(
    request: Request,
    { key, cacheControl }: Pending,
    answer: Answer,
    headers: Headers,
    cache: 'hit' | 'miss',
    ResponseClass: typeof Response,
  ): Promise<Response> {
    const encoding = encodingFor(request, answer.headers['content-type'] ?? null, answer.body.byteLength);
    // Validators and conditions are for GET and HEAD: a POST (a GraphQL query sent that way) has neither.
    const conditional = request.method === 'GET' || request.method === 'HEAD';
    if (conditional) headers.set('etag', etagOf(key, encoding));
    headers.set('cache-control', cacheControl);
    headers.set('x-cache', cache);
    options.onAnswer?.(request, cache);
    addVary(headers, 'Accept-Encoding');
    if (conditional && noneMatches(request.headers.get('if-none-match'), etagOf(key, encoding))) {
      for (const [name] of [...headers]) if (describesBody(name)) headers.delete(name);
      return new ResponseClass(null, { status: 304, headers });
    }
    if (request.method === 'HEAD') return new ResponseClass(null, { status: answer.status, headers });
    let body = answer.body;
    if (encoding) {
      body = await options.store.encoded(key, answer, encoding);
      headers.set('content-encoding', encoding);
    }
    headers.set('content-length', String(body.byteLength));
    return new ResponseClass(body as BodyInit, { status: answer.status, headers });
  }

  return {
    async onRequest({ request, url, serverContext, endResponse, fetchAPI }) {
      const caller = options.callerOf(request, serverContext as ServerContext);
      const scope = scopeOf(caller, url.pathname, options.v2KeysRequired);
      const id = await requestKey(request, url, scope, options.publicBase, options.seedPool, options.persistedDocument);
      if (id === null) return;
      const version = await versionWithin(options.reads.forRequest(request), options.versionTimeoutMs);
      // The database is away or slow: the route answers (503, TIMEOUT) as it would without a cache.
      if (version === null) return;
      const key = keyOf(version, id);
      const shared = isAnonymous(scope);
      const pend = { key, version, id, shared, cacheControl: shared ? options.cacheControl : 'private, no-cache' };
      pending.set(request, pend);
      const entry = await inSpan('cache lookup', {}, async (span) => {
        const found = await options.store.get(key);
        span?.setAttribute('cache.result', found ? 'hit' : 'miss');
        return found;
      });
      if (!entry) return;
      const headers = new fetchAPI.Headers({ ...entry.headers });
      endResponse(await represent(request, pend, entry, headers, 'hit', fetchAPI.Response));
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
      let pend = pending.get(request);
      if (!pend || response.headers.get('x-cache') === 'hit') return;
      const note = notes.get(request);
      if (response.status !== 200 || note?.cacheable === false) return;
      // An event stream (a subscription whose document the key did not see, e.g. persisted) is never read whole.
      if (response.headers.get('content-type')?.startsWith('text/event-stream')) return;
      // Kept, and named by its ETag, under the version it was made from, whichever the key was made with.
      const read = note?.readVersion;
      if (read !== undefined && read !== pend.version) pend = { ...pend, key: keyOf(read, pend.id), version: read };
      if (response.headers.has('content-encoding')) return;
      const kept: Record<string, string> = {};
      for (const name of KEPT_HEADERS) {
        const value = response.headers.get(name);
        if (value !== null) kept[name] = value;
      }
      // Kept with the answer, so a hit tells a CDN the same.
      if (pend.shared)
        Object.assign(kept, surrogateHeaders(surrogateKeys(pend.version, note?.entities), options.cdnMaxAgeSeconds));
      const answer = { status: 200, headers: kept, body: new Uint8Array(await response.arrayBuffer()) };
      // A HEAD answer has no body to keep; the GET that follows fills the cache.
      const made = request.method === 'HEAD' ? answer : options.store.set(pend.key, answer);
      // Filtered as a list: @whatwg-node's Headers does not delete a name given in another case than it was set
      // (yoga's multipart answer sets `Transfer-Encoding`), though `has` then says it is gone.
      const headers = new fetchAPI.Headers(
        [...response.headers].filter(([name]) => !FRAMING_HEADERS.includes(name.toLowerCase())),
      );
      for (const [name, value] of Object.entries(kept)) headers.set(name, value);
      setResponse(await represent(request, pend, made, headers, 'miss', fetchAPI.Response));
    },
  };
}
