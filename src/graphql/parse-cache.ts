// Yoga keeps parsed documents (and parse errors) to skip parsing a document it has seen. Its default cache holds
// 1,024 entries of any size; here the caches are bounded by the characters of the documents they hold too, so
// distinct large documents cannot fill the heap: a parsed document takes some 20-50 times its text in memory,
// and its validation (and graphql-jit's count of its runs) lives as long as it does. Bounded at 4M characters
// alone, it held some 40,000 small distinct queries (seeds written into the query text), 100 MB and more parsed.
import type { DocumentNode } from 'graphql';
import { LRUCache } from 'lru-cache';

/** Documents kept, and the characters they may hold in all (some 20-50 MB parsed). */
export const MAX_DOCUMENTS = 1024;
const DOCUMENT_CHARS = 1024 * 1024;
const ERROR_CHARS = 256 * 1024;

export function parseCache() {
  return {
    documentCache: new LRUCache<string, DocumentNode>({
      max: MAX_DOCUMENTS,
      maxSize: DOCUMENT_CHARS,
      sizeCalculation: (_document, text) => Math.max(1, text.length),
    }),
    errorCache: new LRUCache<string, Error>({
      max: MAX_DOCUMENTS,
      maxSize: ERROR_CHARS,
      sizeCalculation: (_error, text) => Math.max(1, text.length),
    }),
  };
}
