// The demo data's prices are sized for the currency they are shown in: the photographer's override currency where
// set, else its own (the API's rule, docs/graphql.md "Money"). Priced in one currency and shown in another, a
// photographer's packages read as EUR-sized amounts labelled yen (a ¥155 real estate shoot) or yen-sized amounts
// labelled dollars ($154,000), and each currency's price ranges and medians were off.
import { describe, expect, it } from 'vitest';
import { CURRENCIES, type Currency } from '../../src/demo/catalogue-markets.js';
import { ADD_ONS, CATEGORIES } from '../../src/demo/catalogue-offers.js';
import { generatePackages } from '../../src/demo/generate.js';
import type { V2Package, V2Photographer } from '../../src/v2/records.js';

const records: V2Package[] = [...generatePackages({ count: 2000 })];

/** The currency a photographer's prices are shown in. */
function shownIn(photographer: V2Photographer): Currency {
  const code = photographer.override_currency_code || photographer.currency_code;
  const currency = Object.values(CURRENCIES).find((c) => c.code === code);
  if (!currency) throw new Error(`no demo currency ${code}`);
  return currency;
}

/** An amount in US dollars at the demo's rough rate. */
const dollars = (amount: string, currency: Currency) => Number(amount) / currency.perUsd;

/** Demo prices are the catalogue's dollar figure, converted, give or take 10%, then rounded: 15% is the margin. */
const within = (usd: number, low: number, high: number) => usd >= low * 0.85 && usd <= high * 1.15;

describe('demo prices and their currency', () => {
  it('has photographers shown in another currency than their own', () => {
    const overridden = records.filter((p) => p.photographer.override_currency_code);
    expect(overridden.length).toBeGreaterThan(100);
    expect(overridden.every((p) => p.photographer.override_currency_code !== p.photographer.currency_code)).toBe(true);
  });

  it("prices each package in its category's range, in the currency it is shown in", () => {
    const wrong = records.filter((p) => {
      const category = CATEGORIES.find((c) => c.code === p.category);
      if (!category) return true;
      return !within(dollars(p.price, shownIn(p.photographer)), ...category.price);
    });
    expect(wrong.map((p) => `${p.url_slug}: ${p.price} ${shownIn(p.photographer).code}`)).toEqual([]);
  });

  it('prices add-ons and flat deposits in the currency their package is shown in', () => {
    const wrong: string[] = [];
    for (const p of records) {
      const currency = shownIn(p.photographer);
      for (const { package_add_on_template: addOn } of p.linked_add_ons) {
        const usd = ADD_ONS.find(([name]) => name === addOn.name)?.[1] ?? Number.NaN;
        if (!within(dollars(addOn.price, currency), usd, usd)) wrong.push(`${addOn.name}: ${addOn.price}`);
      }
      // A deposit is a share of the price, or without one a flat retainer of 50, 100 or 250 dollars, or none.
      const flat = p.deposit_fraction === null && p.payment_schedule === null;
      const deposit = dollars(p.deposit, currency);
      if (flat ? deposit !== 0 && !within(deposit, 50, 250) : Number(p.deposit) > Number(p.price)) {
        wrong.push(`${p.url_slug} deposit: ${p.deposit} ${currency.code}`);
      }
    }
    expect(wrong).toEqual([]);
  });
});
