// The versioned response cache and HTTP caching of both doors. An answer is a function of the listing version
// and the request (the v2 parameters or the GraphQL operation and variables, the Accept header, the caller's
// scopes), so it is kept under exactly that key and never goes stale: a write bumps the version, and the next
// request reads the new version and misses. The same key gives a strong ETag: a conditional GET is answered
// 304 after one small read (the version), before anything else is done.
//
// Not kept: answers other than 200, GraphQL answers with errors, and answers that depend on a choice made at
// random (no seed given: the resolvers mark them, see `markUncacheable`). The v2 door keeps its final bytes.
// Chosen over @graphql-yoga/plugin-response-cache, which keeps execution results (so every hit is serialised
// again, 440 kB for a v2 page) under TTLs and entity invalidation that a versioned listing does not need.
import { createHash } from 'node:crypto';
import type { Plugin } from 'graphql-yoga';
import type { ReadPath } from '../db/sql.js';
import type { Caller, ServerContext } from '../http/callers.js';
import { addVary, chooseEncoding } from '../http/compression.js';
import { GRAPHQL_PATH, LISTING_PATH } from '../http/routes.js';
import { readListingVersion } from '../listing/version.js';
import type { Answer, AnswerStore } from './answers.js';

/** Per request: whether its answer may be kept (resolvers and the error check clear it). */
const notes = new WeakMap<Request, { cacheable: boolean }>();

/** The note a request's context carries; the context factory calls it, the resolvers flip it. */
export function cacheNoteFor(request: Request): { cacheable: boolean } {
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

export interface ResponseCacheOptions {
  store: AnswerStore;
  read: Pick<ReadPath, 'single'>;
  callerOf: (request: Request, server?: ServerContext) => Caller;
  /** Cache-Control for anonymous answers, e.g. "public, max-age=5, stale-while-revalidate=30". */
  cacheControl: string;
  /** Whether the v2 door requires an API key (then whether one was given is part of the key). */
  v2KeysRequired: boolean;
  /** How long the version may take before the request goes on without the cache. */
  versionTimeoutMs: number;
}

interface Pending {
  key: string;
  etag: string;
  cacheControl: string;
}

/** What identifies the answer, besides the version; null for requests that are not cached. */
async function requestKey(request: Request, url: URL, scope: string): Promise<string | null> {
  const accept = request.headers.get('accept') ?? '';
  if (url.pathname === LISTING_PATH) {
    if (request.method !== 'GET' && request.method !== 'HEAD') return null;
    // Without a seed the order is chosen at random: another order on each request.
    if (!url.searchParams.has('seed')) return null;
    return `v2\n${url.search}\n${accept}\n${scope}`;
  }
  if (url.pathname !== GRAPHQL_PATH) return null;
  if (request.method === 'GET' || request.method === 'HEAD') {
    // A query or a persisted operation's hash; neither: GraphiQL's page.
    if (!url.searchParams.has('query') && !url.searchParams.has('extensions')) return null;
    return `graphql\nGET\n${url.search}\n${accept}\n${scope}`;
  }
  if (request.method !== 'POST') return null;
  const body = await request.clone().text();
  return `graphql\nPOST\n${body}\n${accept}\n${scope}`;
}

function scopeOf(caller: Caller, path: string, v2KeysRequired: boolean): string {
  if (path === LISTING_PATH) return v2KeysRequired ? `v2:${caller.v2?.kind ?? 'none'}` : 'v2';
  const credential = caller.graphql;
  return credential.kind === 'key' ? `key:${[...credential.key.scopes].sort().join(',')}` : credential.kind;
}

const matches = (ifNoneMatch: string | null, etag: string) =>
  ifNoneMatch !== null && (ifNoneMatch.trim() === '*' || ifNoneMatch.split(',').some((tag) => tag.trim() === etag));

export function responseCache(options: ResponseCacheOptions): Plugin {
  const pending = new WeakMap<Request, Pending>();

  /** The listing version, or null when it cannot be read within `ms` (the embedded database cannot cancel). */
  async function versionWithin(ms: number): Promise<string | null> {
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<null>((resolve) => {
      timer = setTimeout(() => resolve(null), ms);
    });
    try {
      return await Promise.race([
        readListingVersion((statement) => options.read.single(statement)).catch(() => null),
        late,
      ]);
    } finally {
      clearTimeout(timer);
    }
  }

  async function answerFromCache(
    request: Request,
    entry: Answer,
    pend: Pending,
    ResponseClass: typeof Response,
    HeadersClass: typeof Headers,
  ): Promise<Response> {
    const headers = new HeadersClass(entry.headers);
    headers.set('etag', pend.etag);
    headers.set('cache-control', pend.cacheControl);
    headers.set('x-cache', 'hit');
    addVary(headers, 'Accept-Encoding');
    if (request.method === 'HEAD') return new ResponseClass(null, { status: entry.status, headers });
    const encoding = entry.body.byteLength >= 1024 ? chooseEncoding(request.headers.get('accept-encoding')) : null;
    let body = entry.body;
    if (encoding) {
      body = await options.store.encoded(pend.key, entry, encoding);
      headers.set('content-encoding', encoding);
    }
    headers.set('content-length', String(body.byteLength));
    return new ResponseClass(body as BodyInit, { status: entry.status, headers });
  }

  return {
    async onRequest({ request, url, serverContext, endResponse, fetchAPI }) {
      const caller = options.callerOf(request, serverContext as ServerContext);
      const scope = scopeOf(caller, url.pathname, options.v2KeysRequired);
      const id = await requestKey(request, url, scope);
      if (id === null) return;
      const version = await versionWithin(options.versionTimeoutMs);
      // The database is away or slow: the route answers (503, TIMEOUT) as it would without a cache.
      if (version === null) return;
      const key = createHash('sha256').update(`${version}\n${id}`).digest('base64url');
      const etag = `"${key.slice(0, 32)}"`;
      const anonymous = scope === 'anonymous' || scope === 'v2';
      const pend = { key, etag, cacheControl: anonymous ? options.cacheControl : 'private, no-cache' };
      const conditional = request.method === 'GET' || request.method === 'HEAD';
      if (conditional && matches(request.headers.get('if-none-match'), etag)) {
        const headers = new fetchAPI.Headers({ etag, 'cache-control': pend.cacheControl });
        addVary(headers, url.pathname === LISTING_PATH ? 'Accept' : 'Accept, Authorization');
        addVary(headers, 'Accept-Encoding');
        return endResponse(new fetchAPI.Response(null, { status: 304, headers }));
      }
      const entry = await options.store.get(key);
      if (entry) {
        return endResponse(await answerFromCache(request, entry, pend, fetchAPI.Response, fetchAPI.Headers));
      }
      pending.set(request, pend);
    },

    onExecute({ args }) {
      const context = args.contextValue as { cacheNote?: { cacheable: boolean }; withheld?: Set<string> };
      return {
        onExecuteDone({ result }) {
          if (!context.cacheNote) return;
          // Withheld private fields get their error after this hook (private-fields.ts): look at the set itself.
          const errors = 'errors' in result && (result.errors?.length ?? 0) > 0;
          if (errors || (context.withheld?.size ?? 0) > 0) markUncacheable(context.cacheNote);
        },
      };
    },

    async onResponse({ request, response, setResponse, fetchAPI }) {
      const pend = pending.get(request);
      if (!pend || response.status !== 200 || notes.get(request)?.cacheable === false) return;
      if (response.headers.has('content-encoding')) return;
      const body = new Uint8Array(await response.arrayBuffer());
      const kept: Record<string, string> = {};
      for (const name of KEPT_HEADERS) {
        const value = response.headers.get(name);
        if (value !== null) kept[name] = value;
      }
      // A HEAD answer has no body to keep; the GET that follows fills the cache.
      if (request.method !== 'HEAD') options.store.set(pend.key, { status: 200, headers: kept, body });
      const headers = new fetchAPI.Headers(response.headers);
      headers.set('etag', pend.etag);
      headers.set('cache-control', pend.cacheControl);
      headers.set('x-cache', 'miss');
      setResponse(
        new fetchAPI.Response(request.method === 'HEAD' ? null : (body as BodyInit), { status: 200, headers }),
      );
    },

    onDispose: () => options.store.close(),
  };
}
