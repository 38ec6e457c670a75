// Values as a shopper reads them: the listing's decimals ("8.250", "0.500000000") and counts become words ("8¼
// hours", "50% deposit", "1 day"). Pure functions of their input (no DOM), so that Node can check them too.

/** The page's language (index.html's lang): numbers are written as its readers write them. */
const LOCALE = 'en';

const numbers = new Intl.NumberFormat(LOCALE, { maximumFractionDigits: 1 });
const percents = new Intl.NumberFormat(LOCALE, { style: 'percent', maximumFractionDigits: 1 });
/** Amounts with no currency: cents when there are any ("249.99", "1,000"). */
const amounts = new Intl.NumberFormat(LOCALE, { minimumFractionDigits: 2, trailingZeroDisplay: 'stripIfInteger' });

/** 1234 -> "1,234"; 2.25 -> "2.3" (one decimal at most). */
export const count = (value: number): string => numbers.format(value);

/** "1 day", "3 days": a count with its noun, plural unless it is one. */
export function counted(value: number, one: string, many = `${one}s`): string {
  return `${count(value)} ${value === 1 ? one : many}`;
}

/** Quarters of an hour as the vulgar fractions people write. */
const QUARTERS: Record<number, string> = { 1: '¼', 2: '½', 3: '¾' };

/**
 * Hours of coverage ("8.250", 3 decimals): whole and quarter hours as people write them ("8¼ hours", "½ hour",
 * "1 hour"), anything else to one decimal ("2.3 hours").
 */
export function hours(decimal: string): string {
  const value = Number(decimal);
  const quarters = value * 4;
  const noun = value > 0 && value <= 1 ? 'hour' : 'hours';
  if (Number.isInteger(quarters)) {
    const whole = Math.floor(value);
    const fraction = QUARTERS[quarters % 4] ?? '';
    return `${whole === 0 && fraction ? '' : count(whole)}${fraction} ${noun}`;
  }
  return `${count(value)} ${noun}`;
}

/** A share of the price ("0.500000000") as a percentage: "50%", "33.3%". */
export const percent = (share: string): string => percents.format(Number(share));

/** The photos delivered, from whichever bounds the package gives. */
export function photos(min: number | null, max: number | null): string | null {
  if (min !== null && max !== null) return min === max ? counted(min, 'photo') : `${count(min)}–${count(max)} photos`;
  if (max !== null) return `Up to ${counted(max, 'photo')}`;
  if (min !== null) return `At least ${counted(min, 'photo')}`;
  return null;
}

const currencies = new Map<string, Intl.NumberFormat>();

/** The formatter of a currency ("usd" or "USD"), made once: whole amounts without cents ("$680", "$675.50"). */
function currencyFormat(code: string): Intl.NumberFormat | undefined {
  const key = code.toUpperCase();
  if (!currencies.has(key)) {
    try {
      currencies.set(
        key,
        new Intl.NumberFormat(LOCALE, { style: 'currency', currency: key, trailingZeroDisplay: 'stripIfInteger' }),
      );
    } catch {
      return undefined; // not an ISO 4217 code: the amount is written with the code after it
    }
  }
  return currencies.get(key);
}

/** An amount with no currency ("2499.99" -> "2,499.99", "1000.00" -> "1,000"), as the price facet's bounds. */
export const amount = (decimal: string): string => amounts.format(decimal as `${number}`);

/**
 * An amount ("1915.00", a Decimal string: never turned into a float) in a currency: "$1,915", "€595", "¥120,000"
 * (the currency's own decimals), "1,915 XYZ" for a code Intl does not know.
 */
export function money(amount: string, currencyCode: string): string {
  const exact = amount as `${number}`;
  return currencyFormat(currencyCode)?.format(exact) ?? `${amounts.format(exact)} ${currencyCode.toUpperCase()}`;
}

/** A currency's name for a chooser: "usd" -> "US dollar (USD)"; the code alone when Intl does not know it. */
export function currencyName(currencyCode: string): string {
  const code = currencyCode.toUpperCase();
  try {
    const name = new Intl.DisplayNames(LOCALE, { type: 'currency' }).of(code);
    return name && name !== code ? `${name} (${code})` : code;
  } catch {
    return code;
  }
}
