// The storefront in the browser: one page that draws the route it is at (the listing at /, a package at
// /packages/<slug>) and moves between them without loading again, so the listing keeps its cards and place while a
// package is open. Links marked data-route are followed here; the back button comes back to the listing as it was.
import './style.css';
import { listingShown, refreshListing, search, showListing } from './listing.js';
import { watchListing } from './live.js';
import { drawNotFound, refreshPackage, showPackage } from './package-page.js';
import { routeOf } from './route.js';
import { readState, stateUrl } from './state.js';

const listing = document.getElementById('listing') as HTMLElement;
const packageView = document.getElementById('package') as HTMLElement;
const searchBox = document.getElementById('q') as HTMLInputElement;
const live = document.getElementById('live') as HTMLElement;
const main = document.getElementById('main') as HTMLElement;

/** Milliseconds the search waits after a keystroke for the next one, so that a word typed is one request. */
const SEARCH_PAUSE = 200;

async function route(): Promise<void> {
  const { pathname, search: query } = location;
  const shown = routeOf(pathname);
  const onListing = shown.view === 'listing';
  listing.hidden = !onListing;
  packageView.hidden = onListing;
  if (onListing) {
    document.title = 'Photography packages';
    const state = readState(query);
    searchBox.value = state.search;
    // Back from a package to the listing it left: its cards are still there.
    if (listingShown() !== stateUrl(state)) await showListing(state);
    window.scrollTo(0, (history.state as { scroll?: number } | null)?.scroll ?? 0);
  } else if (shown.view === 'package') {
    window.scrollTo(0, 0);
    await showPackage(shown.slug);
  } else drawNotFound('Page not found', `There is nothing at ${pathname}.`);
}

/** Follows a data-route link here: the place on the page left is kept in its history entry, for the way back. */
document.addEventListener('click', (event) => {
  const link = (event.target as Element).closest<HTMLAnchorElement>('a[data-route]');
  if (!link || event.defaultPrevented || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey) return;
  event.preventDefault();
  history.replaceState({ scroll: window.scrollY }, '');
  history.pushState(null, '', link.href);
  void route().then(() => main.focus({ preventScroll: true }));
});
addEventListener('popstate', () => void route());
history.scrollRestoration = 'manual';

// Search as the shopper types, once they pause; Enter searches at once.
let pause: ReturnType<typeof setTimeout> | undefined;
const searchNow = () => {
  clearTimeout(pause);
  if (location.pathname !== '/') history.pushState(null, '', '/');
  listing.hidden = false;
  packageView.hidden = true;
  search(searchBox.value);
};
searchBox.addEventListener('input', () => {
  clearTimeout(pause);
  pause = setTimeout(searchNow, SEARCH_PAUSE);
});
(document.getElementById('search') as HTMLFormElement).addEventListener('submit', (event) => {
  event.preventDefault();
  searchNow();
});

watchListing((change) => {
  void Promise.all([refreshListing(), refreshPackage()]).then(() => {
    if (change)
      live.textContent = `The listing changed: ${change.count.toLocaleString('en')} packages now, shown below.`;
  });
});

void route();
