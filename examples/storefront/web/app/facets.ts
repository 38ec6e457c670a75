// The filter sidebar: each facet the gateway counted beside the filter, with how many packages each value would
// give. Counts are disjunctive (a facet is counted without its own part of the filter), so choosing "Weddings"
// still shows how many "Portraits" there are, and choosing both shows either.
import type { FacetFieldsFragment, PackageFilter } from '../generated/graphql.js';
import { h } from './dom.js';
import { isChosen } from './state.js';

export interface Facets {
  category: FacetFieldsFragment;
  price: FacetFieldsFragment;
  instantBooking: FacetFieldsFragment;
  featured: FacetFieldsFragment;
  photographer: FacetFieldsFragment;
}

/** How each facet is headed. */
const HEADINGS: Record<keyof Facets, string> = {
  category: 'Category',
  price: 'Price',
  instantBooking: 'Instant booking',
  featured: 'Featured',
  photographer: 'Photographer',
};

/** Draws the sidebar; `choose` gets the filter part of the value the shopper ticked or unticked. */
export function drawFacets(
  container: HTMLElement,
  facets: Facets,
  filter: PackageFilter,
  choose: (input: string) => void,
): void {
  // Where the focus was, so that redrawing after a choice leaves the keyboard where it was.
  const focused = document.activeElement?.id;
  const groups = (Object.keys(HEADINGS) as (keyof Facets)[]).map((name) => {
    const facet = facets[name];
    // A value that would give nothing is left out, unless it is chosen (so it can be unchosen).
    const values = facet.values.filter((value) => value.count > 0 || isChosen(filter, value.input));
    if (values.length === 0) return null;
    return h(
      'fieldset',
      { class: 'facet' },
      h('legend', {}, HEADINGS[name]),
      values.map((value) => {
        const id = `facet-${name}-${value.id}`;
        const box = h('input', { type: 'checkbox', id, checked: isChosen(filter, value.input) });
        box.addEventListener('change', () => choose(value.input));
        return h(
          'div',
          { class: 'facet-value' },
          box,
          h('label', { for: id }, value.label, ' ', h('span', { class: 'count' }, `(${value.count})`)),
        );
      }),
    );
  });
  container.replaceChildren(h('h2', { class: 'visually-hidden' }, 'Filters'), ...(groups.filter(Boolean) as Node[]));
  if (focused) document.getElementById(focused)?.focus();
}
