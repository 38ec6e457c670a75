// Which view an address of the storefront draws, from its path alone (main.ts draws it).

export type Route = { view: 'listing' } | { view: 'package'; slug: string } | { view: 'nothing' };

/**
 * The view at `pathname`: the listing at /, a package at /packages/<slug>, nothing anywhere else. A slug that is
 * not a valid escape (%E0%A4%A) is kept as the address spells it: no package has it, so it is an unknown package.
 */
export function routeOf(pathname: string): Route {
  if (pathname === '/') return { view: 'listing' };
  const slug = /^\/packages\/([^/]+)$/.exec(pathname)?.[1];
  if (slug === undefined) return { view: 'nothing' };
  try {
    return { view: 'package', slug: decodeURIComponent(slug) };
  } catch {
    return { view: 'package', slug };
  }
}
