// The web storefront's values in words (examples/storefront/web/app/format.ts), as docs/storefront.md's table shows
// them: no browser needed, the functions are Intl's and plain arithmetic. The pages' use of them is held in
// Chromium by storefront-reading.test.ts.
import { describe, expect, it } from 'vitest';
import { amount, counted, hours, money, percent, photos } from '../../examples/storefront/web/app/format.js';

describe("the storefront's values in words", () => {
  it('writes hours of coverage in quarters where they are exact, else to one decimal', () => {
    expect(
      ['8.250', '0.250', '0.500', '0.750', '1.000', '1.500', '12.000', '2.333', '2.950', '0.000'].map(hours),
    ).toEqual([
      '8¼ hours',
      '¼ hour',
      '½ hour',
      '¾ hour',
      '1 hour',
      '1½ hours',
      '12 hours',
      '2.3 hours',
      '3 hours',
      '0 hours',
    ]);
  });

  it('writes shares of the price as percentages', () => {
    expect(['0.500000000', '0.333333333', '0.100000000', '0.125000000'].map(percent)).toEqual([
      '50%',
      '33.3%',
      '10%',
      '12.5%',
    ]);
  });

  it("writes money in its currency, exactly, with the currency's own decimals and no .00 on a whole amount", () => {
    expect(money('1915.00', 'USD')).toBe('$1,915');
    expect(money('675.50', 'usd')).toBe('$675.50');
    expect(money('150.00', 'EUR')).toBe('€150');
    expect(money('120000.00', 'JPY')).toBe('¥120,000');
    expect(money('905.00', 'CAD')).toBe('CA$905');
    // A Decimal string is never a float on the way: 17 significant digits stay as they are.
    expect(money('123456789012345.67', 'USD')).toBe('$123,456,789,012,345.67');
    expect(amount('2499.99')).toBe('2,499.99');
    expect(amount('1000.00')).toBe('1,000');
  });

  it('writes counts with their noun, and the photos from whichever bounds there are', () => {
    expect([counted(1, 'day'), counted(14, 'day'), counted(1200, 'review')]).toEqual([
      '1 day',
      '14 days',
      '1,200 reviews',
    ]);
    expect([photos(50, 100), photos(40, 40), photos(null, 100), photos(50, null), photos(null, null)]).toEqual([
      '50–100 photos',
      '40 photos',
      'Up to 100 photos',
      'At least 50 photos',
      null,
    ]);
  });
});
