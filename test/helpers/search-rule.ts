// The storefront search's rule written again, apart from the SQL that applies it (the migration search_word_forms
// and src/listing/filter.ts), for brute-force tests: which packages a search must find, read off their texts.
//
// Words are the runs of letters and digits, in lower case. A package's words are those of its title, tag keywords
// and category name, each also folded. A search finds a package when each of its words is one of the package's
// words or folds to one, the last one also when it starts one of them (as people type).

/** Runs of letters and digits, in lower case: "Real-Estate 2.5" is real, estate, 2, 5. */
export const wordsOf = (text: string): string[] =>
  text
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter((word) => word !== '');

const VOWEL = /[aeiouy]/;
const DOUBLED = /([bcdfghjkmnpqrtvwx])\1$/;
const letters = (word: string) => [...word].length;

/** A word with its English plural, then -ing or -ed, then a last -ie, -y or -e folded (each leaves 3 letters). */
export function fold(word: string): string {
  let w = word;
  if (letters(w) >= 5 && w.endsWith('ies')) {
    const stem = w.slice(0, -3);
    w = stem + (VOWEL.test(stem) ? 'i' : 'y');
  } else if (letters(w) >= 5 && /(s|x|z|ch|sh)es$/.test(w)) {
    w = w.slice(0, -2);
  } else if (letters(w) >= 4 && /[^siu]s$/u.test(w)) {
    w = w.slice(0, -1);
  }
  const undoubled = (stem: string) => (letters(stem) >= 4 && DOUBLED.test(stem) ? stem.slice(0, -1) : stem);
  if (letters(w) >= 6 && w.endsWith('ing') && VOWEL.test(w.slice(0, -3))) {
    w = undoubled(w.slice(0, -3));
  } else if (letters(w) >= 5 && /[^e]ed$/u.test(w) && VOWEL.test(w.slice(0, -2))) {
    w = undoubled(w.slice(0, -2));
  }
  if (letters(w) >= 4 && w.endsWith('ie') && VOWEL.test(w.slice(0, -2))) return w.slice(0, -1);
  if (letters(w) >= 3 && w.endsWith('y') && VOWEL.test(w.slice(0, -1))) return `${w.slice(0, -1)}i`;
  if (letters(w) >= 4 && w.endsWith('e')) return w.slice(0, -1);
  return w;
}

/** A package's words as the search reads them: each word and its fold. */
export function searchableWords(...texts: string[]): Set<string> {
  const words = new Set<string>();
  for (const word of texts.flatMap(wordsOf)) words.add(word).add(fold(word));
  return words;
}

/** Whether a search finds a package whose searchable words are `words`. No word at all finds nothing. */
export function searchFinds(search: string, words: ReadonlySet<string>): boolean {
  const terms = wordsOf(search);
  return (
    terms.length > 0 &&
    terms.every((term, i) => {
      if (words.has(term) || words.has(fold(term))) return true;
      return i === terms.length - 1 && [...words].some((word) => word.startsWith(term));
    })
  );
}
