// Paths routed as Django routed the legacy service, over real HTTP to a started server: every path that is not
// one of ours gets Django's 404 page, the v2 path is percent-decoded before it is routed (no other is), a dot segment is no path of
// ours, a raw `#` belongs to the query; and nothing in a query string reaches yoga's own routes.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rawRequest } from '../helpers/http.js';
import { type ServerProcess, startServer } from '../helpers/server-process.js';
import { copyOfTemplate } from '../helpers/templates.js';

const DJANGO_404 =
  '\n<!doctype html>\n<html lang="en">\n<head>\n  <title>Not Found</title>\n</head>\n<body>\n  <h1>Not Found</h1><p>The requested resource was not found on this server.</p>\n</body>\n</html>\n';

let server: ServerProcess;

beforeAll(async () => {
  server = await startServer({ DATA_DIR: copyOfTemplate(), SEED_PACKAGES: '12', RATE_LIMIT: '0' });
});
afterAll(() => server?.stop('SIGKILL'));

describe('paths as Django routes them', () => {
  it.each([
    ['GET', '/nope', 'text/html'],
    ['GET', '/v2/local-package-list/extra/', 'text/html'],
    ['GET', '/V2/local-package-list/', 'text/html'],
    ['GET', '/v2/./local-package-list/', 'application/json'],
    ['GET', '/v2/../metrics', '*/*'],
    ['GET', '//metrics', '*/*'],
    ['GET', '/graphql/', 'text/html'],
    ['GET', '/health', '*/*'],
    ['GET', '/v2/local-package-list/%ff', '*/*'],
    // Percent-decoding is for the legacy v2 path only: an encoded operational route is no path of ours.
    ['GET', '/%6Detrics', '*/*'],
    ['GET', '/%68ealthz', '*/*'],
    ['GET', '/%67raphql?query=%7B__typename%7D', '*/*'],
    ['POST', '/nope', 'application/json'],
    ['DELETE', '/v2/local-package-list/x', '*/*'],
  ])('%s %s (Accept %s) gets the 404 page, 179 bytes of HTML', async (method, path, accept) => {
    const answer = await rawRequest(server.url, { method, path, headers: { accept } });
    expect(answer.status).toBe(404);
    expect(answer.headers['content-type']).toBe('text/html');
    expect(answer.body).toBe(DJANGO_404);
    expect(Buffer.byteLength(answer.body)).toBe(179);
  });

  it('answers HEAD on an unknown path with the same headers and no body', async () => {
    const answer = await rawRequest(server.url, { method: 'HEAD', path: '/nope' });
    expect(answer.status).toBe(404);
    expect(answer.headers['content-length']).toBe('179');
    expect(answer.body).toBe('');
  });

  it('decodes percent-escapes before routing: /v2/local%2Dpackage-list/ is the listing', async () => {
    const plain = await rawRequest(server.url, { path: '/v2/local-package-list/?limit=2&seed=4' });
    const escaped = await rawRequest(server.url, { path: '/v2/local%2Dpackage-list/?limit=2&seed=4' });
    expect(escaped.status).toBe(200);
    expect(escaped.body).toBe(plain.body);
  });

  it('keeps a raw # in the query: ?seed=7# is the seed "7#", a 400', async () => {
    const answer = await rawRequest(server.url, { path: '/v2/local-package-list/?seed=7#' });
    expect(answer.status).toBe(400);
    expect(answer.body).toBe('{"detail":"Invalid seed \\"7#\\": expected an integer from -2147483648 to 2147483647."}');
  });

  it('redirects the path without its slash with the query exactly as received', async () => {
    const answer = await rawRequest(server.url, { path: '/v2/local%2Dpackage-list?b=1&a=%7C|#x' });
    expect(answer.status).toBe(301);
    expect(answer.headers.location).toBe('/v2/local-package-list/?b=1&a=%7C%7C#x');
    const empty = await rawRequest(server.url, { path: '/v2/local-package-list?' });
    expect(empty.headers.location).toBe('/v2/local-package-list/');
  });

  it("never lets a query string reach yoga's own health check, GraphiQL or landing page", async () => {
    const health = await rawRequest(server.url, { path: '/v2/local-package-list/?limit=1&seed=2&a=/health' });
    expect(health.status).toBe(200);
    expect(health.body).toMatch(/^\{"count":12,/);
    const graphiql = await rawRequest(server.url, {
      path: '/v2/local-package-list/?a=/graphql',
      headers: { accept: 'text/html' },
    });
    expect(graphiql.status).toBe(406);
    expect(graphiql.headers['content-type']).toBe('application/json');
    const metricsPost = await rawRequest(server.url, {
      method: 'POST',
      path: '/metrics',
      headers: { accept: 'text/html' },
    });
    expect(metricsPost.status).toBe(405);
    expect(metricsPost.headers.allow).toBe('GET, HEAD');
  });

  it('refuses a compressed request body with 415 and says which codings it takes', async () => {
    const answer = await rawRequest(server.url, {
      method: 'POST',
      path: '/graphql',
      headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' },
      body: Buffer.from([0x1f, 0x8b, 0x08, 0x00]),
    });
    expect(answer.status).toBe(415);
    expect(answer.headers['accept-encoding']).toBe('identity');
    expect(JSON.parse(answer.body).errors[0].extensions.code).toBe('UNSUPPORTED_MEDIA_TYPE');
    expect(answer.body).not.toContain('SyntaxError');
  });
});
