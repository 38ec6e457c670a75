// What the Node edge lets through to routing: Host headers and request targets.
import { describe, expect, it } from 'vitest';
import { originForm, validHost } from '../../src/http/edge.js';

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
    ['/graphql', '/graphql'],
    ['/v2/local-package-list/?limit=1&x=a/../b', '/v2/local-package-list/?limit=1&x=a/../b'],
    ['http://other.example/healthz?x=1', '/healthz?x=1'],
  ])('routes %j as %j', (target, path) => expect(originForm(target)).toBe(path));

  it.each(['', '*', '//metrics', '/v2/../metrics', '/v2\\..\\metrics', '/a/./b', '/a b', 'ftp://x/y', 'metrics'])(
    'refuses %j',
    (target) => expect(originForm(target)).toBeNull(),
  );
});
