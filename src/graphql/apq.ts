// Automatic persisted queries (APQ, as Apollo Client's persisted-queries link and urql's persistedExchange speak
// it): a client sends a query's SHA-256 alone (`extensions.persistedQuery`), over GET so the URL is short and
// cacheable. A hash the server does not know is answered PersistedQueryNotFound (as Apollo Server answers it: see
// `notFound`); the client then sends the query with its hash, once, and the server registers it after checking
// that the hash is the query's. The hashes of the persisted operations manifest (src/graphql/persisted.ts) are
// known from the start. Not used under PERSISTED_OPERATIONS_ONLY, where only the manifest's documents run.
//
// A registration is something an anonymous client makes the server keep, so it is bounded: the document must be
// within APQ_MAX_DOCUMENT_BYTES (comments and strings count there, not in the tokens) and GRAPHQL_MAX_TOKENS
// (counted by the lexer alone), both before the hash is computed; the store is an LRU by count and bytes, and what
// Redis keeps is bounded in all and per caller (src/graphql/apq-store.ts); and each caller may register
// APQ_REGISTRATIONS new documents per minute (429 beyond, counted in Redis across instances when it answers, as
// the rate limit is) and APQ_MAX_BYTES_PER_CALLER bytes of them kept in Redis per APQ_TTL (429 beyond).
//
// Written here rather than with @graphql-yoga/plugin-apq: its newest release (3.6.2) declares a peer
// @graphql-tools/utils ^10 where graphql-yoga 5.24 uses ^11, which npm refuses to install, and the bounds sit
// between its steps (after the hash check, before the store).
import { createHash } from 'node:crypto';
import { type GraphQLError, Lexer, Source, TokenKind } from 'graphql';
import { createGraphQLError, type Plugin } from 'graphql-yoga';
import { cacheNoteFor, markUncacheable } from '../cache/response-cache.js';
import type { Config } from '../config.js';
import type { Caller, ServerContext } from '../http/callers.js';
import { createCounter } from '../http/rate-limit.js';
import type { SharedRedis } from '../http/redis.js';
import type { ApqStore } from './apq-store.js';
import { limitExceeded } from './limits.js';

export interface ApqOptions {
  store: ApqStore;
  /** The persisted operations manifest (hash -> document), known without registration. */
  manifest: ReadonlyMap<string, string> | undefined;
  /** GRAPHQL_MAX_TOKENS: a longer document is not registered. */
  maxTokens: number;
  /**
   * The largest document registered (UTF-8 bytes), new documents per caller per minute (0: no bound), and the bytes
   * of new documents per caller within the TTL (counted by the store; here for the refusal's message).
   */
  bounds: Pick<Config['apq'], 'maxDocumentBytes' | 'registrationsPerMinute' | 'maxBytesPerCaller' | 'ttlMs'>;
  redis: SharedRedis | undefined;
  callerOf: (request: Request, server?: ServerContext) => Caller;
}

const HASH = /^(?:sha256:)?([0-9a-fA-F]{64})$/;
const SHAPE = 'send extensions.persistedQuery as {"version": 1, "sha256Hash": "<the query\'s SHA-256, 64 hex digits>"}';

const badRequest = (message: string, code = 'BAD_REQUEST'): GraphQLError =>
  createGraphQLError(message, { extensions: { code, http: { status: 400 } } });

/**
 * The answer to a hash the server does not know, as Apollo Server gives it (PersistedQueryNotFoundError and
 * getPersistedQueryErrorHttp in @apollo/server's internalErrorClasses): 200, the body
 * `{"errors":[{"message":"PersistedQueryNotFound","extensions":{"code":"PERSISTED_QUERY_NOT_FOUND"}}]}` and
 * `Cache-Control: private, no-cache, must-revalidate`. A miss is normal operation, the first step of every
 * registration, not a client's mistake: Apollo Client's persisted-queries link and urql's persistedExchange read it
 * from the body whatever the status, and a browser logs every 4xx on its console. So 200 under
 * application/graphql-response+json too, where GraphQL-over-HTTP answers a request error with a 4xx: Apollo Server
 * takes the status from the error whatever the media type, and APQ is its protocol, which its clients expect.
 * `private` keeps it from every shared cache (and it has no Surrogate-Control); `no-cache, must-revalidate` keeps the
 * browser from reusing it once the hash is registered. The gateway's own response cache keeps a 200 unless the
 * request's note forbids it, and the key of a hash-only request does not name the document (unknown here): kept,
 * the miss would be the answer for that hash, registered or not, until the listing's version changed. This is
 * thrown before the context (which carries the note) is made, so the note is marked here.
 */
function notFound(request: Request): GraphQLError {
  markUncacheable(cacheNoteFor(request));
  return createGraphQLError('PersistedQueryNotFound', {
    extensions: {
      code: 'PERSISTED_QUERY_NOT_FOUND',
      http: { status: 200, headers: { 'cache-control': 'private, no-cache, must-revalidate' } },
    },
  });
}

/** The hash (lowercase hex) the extensions name, null when they name none; throws a 400 when it is malformed. */
export function persistedHash(extensions: unknown): string | null {
  const persisted =
    typeof extensions === 'object' && extensions !== null
      ? (extensions as { persistedQuery?: unknown }).persistedQuery
      : undefined;
  if (persisted === undefined || persisted === null) return null;
  const { version, sha256Hash } = (typeof persisted === 'object' ? persisted : {}) as Record<string, unknown>;
  if (version !== 1) throw badRequest(`Unsupported persisted query version: ${SHAPE}.`);
  const hash = typeof sha256Hash === 'string' ? HASH.exec(sha256Hash)?.[1] : undefined;
  if (!hash) throw badRequest(`The persisted query's hash is not a SHA-256: ${SHAPE}.`);
  return hash.toLowerCase();
}

/** Whether the document has at most `max` tokens; a document that does not lex is left to the parser. */
function withinTokens(document: string, max: number): boolean {
  const lexer = new Lexer(new Source(document));
  let tokens = 0;
  try {
    while (lexer.advance().kind !== TokenKind.EOF) if (++tokens > max) return false;
  } catch {
    // a syntax error: the parser reports it
  }
  return true;
}

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

/** The documents a hash may stand for: the manifest's, then the registered ones. */
export function persistedDocuments(store: ApqStore | undefined, manifest: ReadonlyMap<string, string> | undefined) {
  const documentOf = async (hash: string): Promise<string | undefined> =>
    manifest?.get(hash) ?? (await store?.get(hash));
  return {
    documentOf,
    /** The document a request's `extensions` name by hash, if it is known (for the response cache). */
    async documentFor(extensions: unknown): Promise<string | undefined> {
      try {
        const hash = persistedHash(extensions);
        return hash ? await documentOf(hash) : undefined;
      } catch {
        return undefined; // malformed: the request is refused further on
      }
    },
  };
}

export function automaticPersistedQueries(options: ApqOptions): Plugin {
  const { store, maxTokens } = options;
  const { maxDocumentBytes, registrationsPerMinute: perMinute, maxBytesPerCaller, ttlMs } = options.bounds;
  const { documentOf } = persistedDocuments(store, options.manifest);
  const count =
    perMinute > 0
      ? createCounter({ requests: perMinute, windowMs: 60_000, redis: options.redis, keyPrefix: 'listing-apq' })
      : undefined;

  const tooMany = (message: string, wait: number) =>
    createGraphQLError(`${message} Retry in ${wait} s.`, {
      extensions: { code: 'RATE_LIMITED', http: { status: 429, headers: { 'retry-after': String(wait) } } },
    });

  /** Throws a 429 when the caller has registered its share of documents this minute. */
  async function admit(caller: string): Promise<void> {
    if (!count) return;
    const outcome = await count(caller);
    if (outcome.allowed) return;
    const wait = Math.max(1, Math.ceil(outcome.msBeforeNext / 1000));
    throw tooMany(`Too many new persisted queries: the limit is ${perMinute} per minute per client.`, wait);
  }

  /** Keeps the document, or throws a 429 when the caller has registered its share of bytes within APQ_TTL. */
  async function keep(hash: string, document: string, caller: string): Promise<void> {
    const sharing = await store.set(hash, document, caller);
    if (!('refused' in sharing)) return;
    throw tooMany(
      `Too many bytes of new persisted queries: the limit is ${maxBytesPerCaller} per client within ${ttlMs / 1000} s.`,
      sharing.retryAfterSeconds,
    );
  }

  return {
    async onParams({ params, setParams, request, context }) {
      const hash = persistedHash(params.extensions);
      if (hash === null) return;
      if (params.query === undefined || params.query === null || params.query === '') {
        const document = await documentOf(hash);
        if (document === undefined) throw notFound(request);
        setParams({ ...params, query: document });
        return;
      }
      if (typeof params.query !== 'string') return; // yoga refuses it
      const bytes = Buffer.byteLength(params.query);
      if (bytes > maxDocumentBytes) throw limitExceeded('documentBytes', maxDocumentBytes, bytes);
      if (!withinTokens(params.query, maxTokens)) throw limitExceeded('tokens', maxTokens, `more than ${maxTokens}`);
      if (sha256(params.query) !== hash) {
        throw badRequest(
          'PersistedQueryMismatch: the hash is not the SHA-256 of the query.',
          'PERSISTED_QUERY_MISMATCH',
        );
      }
      if ((await documentOf(hash)) !== undefined) return; // known already
      const caller = options.callerOf(request, context as ServerContext).rateKey;
      await admit(caller);
      await keep(hash, params.query, caller);
    },
  };
}
