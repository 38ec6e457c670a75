// JSON bytes as DRF's JSONRenderer writes them (json.dumps with ensure_ascii=False, compact separators,
// then U+2028/U+2029 escaped). The expected strings are what Python 3 prints for the same values.
import { describe, expect, it } from 'vitest';
import { renderJson } from '../../src/rest/render.js';

describe('DRF JSON rendering', () => {
  it('is compact and keeps UTF-8 characters as they are', () => {
    expect(renderJson({ name: 'Zoë 📸 写真', list: [1, 'a'], none: null, yes: true })).toBe(
      '{"name":"Zoë 📸 写真","list":[1,"a"],"none":null,"yes":true}',
    );
  });

  it('escapes U+2028 and U+2029, which JSON allows raw but JavaScript source does not', () => {
    expect(renderJson('a\u2028b\u2029c')).toBe('"a\\u2028b\\u2029c"');
  });

  it('escapes quotes, backslashes and control characters as Python does', () => {
    // json.dumps('"\\\n\r\t\b\f\x01\x1f\x7f/', ensure_ascii=False)
    expect(renderJson('"\\\n\r\t\b\f\u0001\u001f\u007f/')).toBe('"\\"\\\\\\n\\r\\t\\b\\f\\u0001\\u001f\u007f/"');
  });

  it('writes large decimals as the exact strings they are', () => {
    expect(renderJson({ price: '999999999999.99', fraction: '0.000000000', lon: '-122.419416' })).toBe(
      '{"price":"999999999999.99","fraction":"0.000000000","lon":"-122.419416"}',
    );
  });
});
