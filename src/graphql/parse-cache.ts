// Yoga keeps parsed documents (and parse errors) to skip parsing a document it has seen. Its default cache holds
// 1,024 entries of any size; here the caches are bounded by the characters of the documents they hold, so
// distinct large documents cannot fill the heap (a parsed document takes some 20-50 times its text in memory).
import type { DocumentNode } from 'graphql';
import { LRUCache } from 'lru-cache';

const DOCUMENT_CHARS = 4 * 1024 * 1024;
const ERROR_CHARS = 256 * 1024;

export function parseCache() {
  return {
    documentCache: new LRUCache<string, DocumentNode>({
      maxSize: DOCUMENT_CHARS,
      sizeCalculation: (_document, text) => Math.max(1, text.length),
    }),
    errorCache: new LRUCache<string, Error>({
      maxSize: ERROR_CHARS,
      sizeCalculation: (_error, text) => Math.max(1, text.length),
    }),
  };
}
