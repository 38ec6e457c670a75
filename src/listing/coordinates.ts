// Coordinates as clients send them, a number (a browser's position, 48.85661234) or a decimal text of any
// precision, put in the one form the listing's columns hold: degrees with 6 decimals (about 0.1 m, finer than a
// package's stored location). So a point written either way matches the same packages under one cache key.

/** Decimals kept: the scale of package.latitude and package.longitude. */
export const DEGREE_DECIMALS = 6;
/** A coordinate's text is at most this long (a double's shortest text is 24 at most). */
export const MAX_DEGREE_CHARACTERS = 32;

const DECIMAL = /^(-?)(\d+)(?:\.(\d+))?$/;
const SCALE = 10n ** BigInt(DEGREE_DECIMALS);

/** The number as the decimal text it was written as (its shortest round trip), without an exponent. */
function numberText(value: number): string | undefined {
  if (!Number.isFinite(value)) return undefined;
  const text = String(value);
  // An exponent only below 1e-6 (rounds to 0 or 1e-6, which toFixed tells) or from 1e21 (out of any bound).
  return text.includes('e') ? value.toFixed(DEGREE_DECIMALS + 1) : text;
}

/**
 * The coordinate with 6 decimals, rounded half away from zero (exactly: on its digits, never through a float), or
 * undefined when it is no decimal number or longer than MAX_DEGREE_CHARACTERS.
 */
export function roundedDegrees(value: string | number): string | undefined {
  const text = typeof value === 'number' ? numberText(value) : value;
  if (text === undefined || text.length > MAX_DEGREE_CHARACTERS) return undefined;
  const match = DECIMAL.exec(text);
  if (!match) return undefined;
  const [, sign, whole = '0', fraction = ''] = match;
  const kept = BigInt(whole + fraction.slice(0, DEGREE_DECIMALS).padEnd(DEGREE_DECIMALS, '0'));
  const units = kept + ((fraction[DEGREE_DECIMALS] ?? '0') >= '5' ? 1n : 0n);
  const degrees = `${units / SCALE}.${(units % SCALE).toString().padStart(DEGREE_DECIMALS, '0')}`;
  return sign === '-' && units !== 0n ? `-${degrees}` : degrees;
}
