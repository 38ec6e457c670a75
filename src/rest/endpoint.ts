// GET/HEAD/OPTIONS /v2/local-package-list/: the legacy v2 page, produced by running the V2ListingPage
// GraphQL operation on this same yoga instance (same schema, loaders, plugins and metrics as /graphql) and
// rendering the result as the Django REST Framework view did. No SQL of its own.
import type { Plugin, YogaServerInstance } from 'graphql-yoga';
import { V2ListingPageDocument, type V2ListingPageQuery } from '../generated/graphql/graphql.js';
import { nextLink, previousLink } from './links.js';
import { openApiDocument } from './openapi.js';
import { parseListingParams } from './params.js';
import { toV2Package } from './record.js';
import { renderJson } from './render.js';

export const LISTING_PATH = '/v2/local-package-list/';
export const OPENAPI_PATH = '/v2/openapi.json';
const OPENAPI_BODY = JSON.stringify(openApiDocument);
const ALLOWED = 'GET, HEAD, OPTIONS';
const OPTIONS_BODY = {
  name: 'Local Package List',
  description: '',
  renders: ['application/json'],
  parses: ['application/json'],
};

export interface ListingEndpointOptions {
  /** The service's public base address, e.g. https://api.example.com (no trailing slash), for a request. */
  publicBase: (request: Request) => string;
}

// biome-ignore lint/suspicious/noExplicitAny: the endpoint works with whatever context the app's yoga has
type AnyYoga = YogaServerInstance<any, any>;

export function listingEndpoint({ publicBase }: ListingEndpointOptions): Plugin {
  let yoga: AnyYoga | undefined;

  async function runOperation(request: Request, variables: { limit: number; offset: number; seed?: number }) {
    if (!yoga) throw new Error('the listing endpoint is not attached to a yoga instance');
    const { execute, contextFactory, schema } = yoga.getEnveloped({ request });
    const result = await execute({
      schema,
      document: V2ListingPageDocument,
      variableValues: variables,
      operationName: 'V2ListingPage',
      contextValue: await contextFactory(),
    });
    if (!('data' in result) || result.errors?.length || !result.data) {
      throw new Error(
        `V2ListingPage failed: ${result.errors?.map((e: { message: string }) => e.message).join('; ') ?? 'no data'}`,
      );
    }
    return result.data as V2ListingPageQuery;
  }

  return {
    onYogaInit({ yoga: instance }) {
      yoga = instance as AnyYoga;
    },
    async onRequest({ request, url, endResponse, fetchAPI }) {
      if (url.pathname === LISTING_PATH.slice(0, -1)) {
        // Django's APPEND_SLASH: the path without its trailing slash redirects to the one with it.
        endResponse(
          new fetchAPI.Response(null, { status: 301, headers: { location: `${LISTING_PATH}${url.search}` } }),
        );
        return;
      }
      if (url.pathname === OPENAPI_PATH && (request.method === 'GET' || request.method === 'HEAD')) {
        endResponse(new fetchAPI.Response(OPENAPI_BODY, { headers: { 'content-type': 'application/json' } }));
        return;
      }
      if (url.pathname !== LISTING_PATH) return;

      const respond = (status: number, body: unknown) =>
        endResponse(
          new fetchAPI.Response(request.method === 'HEAD' ? null : renderJson(body), {
            status,
            headers: { 'content-type': 'application/json', vary: 'Accept', allow: ALLOWED },
          }),
        );

      if (request.method === 'OPTIONS') return respond(200, OPTIONS_BODY);
      if (request.method !== 'GET' && request.method !== 'HEAD') {
        return respond(405, { detail: `Method "${request.method}" not allowed.` });
      }
      const parsed = parseListingParams(url.searchParams);
      if (!parsed.ok) return respond(parsed.status, { detail: parsed.detail });

      const { limit, offset, seed } = parsed.params;
      let page: V2ListingPageQuery['packages'];
      try {
        page = (await runOperation(request, seed === undefined ? { limit, offset } : { limit, offset, seed })).packages;
      } catch (error) {
        yoga?.logger.error(error);
        return respond(500, { detail: 'A server error occurred.' });
      }

      // The links carry the seed in force, so a client that sent none keeps one order across the pages.
      const query = new URLSearchParams(url.search);
      if (seed === undefined) query.set('seed', String(page.seed));
      const links = { base: `${publicBase(request)}${LISTING_PATH}`, query, count: page.count, limit, offset };
      return respond(200, {
        count: page.count,
        next: nextLink(links),
        previous: previousLink(links),
        results: page.results.map(toV2Package),
      });
    },
  };
}
