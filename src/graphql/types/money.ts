// Money: an amount with its currency (after Shopify's MoneyV2 and Saleor's Money). A price without its currency
// reads "295.00" for dollars and yen alike; every price of the schema is given as Money, the bare Decimal fields
// kept, deprecated. A package's prices are in its photographer's currency, the override where one is set
// (src/db/write/read-model.ts: effectiveCurrency); the package read brings it (src/listing/store.ts).
import { builder } from '../builder.js';

export interface MoneyValue {
  amount: string;
  currencyCode: string;
  symbol: string;
}

/** What a read brings beside a priced record: the currency its prices are in, when the selection asked for it. */
export interface Priced {
  currencyCode?: string;
  currencySymbol?: string;
}

/** The deprecation reason of a bare Decimal price whose Money field is `replacement`. */
export const useMoney = (replacement: string) =>
  `Use ${replacement}: the amount with its currency. This bare amount cannot tell dollars from yen.`;

/** `amount` in the currency of `record` (a package row read with its currency, or an add-on carrying it). */
export function moneyOf(amount: string, record: object): MoneyValue {
  const { currencyCode, currencySymbol } = record as Priced;
  // Every read whose selection has a Money field brings the currency (reads('currency')).
  if (currencyCode === undefined || currencySymbol === undefined)
    throw new Error('a price was read without its currency');
  return { amount, currencyCode, symbol: currencySymbol };
}

export const Money = builder.objectRef<MoneyValue>('Money').implement({
  description: "An amount of money in one currency, after Shopify's MoneyV2.",
  fields: (t) => ({
    amount: t.field({
      type: 'Decimal',
      description: 'The amount, 2 decimals, e.g. "295.00".',
      resolve: (m) => m.amount,
    }),
    currencyCode: t.exposeString('currencyCode', {
      description: 'The currency, an ISO 4217 code in upper case, e.g. "USD", "JPY".',
    }),
    symbol: t.exposeString('symbol', {
      description: 'The currency symbol as the photographer shows it, e.g. "$", "¥", "CA$".',
    }),
  }),
});
