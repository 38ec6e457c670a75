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
    expect(params('')).toEqual({ limit: 50, offset: 0, seed: undefined });
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
    ['offset=99999999999', 2 ** 31 - 1],
  ])('%s reads offset %i', (query, offset) => {
    expect(params(query).offset).toBe(offset);
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

  it.each(['format=api', 'format=json', ''])('format %j gives the JSON page', (query) => {
    expect(parse(query).ok).toBe(true);
  });

  it.each(['format=xml', 'format=', 'format=API'])('%s is 404 Not found.', (query) => {
    expect(parse(query)).toEqual({ ok: false, status: 404, detail: 'Not found.' });
  });
});
