// The currency and price facets. A price is an amount in its package's currency (src/db/write/read-model.ts:
// effectiveCurrency), so no range ever holds two currencies: the price facet's ranges are a currency's own, and
// without a currency in the filter it gives every currency's ranges, one currency after the other.
//
// A currency's ranges suit its magnitude: the same ladder (0, 1, 2.5, 5, 10 and 25 units) times a unit that is the
// power of ten nearest a fifth of the currency's median listed price, so the median sits in the middle of the
// ladder (US dollars: 0, 100, 250, 500, 1000, 2500; yen: 0, 10000, 25000, ...). The median is the whole listing's,
// not the filter's: a currency's ranges are the same under every filter of a listing version.
import { type Facet, type FacetColumns, forEach, input, type Positions } from './facets.js';

/** A range's lower edge in tenths of its currency's unit. */
const LADDER_TENTHS = [0, 10, 25, 50, 100, 250];

/** No unit below one whole of the currency (100 cents). */
const MIN_UNIT_CENTS = 100;

/** The unit of a currency whose median price is `medianCents`: the power of ten nearest a fifth of it. */
export function priceUnitCents(medianCents: number): number {
  if (!(medianCents > 0)) return MIN_UNIT_CENTS;
  return Math.max(MIN_UNIT_CENTS, 10 ** Math.round(Math.log10(medianCents / 5)));
}

/** The lower edges of a currency's ranges, in cents; each range ends a cent below the next, the last has no end. */
export const priceEdgesCents = (unitCents: number): number[] =>
  LADDER_TENTHS.map((tenths) => (tenths * unitCents) / 10);

const edgesByColumns = new WeakMap<FacetColumns, number[][]>();

/** Each currency's range edges, by its index in the columns' codes (worked out once per listing version). */
export function currencyEdges(columns: FacetColumns): number[][] {
  let edges = edgesByColumns.get(columns);
  if (!edges) {
    const prices: number[][] = columns.currencyCodes.map(() => []);
    for (let p = 0; p < columns.currency.length; p++) {
      prices[columns.currency[p] as number]?.push(columns.priceCents[p] as number);
    }
    edges = prices.map((list) => {
      list.sort((a, b) => a - b);
      return priceEdgesCents(priceUnitCents(list[Math.floor((list.length - 1) / 2)] ?? 0));
    });
    edgesByColumns.set(columns, edges);
  }
  return edges;
}

/** Cents as a 2-decimal amount ("1500.00"); exact, prices are whole cents. */
export const amount = (cents: number) => `${Math.floor(cents / 100)}.${String(cents % 100).padStart(2, '0')}`;

/**
 * The price ranges with their counts: of `currency` (an ISO code) when given, else of every currency of the
 * listing, in code order; and, in one currency, the lowest and highest price counted.
 */
export function priceFacet(columns: FacetColumns, positions: Positions, currency: string | undefined): Facet {
  const edges = currencyEdges(columns);
  const only = currency === undefined ? -1 : columns.currencyCodes.indexOf(currency);
  const wanted = (c: number) => currency === undefined || c === only;
  const counts = edges.map((ladder) => ladder.map(() => 0));
  let min = Number.POSITIVE_INFINITY;
  let max = Number.NEGATIVE_INFINITY;
  forEach(positions, columns.priceCents.length, (p) => {
    const c = columns.currency[p] as number;
    if (!wanted(c)) return;
    const cents = columns.priceCents[p] as number;
    const ladder = edges[c] as number[];
    let range = ladder.length - 1;
    while (range > 0 && cents < (ladder[range] as number)) range--;
    (counts[c] as number[])[range] = ((counts[c] as number[])[range] as number) + 1;
    if (cents < min) min = cents;
    if (cents > max) max = cents;
  });
  const values = columns.currencyCodes.flatMap((code, c) => {
    if (!wanted(c)) return [];
    const ladder = edges[c] as number[];
    return ladder.map((from, range) => {
      const next = ladder[range + 1];
      const to = next === undefined ? undefined : amount(next - 1);
      return {
        value: `${code}:${amount(from)}-${to ?? ''}`,
        label: to === undefined ? `${code} ${amount(from)} and over` : `${code} ${amount(from)} to ${to}`,
        count: (counts[c] as number[])[range] as number,
        input: input({ currency: code, priceMin: amount(from), priceMax: to ?? null }),
      };
    });
  });
  const one = only >= 0 && Number.isFinite(min);
  return {
    id: 'price',
    label: 'Price',
    type: 'PRICE_RANGE',
    values,
    min: one ? amount(min) : null,
    max: one ? amount(max) : null,
    currency: one ? { code: currency as string, symbol: columns.currencySymbols[only] ?? (currency as string) } : null,
  };
}

/**
 * Every currency of the listing with how many of the positions are priced in it, in code order. Choosing one
 * clears the price bounds, which were in another currency or in this one.
 */
export function currencyFacet(columns: FacetColumns, positions: Positions): Facet {
  const counts = new Int32Array(columns.currencyCodes.length);
  forEach(positions, columns.currency.length, (p) => {
    const c = columns.currency[p] as number;
    counts[c] = (counts[c] as number) + 1;
  });
  const values = columns.currencyCodes.map((code, c) => ({
    value: code,
    label: code,
    count: counts[c] as number,
    input: input({ currency: code, priceMin: null, priceMax: null }),
  }));
  return { id: 'currency', label: 'Currency', type: 'LIST', values };
}
