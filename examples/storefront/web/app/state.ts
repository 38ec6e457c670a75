// What the listing shows, kept in the URL so that a reload or a shared link shows the same: the seed of the order,
// the search, and the filter, one parameter per part (?seed=42&q=wedding&categories=1,3&currency=EUR&priceMin=100).
// Facet values are chosen and unchosen by the filter part each one names (its `input`), whatever the facet; a part
// given as null in an input is one the value clears.
import type { PackageFilter } from '../generated/graphql.js';

export interface ListingState {
  /** Unknown on a first visit: the gateway draws one, and the URL takes it. */
  seed?: number;
  search: string;
  filter: PackageFilter;
}

/** How each filter part is written in the URL. */
const PARTS: Record<string, 'numbers' | 'boolean' | 'text'> = {
  categories: 'numbers',
  currency: 'text',
  priceMin: 'text',
  priceMax: 'text',
  instantBooking: 'boolean',
  featured: 'boolean',
  photographerId: 'text',
};

export function readState(search: string): ListingState {
  const params = new URLSearchParams(search);
  const filter: Record<string, unknown> = {};
  for (const [name, kind] of Object.entries(PARTS)) {
    const value = params.get(name);
    if (value === null || value === '') continue;
    if (kind === 'numbers') filter[name] = value.split(',').map(Number).filter(Number.isInteger);
    else if (kind === 'boolean') filter[name] = value === 'true';
    else filter[name] = value;
  }
  // Parts the gateway would refuse are left out, so that an old or edited link still shows a listing: a currency
  // is three letters, a price bound is an amount in it (links from before currencies have bounds alone), and a
  // photographer is named by a UUID.
  if (!/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(String(filter.photographerId ?? ''))) {
    delete filter.photographerId;
  }
  if (/^[A-Za-z]{3}$/.test(String(filter.currency ?? ''))) filter.currency = String(filter.currency).toUpperCase();
  else delete filter.currency;
  for (const bound of ['priceMin', 'priceMax']) {
    if (!filter.currency || !/^\d{1,9}(\.\d{1,2})?$/.test(String(filter[bound] ?? ''))) delete filter[bound];
  }
  const seed = Number(params.get('seed'));
  return {
    ...(params.has('seed') && Number.isInteger(seed) && { seed }),
    search: params.get('q') ?? '',
    filter: filter as PackageFilter,
  };
}

export function stateUrl(state: ListingState): string {
  const params = new URLSearchParams();
  if (state.seed !== undefined) params.set('seed', String(state.seed));
  if (state.search) params.set('q', state.search);
  for (const name of Object.keys(PARTS)) {
    const value = (state.filter as Record<string, unknown>)[name];
    if (value === undefined || value === null) continue;
    params.set(name, Array.isArray(value) ? value.join(',') : String(value));
  }
  const query = params.toString();
  return query ? `/?${query.replaceAll('%2C', ',')}` : '/';
}

/**
 * Whether a facet value's filter part is chosen: each of its list items in the filter's list, each value equal,
 * each null part absent.
 */
export function isChosen(filter: PackageFilter, input: string): boolean {
  const current = filter as Record<string, unknown>;
  return Object.entries(JSON.parse(input) as Record<string, unknown>).every(([name, value]) => {
    const now = current[name];
    if (value === null) return now === undefined || now === null;
    return Array.isArray(value) ? Array.isArray(now) && value.every((item) => now.includes(item)) : now === value;
  });
}

/**
 * The filter with a facet value chosen, or unchosen when it was. Values of one list facet add up (any of the
 * categories chosen); any other value takes its part's place (one price range, yes or no).
 */
export function toggle(filter: PackageFilter, input: string): PackageFilter {
  const next: Record<string, unknown> = { ...filter };
  const chosen = isChosen(filter, input);
  for (const [name, value] of Object.entries(JSON.parse(input) as Record<string, unknown>)) {
    const now = Array.isArray(next[name]) ? (next[name] as unknown[]) : [];
    if (Array.isArray(value)) {
      const list = chosen ? now.filter((item) => !value.includes(item)) : [...new Set([...now, ...value])];
      if (list.length > 0) next[name] = list;
      else delete next[name];
    } else if (chosen || value === null) delete next[name];
    else next[name] = value;
  }
  return next as PackageFilter;
}

/** The filter with `parts` put in: each part set to its value, or removed where it is null. */
export function merge(filter: PackageFilter, parts: Record<string, unknown>): PackageFilter {
  const next: Record<string, unknown> = { ...filter };
  for (const [name, value] of Object.entries(parts)) {
    if (value === null || value === undefined) delete next[name];
    else next[name] = value;
  }
  return next as PackageFilter;
}
