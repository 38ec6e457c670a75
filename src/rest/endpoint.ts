// GET/HEAD/OPTIONS /v2/local-package-list/: the legacy v2 page, produced by running the V2ListingPage GraphQL
// operation on this same yoga instance (same schema, loaders, plugins and metrics as /graphql) and rendering the
// result as the Django REST Framework view did. No SQL of its own, and no reshaping: each record comes as its
// prepared v2 text (Package.v2Record, from the read model) and is spliced into the page as it is.
//
// The steps follow DRF's order: the path without its slash is redirected (Django's APPEND_SLASH); then content
// negotiation (format 404, Accept 406), authentication (401), the method (405, OPTIONS metadata), the parameters
// (400), and the page.
import type { Plugin, YogaServerInstance } from 'graphql-yoga';
import { SCOPES } from '../api-keys.js';
import { V2ListingPageDocument, type V2ListingPageQuery } from '../generated/graphql/graphql.js';
import { RETRY_AFTER_SECONDS } from '../graphql/database-errors.js';
import type { Caller, ServerContext } from '../http/callers.js';
import { BAD_REQUEST_PAGE, DJANGO_PAGE_HEADERS, MAX_QUERY_FIELDS, queryFields } from '../http/django-pages.js';
import { receivedQuery } from '../http/edge.js';
import { onlyGetAndHead } from '../http/refusals.js';
import { LISTING_PATH, LISTING_PATH_WITHOUT_SLASH, OPENAPI_PATH, V2_HEADERS } from '../http/routes.js';
import type { Utf8Json } from '../listing/rows.js';
import { nextLink, previousLink } from './links.js';
import { negotiate } from './negotiation.js';
import { openApiDocument } from './openapi.js';
import { parseListingParams } from './params.js';
import { renderJson, renderPage } from './render.js';

const OPENAPI_BODY = JSON.stringify(openApiDocument);
/** The legacy records carry every field, the private ones included (the v2 contract). */
const ALL_SCOPES = new Set(SCOPES);
const OPTIONS_BODY = {
  name: 'Local Package List',
  description: '',
  renders: ['application/json'],
  parses: ['application/json'],
};
/** GraphQL's Int: an offset beyond it is past any listing; the links still carry the offset as sent. */
const MAX_INT = 2n ** 31n - 1n;

/** Codes that mean "try again shortly": the answer is 503 with Retry-After, as DRF words it. */
const TRANSIENT = new Set(['TIMEOUT', 'SERVICE_UNAVAILABLE']);

export interface ListingEndpointOptions {
  /** The service's public base address, e.g. https://api.example.com (no trailing slash), for a request. */
  publicBase: (request: Request) => string;
  callerOf: (request: Request, server?: ServerContext) => Caller;
  /** Whether requests must carry one of V2_API_KEYS. */
  keysRequired: boolean;
}

class OperationFailed extends Error {
  readonly codes: string[];
  constructor(errors: readonly { message: string; extensions?: Record<string, unknown> }[]) {
    super(`V2ListingPage failed: ${errors.map((e) => e.message).join('; ') || 'no data'}`);
    this.codes = errors.map((e) => String(e.extensions?.code ?? ''));
  }
}

/** Django's iri_to_uri: what is not safe in a URI is percent-encoded (as UTF-8), the rest kept as it is. */
const iriToUri = (text: string) =>
  text.replace(/[^A-Za-z0-9_.\-~/#%[\]=:;$&()+,!?*@']+/gu, (part) => encodeURIComponent(part));

/** The query as the redirect carries it: the one received (as the Node edge saw it), as Django copies it. */
function redirectQuery(url: URL, server: ServerContext & { req?: object }): string {
  const received = (server.req && receivedQuery(server.req)) ?? url.search.slice(1);
  return received ? `?${iriToUri(received)}` : '';
}

// biome-ignore lint/suspicious/noExplicitAny: the endpoint works with whatever context the app's yoga has
type AnyYoga = YogaServerInstance<any, any>;

export function listingEndpoint({ publicBase, callerOf, keysRequired }: ListingEndpointOptions): Plugin {
  let yoga: AnyYoga | undefined;

  async function runOperation(request: Request, variables: { limit: number; offset: number; seed?: number }) {
    if (!yoga) throw new Error('the listing endpoint is not attached to a yoga instance');
    const { execute, contextFactory, schema } = yoga.getEnveloped({ request });
    const result = await execute({
      schema,
      document: V2ListingPageDocument,
      variableValues: variables,
      operationName: 'V2ListingPage',
      contextValue: await contextFactory({ scopes: ALL_SCOPES }),
    });
    if (!('data' in result) || result.errors?.length || !result.data) throw new OperationFailed(result.errors ?? []);
    return result.data as V2ListingPageQuery;
  }

  return {
    onYogaInit({ yoga: instance }) {
      yoga = instance as AnyYoga;
    },
    async onRequest({ request, url, serverContext, endResponse, fetchAPI }) {
      if (url.pathname === LISTING_PATH_WITHOUT_SLASH) {
        // Django's APPEND_SLASH: a permanent redirect to the path with the slash, the query string as received.
        endResponse(
          new fetchAPI.Response(null, {
            status: 301,
            headers: {
              location: `${LISTING_PATH}${redirectQuery(url, serverContext as ServerContext)}`,
              'content-type': 'text/html; charset=utf-8',
            },
          }),
        );
        return;
      }
      if (url.pathname === OPENAPI_PATH) {
        const refused = onlyGetAndHead(fetchAPI.Response, request);
        if (refused) return endResponse(refused);
        endResponse(new fetchAPI.Response(OPENAPI_BODY, { headers: { 'content-type': 'application/json' } }));
        return;
      }
      if (url.pathname !== LISTING_PATH) return;
      // Django refused a query of more fields than it parses (its view never ran): its 400 page, every method.
      if (queryFields(url.search.slice(1)) > MAX_QUERY_FIELDS) {
        return endResponse(
          new fetchAPI.Response(request.method === 'HEAD' ? null : BAD_REQUEST_PAGE, {
            status: 400,
            headers: DJANGO_PAGE_HEADERS,
          }),
        );
      }

      const negotiated = negotiate(url.searchParams, request.headers.get('accept'));
      const indent = negotiated.ok ? negotiated.indent : null;
      const respond = (status: number, body: unknown, headers: Record<string, string> = {}) =>
        endResponse(
          new fetchAPI.Response(request.method === 'HEAD' ? null : renderJson(body, indent), {
            status,
            headers: { ...V2_HEADERS, ...headers },
          }),
        );

      if (!negotiated.ok) return respond(negotiated.status, { detail: negotiated.detail });
      if (keysRequired) {
        // As DRF's authentication: no credentials, or credentials that are not a key of ours.
        const credential = callerOf(request, serverContext as ServerContext).v2;
        if (credential?.kind !== 'key') {
          const detail =
            credential?.kind === 'invalid' ? 'Invalid token.' : 'Authentication credentials were not provided.';
          return respond(401, { detail }, { 'www-authenticate': 'Bearer realm="listing"' });
        }
      }
      if (request.method === 'OPTIONS') return respond(200, OPTIONS_BODY);
      if (request.method !== 'GET' && request.method !== 'HEAD') {
        return respond(405, { detail: `Method "${request.method}" not allowed.` });
      }
      const parsed = parseListingParams(url.searchParams);
      if (!parsed.ok) return respond(parsed.status, { detail: parsed.detail });

      const { limit, offset, seed } = parsed.params;
      const variables = {
        limit,
        offset: Number(offset > MAX_INT ? MAX_INT : offset),
        ...(seed === undefined ? {} : { seed }),
      };
      let page: V2ListingPageQuery['packages'];
      try {
        page = (await runOperation(request, variables)).packages;
      } catch (error) {
        if (error instanceof OperationFailed && error.codes.some((code) => TRANSIENT.has(code))) {
          return respond(
            503,
            { detail: 'Service temporarily unavailable.' },
            { 'retry-after': String(RETRY_AFTER_SECONDS) },
          );
        }
        // An unexpected error was logged when yoga masked it; anything else is logged here, once.
        if (!(error instanceof OperationFailed && error.codes.includes('INTERNAL_SERVER_ERROR'))) {
          yoga?.logger.error(error);
        }
        return respond(500, { detail: 'A server error occurred.' });
      }

      // The links carry the seed in force, so a client that sent none keeps one order across the pages.
      const query = new URLSearchParams(url.search);
      if (seed === undefined) query.set('seed', String(page.seed));
      const links = { base: `${publicBase(request)}${LISTING_PATH}`, query, count: page.count, limit, offset };
      const records = page.results.map((record) => record.v2Record as unknown as Utf8Json);
      const body = renderPage(
        { count: page.count, next: nextLink(links), previous: previousLink(links) },
        records,
        indent,
      );
      return endResponse(
        new fetchAPI.Response(request.method === 'HEAD' ? null : (body as BodyInit), {
          status: 200,
          headers: { ...V2_HEADERS }, // a copy: the Response writes its content-length into the object it is given
        }),
      );
    },
  };
}
