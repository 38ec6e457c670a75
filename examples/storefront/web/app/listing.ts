// The listing page: 24 cards at a time in the order of a seed, more on the "More packages" button or when it
// scrolls into view, the filters beside them (facets.ts), and the search. The seed, the search and the filter live in
// the URL (state.ts). Every page of one seed and filter is a slice of one permutation of the matches, so pages
// asked by offset never repeat or skip a package. Answers that come back after a newer request are dropped: the
// last thing the shopper asked for is what the page shows.
import { StorefrontFirstPageDocument, StorefrontPageDocument } from '../generated/graphql.js';
import { query } from './api.js';
import { card } from './card.js';
import { drawFacets, type Facets, type FilterActions } from './facets.js';
import { showMatching } from './filters-panel.js';
import { type ListingState, merge, stateUrl, toggle } from './state.js';

const PAGE_SIZE = 24;

const cards = document.getElementById('cards') as HTMLUListElement;
const more = document.getElementById('more') as HTMLButtonElement;
const count = document.getElementById('count') as HTMLParagraphElement;

let state: ListingState = { search: '', filter: {} };
let total = 0;
/** Bumped by every request that replaces the cards: an answer to an older one is dropped. */
let generation = 0;
let loadingMore = false;

/** The URL of the listing on screen (its seed, search and filter), once its first page is. */
export const listingShown = (): string | undefined => (state.seed === undefined ? undefined : stateUrl(state));

const sortOf = (current: ListingState) => (current.search ? ('RELEVANCE' as const) : undefined);
const filterOf = (current: ListingState) => ({ ...current.filter, ...(current.search && { search: current.search }) });

/** One page of cards (and the facets with the first), in the state's order; a first visit gets its seed here. */
async function fetchPage(current: ListingState, offset: number) {
  if (current.seed === undefined) {
    const { packages } = await query(StorefrontFirstPageDocument, { filter: filterOf(current), sort: sortOf(current) });
    return packages;
  }
  const variables = {
    seed: current.seed,
    offset,
    filter: filterOf(current),
    sort: sortOf(current),
    facets: offset === 0,
  };
  return (await query(StorefrontPageDocument, variables)).packages;
}

function drawCount(): void {
  const shown = cards.children.length;
  count.textContent = total === 0 ? 'No package matches.' : `${shown} of ${total.toLocaleString('en')} packages`;
  more.hidden = shown >= total;
  showMatching(total);
}

/** Shows the first page of `next` (a new search, filter or visit), with its facets. */
export async function showListing(next: ListingState): Promise<void> {
  state = next;
  const mine = ++generation;
  cards.setAttribute('aria-busy', 'true');
  const page = await fetchPage(state, 0);
  if (mine !== generation) return;
  if (state.seed === undefined) {
    state = { ...state, seed: page.seed };
    history.replaceState(history.state, '', stateUrl(state));
  }
  total = page.count;
  cards.replaceChildren(...page.results.map(card));
  if (page.facets) drawFacets(page.facets as Facets, state.filter, actions);
  cards.removeAttribute('aria-busy');
  drawCount();
}

/** Appends the next 24 cards. */
async function showMore(): Promise<void> {
  if (loadingMore || cards.children.length >= total) return;
  loadingMore = true;
  const mine = generation;
  // Said to assistive technology (and to a test tabbing through) while the next cards are on their way.
  cards.setAttribute('aria-busy', 'true');
  try {
    const page = await fetchPage(state, cards.children.length);
    if (mine !== generation) return;
    cards.append(...page.results.map((item) => card(item)));
    drawCount();
  } finally {
    loadingMore = false;
    if (mine === generation) cards.removeAttribute('aria-busy');
  }
}

/**
 * Fetches again every card on screen (after the listing changed) and puts them in place of the old ones, the
 * shopper's scroll position, search and filter untouched.
 */
export async function refreshListing(): Promise<void> {
  if (state.seed === undefined) return; // the first page is on its way, from the new listing already
  const mine = ++generation;
  const pages = Math.max(1, Math.ceil(cards.children.length / PAGE_SIZE));
  const answers = await Promise.all(Array.from({ length: pages }, (_, i) => fetchPage(state, i * PAGE_SIZE)));
  if (mine !== generation) return;
  const scroll = window.scrollY;
  total = answers[0]?.count ?? 0;
  cards.replaceChildren(...answers.flatMap((page, i) => page.results.map((item, j) => card(item, i * PAGE_SIZE + j))));
  const facets = answers[0]?.facets;
  if (facets) drawFacets(facets as Facets, state.filter, actions);
  drawCount();
  window.scrollTo(0, scroll);
}

/** A new filter: the same order, from its first page; a step in the history, so that Back undoes it. */
function filterBy(filter: ListingState['filter']): void {
  const next = { ...state, filter };
  history.pushState(null, '', stateUrl(next));
  void showListing(next);
}

/** A facet value (or its chip) chosen or unchosen, the currency chosen, or every filter cleared. */
const actions: FilterActions = {
  choose: (input) => filterBy(toggle(state.filter, input)),
  apply: (parts) => filterBy(merge(state.filter, parts)),
  clear: () => filterBy({}),
};

/** The search box's text, as the shopper types: the same order, the new search. */
export function search(text: string): void {
  const next = { ...state, search: text.trim() };
  history.replaceState(history.state, '', stateUrl(next));
  void showListing(next);
}

more.addEventListener('click', () => void showMore());
// Scrolling near the end loads more too: the button is the sentinel.
new IntersectionObserver(
  (entries) => {
    if (entries.some((entry) => entry.isIntersecting)) void showMore();
  },
  { rootMargin: '400px' },
).observe(more);
