// CSRF: a browser sends a form-encoded, multipart or text/plain POST to any site without asking first (a
// "simple" request, no CORS preflight), with the user's cookies. Such a POST to /graphql is refused before it
// is parsed; JSON POSTs (which browsers preflight) and GET queries (which change nothing) go through, so curl
// and browsers keep working without extra headers. Yoga's own csrfPrevention plugin would also demand a custom
// header on every GET, which plain links and CDN-cached GET queries cannot carry.
import type { Plugin } from 'graphql-yoga';
import { refusalResponse } from './refusals.js';
import { GRAPHQL_PATH } from './routes.js';

const JSON_TYPES = new Set(['application/json', 'application/graphql-response+json', 'application/graphql+json']);

/** The media type a POST's Content-Type names, lowercase, without parameters ('' without one). */
const mediaTypeOf = (contentType: string | null | undefined) => contentType?.split(';')[0]?.trim().toLowerCase() ?? '';

/** Whether a POST to /graphql with this Content-Type is let through (a JSON type: browsers preflight those). */
export const postIsJson = (contentType: string | null | undefined) => JSON_TYPES.has(mediaTypeOf(contentType));

export function postsMustBeJson(): Plugin {
  return {
    onRequest({ request, url, fetchAPI, endResponse }) {
      if (url.pathname !== GRAPHQL_PATH || request.method !== 'POST') return;
      const type = mediaTypeOf(request.headers.get('content-type'));
      if (JSON_TYPES.has(type)) return;
      endResponse(
        refusalResponse(fetchAPI.Response, request, url.pathname, {
          status: 415,
          code: 'UNSUPPORTED_MEDIA_TYPE',
          message: `POST ${GRAPHQL_PATH} takes a JSON body (Content-Type: application/json), got ${type ? JSON.stringify(type) : 'no Content-Type'}.`,
        }),
      );
    },
  };
}
