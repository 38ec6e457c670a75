// The listing page: 24 cards at a time in the order of a seed, more on the "More packages" button or when it
// scrolls into view, the facet sidebar beside them, and the search. The seed, the search and the filter live in
// the URL (state.ts). Every page of one seed and filter is a slice of one permutation of the matches, so pages
// asked by offset never repeat or skip a package. Answers that come back after a newer request are dropped: the
// last thing the shopper asked for is what the page shows.
import { type CardFragment, StorefrontFirstPageDocument, StorefrontPageDocument } from '../generated/graphql.js';
import { query } from './api.js';
import { h, imageSrc, money } from './dom.js';
import { drawFacets, type Facets } from './facets.js';
import { type ListingState, stateUrl, toggle } from './state.js';

const PAGE_SIZE = 24;

const cards = document.getElementById('cards') as HTMLUListElement;
const more = document.getElementById('more') as HTMLButtonElement;
const count = document.getElementById('count') as HTMLParagraphElement;
const sidebar = document.getElementById('facets') as HTMLElement;

let state: ListingState = { search: '', filter: {} };
let total = 0;
/** Bumped by every request that replaces the cards: an answer to an older one is dropped. */
let generation = 0;
let loadingMore = false;

/** The URL of the listing on screen (its seed, search and filter), once its first page is. */
export const listingShown = (): string | undefined => (state.seed === undefined ? undefined : stateUrl(state));

/** A card: the package's image, title, price and photographer, linking to its page. */
export function card(item: CardFragment): HTMLLIElement {
  return h(
    'li',
    { class: 'card', 'data-id': item.id },
    h(
      'a',
      { href: `/packages/${encodeURIComponent(item.urlSlug)}`, 'data-route': true },
      item.landscapeImage
        ? h('img', { src: imageSrc(item.landscapeImage), alt: '', width: 400, height: 300, loading: 'lazy' })
        : h('div', { class: 'no-image' }),
      h('h3', {}, item.title),
    ),
    h('p', { class: 'price' }, money(item.price, item.photographer.currencySymbol)),
    h('p', { class: 'by' }, `by ${item.photographer.name}`),
  );
}

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
  if (page.facets) drawFacets(sidebar, page.facets as Facets, state.filter, choose);
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
    cards.append(...page.results.map(card));
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
  cards.replaceChildren(...answers.flatMap((page) => page.results.map(card)));
  const facets = answers[0]?.facets;
  if (facets) drawFacets(sidebar, facets as Facets, state.filter, choose);
  drawCount();
  window.scrollTo(0, scroll);
}

/** A facet value ticked or unticked: the same order, the new filter, from its first page. */
function choose(input: string): void {
  const next = { ...state, filter: toggle(state.filter, input) };
  history.pushState(null, '', stateUrl(next));
  void showListing(next);
}

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
