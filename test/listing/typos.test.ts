// What the search forgives and what it does not (src/listing/typos.ts), on a small vocabulary.
import { describe, expect, it } from 'vitest';
import { correctedSearch, MAX_CORRECTED_WORDS, typoDistance, Vocabulary } from '../../src/listing/typos.js';

const vocabulary = new Vocabulary([
  { word: 'wedding', ndoc: 50 },
  { word: 'welding', ndoc: 2 },
  { word: 'weddings', ndoc: 10 },
  { word: 'golden', ndoc: 30 },
  { word: 'hour', ndoc: 30 },
  { word: 'photography', ndoc: 40 },
  { word: 'pet', ndoc: 5 },
  { word: 'pets', ndoc: 5 },
  { word: 'café', ndoc: 3 },
  { word: 'newborn', ndoc: 8 },
]);

describe('typo correction', () => {
  it('reads an unknown word as the closest known ones, the most frequent first, as a term of alternatives', () => {
    expect(correctedSearch('weding', vocabulary)).toEqual(['wedding welding']);
    expect(correctedSearch('Goldn hour', vocabulary)).toEqual(['golden', 'hour']);
    expect(correctedSearch('cafe', vocabulary)).toEqual(['café']);
  });

  it('forgives one change in a word of 4 to 7 letters and two from 8 letters on', () => {
    expect(correctedSearch('houur', vocabulary)).toEqual(['hour']);
    expect(correctedSearch('fotography', vocabulary)).toEqual(['photography']);
    expect(correctedSearch('fotografy', vocabulary)).toBeUndefined(); // three changes
  });

  it('counts a swap of two neighbouring letters as one change, as Algolia does', () => {
    expect(correctedSearch('wdeding', vocabulary)).toEqual(['wedding']);
    expect(correctedSearch('newbron', vocabulary)).toEqual(['newborn']);
    expect(correctedSearch('ohtography', vocabulary)).toEqual(['photography']); // a swap and a change: two
    expect(correctedSearch('nwebron', vocabulary)).toBeUndefined(); // two swaps in 7 letters
    expect(typoDistance('newbron', 'newborn', 1)).toBe(1);
    expect(typoDistance('ab', 'ba', 2)).toBe(1);
    expect(typoDistance('ca', 'abc', 3)).toBe(3); // no edit of a swapped pair again (the alignment's limit)
    expect(typoDistance('kitten', 'sitting', 5)).toBe(3);
    expect(typoDistance('kitten', 'sitting', 1)).toBe(2); // bounded: more than 1
  });

  it('leaves known words, short words and the start of a word as they are', () => {
    expect(correctedSearch('wedding hour', vocabulary)).toBeUndefined();
    expect(correctedSearch('pwt', vocabulary)).toBeUndefined();
    expect(correctedSearch('golden wedd', vocabulary)).toBeUndefined(); // the last word, still being typed
    // Only the last word may be a start: the same start earlier is an unknown word, corrected.
    expect(correctedSearch('weddin hour', vocabulary)).toEqual(['wedding', 'hour']);
  });

  it('splits words as the search does, and keeps the known ones as typed', () => {
    expect(correctedSearch('Golden-hourr', vocabulary)).toEqual(['Golden', 'hour']);
  });

  it(`corrects at most ${MAX_CORRECTED_WORDS} unknown words, and no word it cannot match`, () => {
    expect(correctedSearch('weding goldn houur', vocabulary)).toEqual(['wedding welding', 'golden', 'hour']);
    expect(correctedSearch('weding goldn houur photograpy', vocabulary)).toBeUndefined();
    expect(correctedSearch('zzzzzz', vocabulary)).toBeUndefined();
    expect(correctedSearch('weding zzzzzz', vocabulary)).toEqual(['wedding welding', 'zzzzzz']);
  });

  it('knows the start of any word, however many there are', () => {
    const many = new Vocabulary(Array.from({ length: 5000 }, (_, i) => ({ word: `w${i}`, ndoc: 1 })));
    expect(many.hasWordStarting('w4999')).toBe(true);
    expect(many.hasWordStarting('w5')).toBe(true);
    expect(many.hasWordStarting('x')).toBe(false);
    expect(many.hasWordStarting('w50000')).toBe(false);
  });
});
