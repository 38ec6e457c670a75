// The gateway client: every query is sent by its hash over GET (automatic persisted queries), so its URL is short and
// the same for every shopper asking the same thing, and a CDN and the browser's cache keep its answer (ETag, 304).
// A hash the gateway does not know yet is answered PersistedQueryNotFound; the text is then sent once, with its
// hash, as a JSON POST, and the gateway keeps it for everyone after. GETs carry no header that needs a CORS
// preflight; the POST does, and the gateway's Access-Control-Max-Age lets the browser ask once.
import type { TypedDocumentString } from '../generated/graphql.js';
import manifest from '../generated/persisted-documents.json' with { type: 'json' };
import { meta } from './dom.js';

const gateway = meta('storefront-gateway');
const ACCEPT = 'application/graphql-response+json';
const texts: Record<string, string> = manifest;

interface GraphQLAnswer<Result> {
  data?: Result | null;
  errors?: { message: string; extensions?: { code?: string } }[];
}

export class RequestError extends Error {}

/**
 * The listing version the page was last told of (live.ts). Once known it goes into every URL, so that no cache
 * can answer with a page of the listing before it: a page asked again after a change, or the next page of cards,
 * is the new listing's. The gateway ignores the parameter.
 */
let listingVersion: string | undefined;
export function useListingVersion(version: string): void {
  listingVersion = version;
}

/** The document's hash, as the manifest names it ("sha256:<hex>"). */
function hashOf(document: TypedDocumentString<unknown, unknown>): string {
  return String(document.__meta__?.hash);
}

async function read<Result>(response: Response): Promise<GraphQLAnswer<Result>> {
  if (!(response.headers.get('content-type') ?? '').includes('json')) {
    throw new RequestError(`the gateway answered ${response.status} ${response.statusText}`);
  }
  return (await response.json()) as GraphQLAnswer<Result>;
}

/** Runs a typed document (its variables and result types come from codegen). */
export async function query<Result, Variables>(
  document: TypedDocumentString<Result, Variables>,
  variables: Variables,
): Promise<Result> {
  const hash = hashOf(document);
  const extensions = { persistedQuery: { version: 1, sha256Hash: hash.replace(/^sha256:/, '') } };
  const params = new URLSearchParams({ variables: JSON.stringify(variables), extensions: JSON.stringify(extensions) });
  if (listingVersion) params.set('listing', listingVersion);
  let answer = await read<Result>(await fetch(`${gateway}/graphql?${params}`, { headers: { accept: ACCEPT } }));
  if (answer.errors?.[0]?.extensions?.code === 'PERSISTED_QUERY_NOT_FOUND') {
    answer = await read<Result>(
      await fetch(`${gateway}/graphql`, {
        method: 'POST',
        headers: { accept: ACCEPT, 'content-type': 'application/json' },
        body: JSON.stringify({ query: texts[hash], variables, extensions }),
      }),
    );
  }
  if (answer.errors?.length) throw new RequestError(answer.errors.map((error) => error.message).join('; '));
  return answer.data as Result;
}

/** The address of a subscription's event stream (text, not hash: a stream is never cached, and never retried). */
export function streamUrl(document: TypedDocumentString<unknown, unknown>): string {
  return `${gateway}/graphql?${new URLSearchParams({ query: texts[hashOf(document)] ?? '' })}`;
}
