// Query parameters read as Django REST Framework's LimitOffsetPagination reads them.
import { describe, expect, it } from 'vitest';
import { parseListingParams } from '../../src/rest/params.js';

const parse = (query: string) => parseListingParams(new URLSearchParams(query));
const params = (query: string) => {
  const result = parse(query);
  if (!result.ok) throw new Error(`refused: ${result.detail}`);
  return result.params;
};

describe('v2 query parameters', () => {
  it('defaults: limit 50, offset 0, no seed', () => {
    expect(params('')).toEqual({ limit: 50, offset: 0n, seed: undefined });
  });

  it.each([
    ['limit=7', 7],
    ['limit=100', 100],
    ['limit=100000', 100], // capped at the maximum page
    ['limit=+8', 8], // Python's int() takes a sign, blanks and digit separators
    ['limit=%2012%20', 12],
    ['limit=1_0', 10],
    ['limit=abc', 50],
    ['limit=0', 50],
    ['limit=-1', 50],
    ['limit=1.5', 50],
    ['limit=', 50],
    ['limit=1e3', 50],
    ['limit=5&limit=9', 9], // the last of repeated values, as Django's QueryDict gives it
  ])('%s reads limit %i', (query, limit) => {
    expect(params(query).limit).toBe(limit);
  });

  it.each([
    ['offset=0', 0],
    ['offset=150', 150],
    ['offset=-5', 0],
    ['offset=x', 0],
    ["offset=0'%20OR%201=1--", 0],
    ['offset=', 0],
  ])('%s reads offset %i', (query, offset) => {
    expect(params(query).offset).toBe(BigInt(offset));
  });

  it('keeps an offset of any size as sent (the links carry it back)', () => {
    expect(params('offset=99999999999').offset).toBe(99999999999n);
    expect(params(`offset=1${'0'.repeat(30)}`).offset).toBe(10n ** 30n);
  });

  // Python's int(): whitespace as int() skips it (str.strip()'s, but U+001C-U+001F), digits of any script, single
  // underscores between digits, at most 4,300 digits.
  it.each([
    ['limit=%D9%A1%D9%A2', 12], // Arabic-Indic ١٢
    ['limit=%EF%BC%91%EF%BC%92', 12], // fullwidth １２
    ['limit=%C2%8512%C2%A0', 12], // U+0085 and U+00A0 are whitespace to int()
    ['limit=%1C5', 50], // U+001C-U+001F are not, though str.strip() strips them
    ['limit=5%1F', 50],
    ['limit=%EF%BB%BF12', 50], // U+FEFF is not
    ['limit=1__2', 50],
    ['limit=_12', 50],
    [`limit=${'0'.repeat(4299)}7`, 7],
    [`limit=${'0'.repeat(4300)}7`, 50], // 4,301 digits: not an integer
  ])('%s reads limit %i', (query, limit) => {
    expect(params(query).limit).toBe(limit);
  });

  it('reads a seed as Python does too', () => {
    expect(params('seed=%E0%A5%AD').seed).toBe(7); // Devanagari ७
    expect(params('seed=%20-3_0%20').seed).toBe(-30);
    expect(parse('seed=%1C7')).toMatchObject({ ok: false, status: 400 });
    expect(parse('seed=7%23')).toMatchObject({ ok: false, status: 400 }); // a raw # reaches the query as %23
  });

  it.each(['seed=7', 'seed=-3', 'seed=0', 'seed=2147483647'])('%s is a seed', (query) => {
    expect(params(query).seed).toBe(Number(query.split('=')[1]));
  });

  it.each([
    ['seed=abc', 'Invalid seed "abc": expected an integer from -2147483648 to 2147483647.'],
    ['seed=12.5', 'Invalid seed "12.5": expected an integer from -2147483648 to 2147483647.'],
    ['seed=1e400', 'Invalid seed "1e400": expected an integer from -2147483648 to 2147483647.'],
    ['seed=', 'Invalid seed "": expected an integer from -2147483648 to 2147483647.'],
    ['seed=2147483648', 'Invalid seed "2147483648": expected an integer from -2147483648 to 2147483647.'],
  ])('%s is refused with 400 and a detail', (query, detail) => {
    expect(parse(query)).toEqual({ ok: false, status: 400, detail });
  });
});
