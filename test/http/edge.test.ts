// What the Node edge lets through to routing: Host headers and request targets.
import { describe, expect, it } from 'vitest';
import { resolveTarget, validHost } from '../../src/http/edge.js';

describe('Host header', () => {
  it.each(['localhost', 'api.example.com', 'api.example.com.', '127.0.0.1:4000', '[::1]:4000', 'a-b.c:65535'])(
    'accepts %j',
    (host) => expect(validHost(host)).toBe(true),
  );
  it.each([
    '',
    'a b',
    '[',
    'a:99999',
    '<x>',
    'x/metrics?',
    'x\\metrics',
    'x?y',
    'x#y',
    'user@host',
    '-a.com',
    undefined,
  ])('refuses %j', (host) => expect(validHost(host)).toBe(false));
});

describe('request target', () => {
  it.each([
    ['/graphql', { path: '/graphql', query: null }],
    ['/v2/local-package-list/?limit=1&x=a/../b', { path: '/v2/local-package-list/', query: 'limit=1&x=a/../b' }],
    ['/v2/local%2Dpackage-list/?seed=7#', { path: '/v2/local-package-list/', query: 'seed=7#' }],
    ['/v2%2flocal-package-list', { path: '/v2/local-package-list', query: null }],
    ['/healthz?', { path: '/healthz', query: '' }],
    ['http://other.example/healthz?x=1', { path: '/healthz', query: 'x=1' }],
  ])('routes %j as Django would', (target, route) => expect(resolveTarget(target)).toEqual(route));

  it.each([
    '',
    '*',
    '//metrics',
    '/v2/../metrics',
    '/v2\\..\\metrics',
    '/v2/./local-package-list/',
    '/v2/local-package-list/extra/',
    '/V2/local-package-list/',
    '/graphql/',
    '/v2/local-package-list/%ff',
    '/%zz',
    '/a b',
    'ftp://x/y',
    'metrics',
    // Only the legacy v2 path is percent-decoded: an encoded operational route would walk around a proxy rule.
    '/%6Detrics',
    '/%68ealthz',
    '/%6civez',
    '/%67raphql?query={__typename}',
    '/v2/openapi%2Ejson',
  ])('leads %j to no route (the 404 page)', (target) => expect(resolveTarget(target)).toBeNull());
});
