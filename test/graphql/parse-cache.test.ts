// The parse cache's bounds (src/graphql/parse-cache.ts): by documents and by characters, whichever comes first,
// since a stream of distinct small queries would otherwise fill the heap with parsed documents.
import { parse } from 'graphql';
import { describe, expect, it } from 'vitest';
import { MAX_DOCUMENTS, parseCache } from '../../src/graphql/parse-cache.js';

describe('the parse cache', () => {
  it('keeps at most MAX_DOCUMENTS small documents, the most recent', () => {
    const { documentCache } = parseCache();
    const text = (n: number) => `{ packages(limit: 20, seed: ${n}) { count results { id title } } }`;
    for (let n = 0; n < 3 * MAX_DOCUMENTS; n++) documentCache.set(text(n), parse(text(n)));
    expect(documentCache.size).toBe(MAX_DOCUMENTS);
    expect(documentCache.has(text(3 * MAX_DOCUMENTS - 1))).toBe(true);
    expect(documentCache.has(text(0))).toBe(false);
  });

  it('keeps large documents up to a million characters in all', () => {
    const { documentCache } = parseCache();
    const large = (n: number) => `{ ${'__typename '.repeat(40_000)} a${n}: __typename }`;
    for (let n = 0; n < 6; n++) documentCache.set(large(n), parse(large(n)));
    expect(documentCache.calculatedSize).toBeLessThanOrEqual(1024 * 1024);
    expect(documentCache.size).toBe(2);
  });
});
