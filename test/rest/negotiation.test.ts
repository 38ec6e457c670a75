// Content negotiation as DRF's DefaultContentNegotiation: format first (404), then Accept (406), and the indent
// an accepted media type may carry.
import { describe, expect, it } from 'vitest';
import { negotiate } from '../../src/rest/negotiation.js';

const json = (query: string, accept: string | null = null) => negotiate(new URLSearchParams(query), accept);

describe('v2 content negotiation', () => {
  it.each(['format=api', 'format=json', '', 'format=', 'format=xml&format=json'])(
    'format %j gives the JSON page (an empty value is absent, the last value counts)',
    (query) => expect(json(query)).toEqual({ ok: true, indent: null }),
  );

  it.each(['format=xml', 'format=API', 'format=json&format=xml'])('%s is 404 Not found.', (query) => {
    expect(json(query)).toEqual({ ok: false, status: 404, detail: 'Not found.' });
  });

  it('checks the format before the Accept header', () => {
    expect(json('format=xml', 'text/html')).toMatchObject({ status: 404 });
  });

  it.each([
    null,
    '*/*',
    'application/*',
    'application/json',
    'Application/JSON',
    'application/json; charset=utf-8',
    'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8',
    'application/json;q=0', // DRF orders by precedence and does not honour q
    '*/json',
  ])('Accept %j gives JSON', (accept) => {
    expect(json('', accept)).toMatchObject({ ok: true });
  });

  it.each(['text/html', 'application/xml', '', 'text/*', 'image/png, text/plain'])('Accept %j is 406', (accept) => {
    expect(json('', accept)).toEqual({
      ok: false,
      status: 406,
      detail: 'Could not satisfy the request Accept header.',
    });
  });

  it.each([
    ['application/json; indent=4', 4],
    ['application/json; indent=0', null],
    ['application/json; indent=12', 8],
    ['application/json; indent=-3', null],
    ['application/json; indent=two', null],
    ['application/json; indent="2"', 2],
    ['application/json; indent=%D9%A3'.replace('%D9%A3', '\u0663'), 3], // Python's int() reads ٣
    ['*/*; indent=2', 2],
    ['text/html, application/json; indent=2', 2],
    ['*/*; indent=6, application/json', null], // the more specific entry wins, and has no indent
  ])('Accept %j renders with indent %j', (accept, indent) => {
    expect(json('', accept)).toEqual({ ok: true, indent });
  });
});
