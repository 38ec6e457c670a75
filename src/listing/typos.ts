// Typo tolerance for the search. A search whose words all appear finds what it finds; one that finds nothing
// because a word appears nowhere in the listing ("weding") is read again with each such word replaced by the
// listing's words closest to it ("wedding"). The listing's words (its vocabulary) are made at import into the
// listing summary (src/db/write/listing-summary.ts) and read from it once per listing version, when a search has
// found nothing or when an instance prepares for a version (src/listing/warm-up.ts).
//
// What is forgiven: one letter added, dropped or changed, or two neighbours swapped ("newbron"), in a word of 4 to
// 7 letters, two such in a longer one (as Algolia's defaults, where a swap is one typo too). What is not: a word
// of 1 to 3 letters, a word the listing has (it is not a typo), a typo in the last word while it is still the
// start of some word, and more than MAX_CORRECTED_WORDS unknown words in one search.
import type { SqlStatement } from '../db/sql.js';
import { searchWords } from './filter.js';
import { summaryPart } from './per-version.js';

/** At most this many unknown words of a search are looked up (each is a scan of the vocabulary). */
export const MAX_CORRECTED_WORDS = 3;
/** A word is read as at most this many of the listing's words, the most frequent first. */
const MAX_ALTERNATIVES = 5;

/** How many changes a word of this length may have. */
const allowedEdits = (length: number) => (length >= 8 ? 2 : length >= 4 ? 1 : 0);

/**
 * The fewest changes from `a` to `b`, each a letter added, dropped or changed or two neighbours swapped (the
 * optimal string alignment distance, Damerau's), or `max + 1` as soon as it must be more than `max`.
 */
export function typoDistance(a: string, b: string, max: number): number {
  if (Math.abs(a.length - b.length) > max) return max + 1;
  // Three rows of the dynamic programme: two rows back (for a swap), the last one and this one.
  let before = new Array<number>(b.length + 1).fill(0);
  let last = Array.from({ length: b.length + 1 }, (_, j) => j);
  let row = new Array<number>(b.length + 1).fill(0);
  for (let i = 1; i <= a.length; i++) {
    row[0] = i;
    let least = i;
    for (let j = 1; j <= b.length; j++) {
      const same = a[i - 1] === b[j - 1];
      let cost = Math.min(
        (last[j] as number) + 1,
        (row[j - 1] as number) + 1,
        (last[j - 1] as number) + (same ? 0 : 1),
      );
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
        cost = Math.min(cost, (before[j - 2] as number) + 1);
      }
      row[j] = cost;
      least = Math.min(least, cost);
    }
    if (least > max) return max + 1;
    [before, last, row] = [last, row, before];
  }
  return Math.min(last[b.length] as number, max + 1);
}

/** Every word of the listed packages' search documents, with the number of packages that have it. */
export const VOCABULARY: SqlStatement = {
  name: 'search vocabulary',
  text: `SELECT listing_version::text AS version, words, word_packages AS "wordPackages" FROM listing_summary WHERE id = 1`,
};

export interface VocabularyRow {
  /** The listing version the summary was made for. */
  version: string;
  words: string[] | null;
  wordPackages: number[] | null;
}

/** The listing's words, for finding the ones closest to a word it lacks. */
export class Vocabulary {
  private readonly known: Set<string>;
  private readonly sorted: string[];
  /** Words by length, the most frequent first. */
  private readonly byLength = new Map<number, string[]>();
  private readonly looked = new Map<string, string[]>();

  /** The vocabulary in the listing summary's row (none before the listing's first write). */
  static of(row: VocabularyRow | undefined): Vocabulary {
    const words = row?.words ?? [];
    return new Vocabulary(words.map((word, i) => ({ word, ndoc: row?.wordPackages?.[i] ?? 0 })));
  }

  constructor(words: readonly { word: string; ndoc: number }[]) {
    const frequent = [...words].sort((a, b) => b.ndoc - a.ndoc || (a.word < b.word ? -1 : 1));
    this.known = new Set(frequent.map((row) => row.word));
    this.sorted = [...this.known].sort();
    for (const { word } of frequent) {
      const group = this.byLength.get(word.length) ?? [];
      group.push(word);
      this.byLength.set(word.length, group);
    }
  }

  has(word: string): boolean {
    return this.known.has(word);
  }

  /** Whether some word of the listing starts with `start`. */
  hasWordStarting(start: string): boolean {
    let low = 0;
    let high = this.sorted.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if ((this.sorted[middle] as string) < start) low = middle + 1;
      else high = middle;
    }
    return this.sorted[low]?.startsWith(start) ?? false;
  }

  /** The listing's words fewest changes away from `word` (within what its length allows), most frequent first. */
  closest(word: string): string[] {
    const remembered = this.looked.get(word);
    if (remembered) return remembered;
    const allowed = allowedEdits(word.length);
    let best = allowed + 1;
    let found: string[] = [];
    for (let length = word.length - allowed; length <= word.length + allowed; length++) {
      for (const candidate of this.byLength.get(length) ?? []) {
        const edits = typoDistance(word, candidate, allowed);
        if (edits < best) [best, found] = [edits, [candidate]];
        else if (edits === best && edits <= allowed && found.length < MAX_ALTERNATIVES) found.push(candidate);
      }
    }
    // Bounded: a search holds at most a few words, but a client may send many searches.
    if (this.looked.size >= 10_000) this.looked.clear();
    this.looked.set(word, found);
    return found;
  }
}

/** The vocabulary, kept per listing version. */
export const vocabularyPart = summaryPart(VOCABULARY, (row: VocabularyRow | undefined) => Vocabulary.of(row));

/**
 * The search's terms (src/listing/filter.ts: PackageFilter.correctedSearch) with each unknown word replaced by its
 * closest ones, separated by spaces, or undefined when no word could be corrected (then the search stands as it
 * is). Read like the search itself: every term must match, the last one (corrected or not) as a whole word or the
 * start of one.
 */
export function correctedSearch(search: string, vocabulary: Vocabulary): string[] | undefined {
  const words = searchWords(search);
  const lower = words.map((word) => word.toLowerCase());
  const unknown = lower.filter(
    (word, i) => !vocabulary.has(word) && !(i === words.length - 1 && vocabulary.hasWordStarting(word)),
  );
  if (unknown.length === 0 || unknown.length > MAX_CORRECTED_WORDS) return undefined;
  let corrected = false;
  const terms = words.map((word, i) => {
    const alternatives = unknown.includes(lower[i] as string) ? vocabulary.closest(lower[i] as string) : [];
    if (alternatives.length === 0) return word;
    corrected = true;
    return alternatives.join(' ');
  });
  return corrected ? terms : undefined;
}
