// next/previous as DRF's replace_query_param and remove_query_param build them.
import { describe, expect, it } from 'vitest';
import { nextLink, previousLink } from '../../src/rest/links.js';

const base = 'https://api.example.com/v2/local-package-list/';
const input = (query: string, offset: number | bigint, limit = 50, count = 1000) => ({
  base,
  query: new URLSearchParams(query),
  count,
  limit,
  offset: BigInt(offset),
});

describe('v2 page links', () => {
  it('sorts the keys and moves offset by the limit in force', () => {
    expect(nextLink(input('seed=7&format=api&offset=100&limit=50', 100))).toBe(
      `${base}?format=api&limit=50&offset=150&seed=7`,
    );
    expect(previousLink(input('seed=7&format=api&offset=100&limit=50', 100))).toBe(
      `${base}?format=api&limit=50&offset=50&seed=7`,
    );
  });

  it('sets limit to the page size in force, even when the request asked for more or something odd', () => {
    expect(nextLink(input('limit=5000&seed=1', 0, 100))).toBe(`${base}?limit=100&offset=100&seed=1`);
    expect(nextLink(input('limit=abc&seed=1', 0, 50))).toBe(`${base}?limit=50&offset=50&seed=1`);
  });

  it('links the first page without offset', () => {
    expect(previousLink(input('offset=30&limit=50&seed=2', 30))).toBe(`${base}?limit=50&seed=2`);
    expect(previousLink(input('offset=50&seed=2', 50))).toBe(`${base}?limit=50&seed=2`);
  });

  it('has no next at the end and no previous at the start', () => {
    expect(nextLink(input('seed=1', 950, 50, 1000))).toBeNull();
    expect(nextLink(input('seed=1', 2000, 50, 1000))).toBeNull();
    expect(previousLink(input('seed=1', 0))).toBeNull();
  });

  it('keeps repeated keys, blank values and unknown parameters, as DRF does', () => {
    expect(nextLink(input('tag=b&tag=a&empty=&zeta=1&seed=3', 0))).toBe(
      `${base}?empty=&limit=50&offset=50&seed=3&tag=b&tag=a&zeta=1`,
    );
  });

  it('form-encodes values: spaces as +, reserved and non-ASCII characters %-encoded', () => {
    expect(nextLink(input("q=a b&x=ü/é&y=!'()*~_.-&seed=1", 0))).toBe(
      `${base}?limit=50&offset=50&q=a+b&seed=1&x=%C3%BC%2F%C3%A9&y=%21%27%28%29%2A~_.-`,
    );
  });

  it('carries an offset of any size back as sent, never clamped', () => {
    const huge = 10n ** 30n;
    expect(previousLink(input('offset=1000000000000000000000000000000&limit=10&seed=1', huge, 10))).toBe(
      `${base}?limit=10&offset=999999999999999999999999999990&seed=1`,
    );
    expect(nextLink(input('offset=1000000000000000000000000000000&limit=10&seed=1', huge, 10))).toBeNull();
  });

  it('sorts the keys by code point, as Python does (not by UTF-16 code unit)', () => {
    // U+FF5E (one UTF-16 unit, 0xFF5E) sorts before U+1F600 (surrogates 0xD83D...) by code point only.
    expect(nextLink(input('%F0%9F%98%80=1&%EF%BD%9E=2&seed=1', 0))).toBe(
      `${base}?limit=50&offset=50&seed=1&%EF%BD%9E=2&%F0%9F%98%80=1`,
    );
  });
});
