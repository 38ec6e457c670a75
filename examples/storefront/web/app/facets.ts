// The filters: the currency chooser and each facet the gateway counted beside the filter, with how many packages
// each value would give, and the values chosen as chips above the cards (each one removes its value). Counts are
// disjunctive (a facet is counted without its own part of the filter), so choosing "Weddings" still shows how many
// "Portraits" there are, and choosing both shows either. Prices are in one currency at a time: the price ranges
// are offered once a currency is chosen, in it.
import type { FacetFieldsFragment, PackageFilter } from '../generated/graphql.js';
import { h } from './dom.js';
import { count, currencyName, money } from './format.js';
import { isChosen } from './state.js';

export interface Facets {
  currency: FacetFieldsFragment;
  category: FacetFieldsFragment;
  price: FacetFieldsFragment;
  instantBooking: FacetFieldsFragment;
  featured: FacetFieldsFragment;
  photographer: FacetFieldsFragment;
}

type Value = FacetFieldsFragment['values'][number];
type Parts = Record<string, unknown>;

export interface FilterActions {
  /** A value of a list or yes/no facet chosen, or unchosen when it was (its `input`). */
  choose(input: string): void;
  /** Filter parts set, or removed where null. */
  apply(parts: Parts): void;
  /** Every filter removed at once. */
  clear(): void;
}

/** How each facet with checkboxes is headed, in the order they are shown (the currency is a chooser above). */
const HEADINGS = {
  category: 'Category',
  price: 'Price',
  instantBooking: 'Instant booking',
  featured: 'Featured',
  photographer: 'Photographer',
} as const;
type Listed = keyof typeof HEADINGS;

/** Facets whose values ("Yes", "No") say nothing without the facet's name, on a chip. */
const YES_NO = new Set<Listed>(['instantBooking', 'featured']);
/** A price range chosen or removed leaves the currency; a range without an end clears the end of another. */
const NO_PRICE = { priceMin: null, priceMax: null };
const NO_CURRENCY = { currency: null, ...NO_PRICE };

const priceParts = (value: Value): Parts => ({ priceMax: null, ...(JSON.parse(value.input) as Parts) });

/** A price range in its currency: "$100 to $249.99", "$2,500 and over". */
function priceLabel(value: Value): string {
  const { currency, priceMin, priceMax } = priceParts(value) as Record<string, string | null>;
  if (!currency || !priceMin) return value.label;
  return priceMax
    ? `${money(priceMin, currency)} to ${money(priceMax, currency)}`
    : `${money(priceMin, currency)} and over`;
}

const groups = document.getElementById('facet-groups') as HTMLElement;
const chips = document.getElementById('chips') as HTMLUListElement;
const openButton = document.getElementById('filters-open') as HTMLButtonElement;
const main = document.getElementById('main') as HTMLElement;

/** The currency chooser: every currency of the listing (with how many packages are priced in it), or any. */
function currencyChooser(facet: FacetFieldsFragment, filter: PackageFilter, actions: FilterActions): HTMLElement {
  const chosen = filter.currency?.toUpperCase() ?? '';
  const select = h(
    'select',
    { id: 'facet-currency' },
    h('option', { value: '', selected: chosen === '' }, 'Any currency'),
    facet.values
      .filter((value) => value.count > 0 || value.value === chosen)
      .map((value) =>
        h(
          'option',
          { value: value.value, selected: value.value === chosen },
          `${currencyName(value.value)} (${count(value.count)})`,
        ),
      ),
  );
  select.addEventListener('change', () =>
    actions.apply(select.value ? { ...NO_PRICE, currency: select.value } : NO_CURRENCY),
  );
  return h('div', { class: 'facet currency' }, h('label', { for: 'facet-currency' }, 'Currency'), select);
}

/** Draws the filters and the chips of the values chosen in `filter`. */
export function drawFacets(facets: Facets, filter: PackageFilter, actions: FilterActions): void {
  // Where the focus was, so that redrawing after a choice leaves the keyboard where it was.
  const focused = document.activeElement?.id;
  const chosen: HTMLLIElement[] = [];
  if (filter.currency) {
    const code = filter.currency.toUpperCase();
    chosen.push(chip('chip-currency', `Prices in ${code}`, () => actions.apply(NO_CURRENCY)));
  }
  const fieldsets = (Object.keys(HEADINGS) as Listed[]).map((name) => {
    const isPrice = name === 'price';
    if (isPrice && !filter.currency) {
      return h(
        'fieldset',
        { class: 'facet' },
        h('legend', {}, HEADINGS.price),
        h('p', { class: 'hint' }, 'Choose a currency to filter by price.'),
      );
    }
    const on = (value: Value) => isChosen(filter, isPrice ? JSON.stringify(priceParts(value)) : value.input);
    // A value that would give nothing is left out, unless it is chosen (so it can be unchosen).
    const values = facets[name].values.filter((value) => value.count > 0 || on(value));
    if (values.length === 0) return null;
    return h(
      'fieldset',
      { class: 'facet' },
      h('legend', {}, HEADINGS[name]),
      values.map((value) => {
        const id = `facet-${name}-${value.value}`;
        const label = isPrice ? priceLabel(value) : value.label;
        const toggle = isPrice
          ? () => actions.apply(on(value) ? NO_PRICE : priceParts(value))
          : () => actions.choose(value.input);
        const box = h('input', { type: 'checkbox', id, checked: on(value) });
        box.addEventListener('change', toggle);
        if (on(value))
          chosen.push(
            chip(`chip-${name}-${value.value}`, YES_NO.has(name) ? `${HEADINGS[name]}: ${label}` : label, toggle),
          );
        return h(
          'div',
          { class: 'facet-value' },
          box,
          h('label', { for: id }, label, ' ', h('span', { class: 'count' }, `(${count(value.count)})`)),
        );
      }),
    );
  });
  groups.replaceChildren(currencyChooser(facets.currency, filter, actions), ...(fieldsets.filter(Boolean) as Node[]));
  openButton.textContent = chosen.length > 0 ? `Filters (${chosen.length})` : 'Filters';
  if (chosen.length > 1) chosen.push(chip('chip-clear', 'Clear all', actions.clear, 'Remove every filter', false));
  chips.replaceChildren(...chosen);
  if (!focused) return;
  const again = document.getElementById(focused);
  // A chip removed takes the focus with it: it goes to the first chip left, or to the page.
  if (again) again.focus();
  else if (focused.startsWith('chip-')) (chips.querySelector('button') ?? main).focus({ preventScroll: true });
}

/** A chosen value as a chip: a button that removes it. */
function chip(
  id: string,
  label: string,
  remove: () => void,
  name = `Remove filter: ${label}`,
  cross = true,
): HTMLLIElement {
  const button = h(
    'button',
    { type: 'button', id, class: 'chip', 'aria-label': name },
    label,
    cross ? h('span', { 'aria-hidden': 'true' }, ' ×') : null,
  );
  button.addEventListener('click', remove);
  return h('li', {}, button);
}
