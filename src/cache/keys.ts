// What a cached answer depends on, besides the listing version: everything in the request that can change it.
// A v2 page: its query string, the Accept header (absent and empty are not the same: an empty one is refused
// with 406), the caller's access (when V2_API_KEYS is set) and the public address its next/previous links are
// built on (behind a trusted proxy, the forwarded host and scheme). A GraphQL answer: its query string or POST
// body, the Accept header and the caller's scopes (a persisted query's hash stands for its document). A v2 GET
// and HEAD share a key; other methods are never cached, nor subscriptions (and no answer that is an event stream),
// nor a persisted query's registration.
import type { Caller } from '../http/callers.js';
import type { PublicBase } from '../http/public-base.js';
import { jsonBody, type RequestHead } from '../http/request-head.js';
import { GRAPHQL_PATH, LISTING_PATH } from '../http/routes.js';
import { poolDraw } from '../listing/seed-pool.js';

/** The caller's part of the key: what they may see. */
export function scopeOf(caller: Caller, path: string, v2KeysRequired: boolean): string {
  if (path === LISTING_PATH) return v2KeysRequired ? `v2:${caller.v2?.kind ?? 'none'}` : 'v2';
  const credential = caller.graphql;
  return credential.kind === 'key' ? `key:${[...credential.key.scopes].sort().join(',')}` : credential.kind;
}

/** Anonymous answers may be kept by shared caches; answers for a key may not. */
export const isAnonymous = (scope: string) => scope === 'none' || scope === 'v2';

/**
 * The request's draw from the pool of seeds, named in its key, where its answer may draw one: a v2 page without
 * `seed`, or a GraphQL request that asks for packages and shows no seed argument (a guess from its text: one
 * that guesses wrong either splits an answer over more keys than it needs, or, drawing without a key that names
 * the draw, is not kept at all; see src/listing/seed-pool.ts).
 */
function drawFor(request: object, seedPool: number, draws: boolean): number | null {
  const draw = draws ? poolDraw(request, seedPool) : undefined;
  if (!draw) return null;
  draw.keyed = true;
  return draw.index;
}

const ASKS_FOR_PACKAGES = /\bpackages(?:Connection)?\b/;
/** A subscription is a stream, never an answer to keep: not even its version is read. */
const SUBSCRIBES = /\bsubscription\b/;
const NAMES_A_SEED = /\bseed\b\s*:|"seed"/;
/**
 * A query sent with its hash registers it (src/graphql/apq.ts): answered from the cache, it would never be
 * registered again once the server has forgotten it, and its clients would be told PersistedQueryNotFound for ever.
 */
const REGISTERS = /persistedQuery/;

/** A request whose key is made: its head, and its body where it has one (a fetch Request's). */
export type KeyedRequest = RequestHead & Partial<Pick<Request, 'clone'>>;

/**
 * The request's part of its answer's key. `stable` when every request made of the same text gets the same part:
 * not when it drew a seed from the pool, nor when it named a persisted document not known yet.
 */
export interface RequestPart {
  id: string;
  stable: boolean;
}

/** What identifies the answer (as JSON text), besides the version; null for requests that are not cached. */
export async function requestKey(
  request: KeyedRequest,
  url: URL,
  scope: string,
  publicBase: PublicBase,
  seedPool: number,
  /** The document a request's `extensions` name by its hash, where it is known. */
  persisted?: (extensions: unknown) => Promise<string | undefined>,
  /** A POST's body, where it was read already (the Node edge); else read from a clone of the request. */
  given?: string,
): Promise<RequestPart | null> {
  const accept = request.headers.get('accept');
  // The draw is the last item of every id; a document named by hash that is not known yet is undefined.
  const part = (id: unknown[], document: string | undefined) => ({
    id: JSON.stringify(id),
    stable: id.at(-1) === null && document !== undefined,
  });
  const read = request.method === 'GET' || request.method === 'HEAD';
  if (url.pathname === LISTING_PATH) {
    if (!read) return null;
    // Without a seed the order is drawn from the pool (or, with no pool, chosen at random: never kept).
    const seeded = url.searchParams.has('seed');
    const draw = drawFor(request, seedPool, !seeded);
    if (!seeded && draw === null) return null;
    return part(['v2', url.search, accept, scope, publicBase(request), draw], '');
  }
  // An Accept that admits text/event-stream among others (urql's does) still gets JSON for a query: it is kept
  // like any other; an answer that is a stream is never kept (response-cache.ts looks at its type).
  if (url.pathname !== GRAPHQL_PATH) return null;
  const drawn = (text: string) => drawFor(request, seedPool, ASKS_FOR_PACKAGES.test(text) && !NAMES_A_SEED.test(text));
  // GraphQL over GET only: HEAD is no GraphQL method (405), so a kept GET answer must not stand for it.
  if (request.method === 'GET') {
    // A query or a persisted operation's hash; neither: GraphiQL's page.
    if (!url.searchParams.has('query') && !url.searchParams.has('extensions')) return null;
    // A hash alone names its document (a hash is only ever registered for the query it is the SHA-256 of), and
    // the guess reads the document it stands for.
    if (SUBSCRIBES.test(url.searchParams.get('query') ?? '')) return null;
    if (url.searchParams.has('query') && REGISTERS.test(url.searchParams.get('extensions') ?? '')) return null;
    const hashOnly = !url.searchParams.has('query') && persisted;
    const document = hashOnly ? await persisted(parsed(url.searchParams.get('extensions'))) : '';
    const draw = drawn(decodeURIComponentSafe(url.search) + (document ?? ''));
    return part(['graphql', url.search, accept, scope, draw], document);
  }
  // A POST yoga does not read as JSON is refused (415): its answer is never one to keep.
  if (request.method !== 'POST' || !jsonBody(request.headers.get('content-type'))) return null;
  const body = given ?? (request.clone ? await request.clone().text() : undefined);
  if (body === undefined) return null;
  if (SUBSCRIBES.test(body)) return null;
  if (REGISTERS.test(body) && body.includes('"query"')) return null;
  const hashOnly = persisted && body.includes('persistedQuery') && !body.includes('"query"');
  const document = hashOnly ? await persisted((parsed(body) as { extensions?: unknown } | undefined)?.extensions) : '';
  return part(['graphql-post', body, accept, scope, drawn(body + (document ?? ''))], document);
}

function parsed(json: string | null): unknown {
  try {
    return json === null ? undefined : JSON.parse(json);
  } catch {
    return undefined; // refused further on
  }
}

function decodeURIComponentSafe(text: string): string {
  try {
    return decodeURIComponent(text.replaceAll('+', ' '));
  } catch {
    return text;
  }
}
