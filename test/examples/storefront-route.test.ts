// The web storefront's routes (examples/storefront/web/app/route.ts): what each address draws, a package's slug as
// the shopper's address spells it, and an address that is no valid escape an unknown package, never an error.
import { describe, expect, it } from 'vitest';
import { routeOf } from '../../examples/storefront/web/app/route.js';

describe("the storefront's routes", () => {
  it.each([
    ['/', { view: 'listing' }],
    ['/packages/golden-hour-portraits', { view: 'package', slug: 'golden-hour-portraits' }],
    ['/packages/caf%C3%A9-weddings', { view: 'package', slug: 'café-weddings' }],
    ['/packages/%E0%A4%A', { view: 'package', slug: '%E0%A4%A' }],
    ['/packages/100%', { view: 'package', slug: '100%' }],
    ['/packages/', { view: 'nothing' }],
    ['/packages/a/b', { view: 'nothing' }],
    ['/elsewhere', { view: 'nothing' }],
  ])('%s', (pathname, route) => {
    expect(routeOf(pathname)).toEqual(route);
  });
});
