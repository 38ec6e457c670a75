// Every path the service answers, in one place: routing, metrics labels and refusals all read them here.
import { LISTING_PATH } from '../v2/path.js';

export { LISTING_PATH };
export const GRAPHQL_PATH = '/graphql';
export const OPENAPI_PATH = '/v2/openapi.json';
export const HEALTH_PATH = '/healthz';
export const LIVE_PATH = '/livez';
export const READY_PATH = '/readyz';
export const METRICS_PATH = '/metrics';

export const ROUTES = [
  GRAPHQL_PATH,
  LISTING_PATH,
  OPENAPI_PATH,
  HEALTH_PATH,
  LIVE_PATH,
  READY_PATH,
  METRICS_PATH,
] as const;

/** The v2 path without its slash: redirected to the path with it, as Django's APPEND_SLASH did. */
export const LISTING_PATH_WITHOUT_SLASH = LISTING_PATH.slice(0, -1);

/** Every path a request may reach the app on; any other gets the 404 page (src/http/not-found.ts). */
export const ROUTED_PATHS: ReadonlySet<string> = new Set([...ROUTES, LISTING_PATH_WITHOUT_SLASH]);

/** The v2 path's headers on every answer, errors included (the v2 contract). */
export const V2_HEADERS = {
  'content-type': 'application/json',
  vary: 'Accept',
  allow: 'GET, HEAD, OPTIONS',
} as const;

/** GET /graphql from a browser (an Accept with text/html): GraphiQL's page, as yoga decides it. */
export const asksForGraphiql = (method: string, accept: string | null | undefined): boolean =>
  method === 'GET' && accept?.includes('text/html') === true;
