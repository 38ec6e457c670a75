// Validators and conditional requests (RFC 9110): each representation of a kept answer has its own strong ETag,
// the uncompressed one and one per content coding ("<key>" and "<key>-br"), since their bytes differ. A 304
// stands in only for a 200 whose representation matches If-None-Match.
import type { Encoding } from '../http/compression.js';

export function etagOf(key: string, encoding: Encoding | null): string {
  return `"${key.slice(0, 32)}${encoding ? `-${encoding}` : ''}"`;
}

const opaque = (tag: string) => tag.trim().replace(/^W\//, '');

/**
 * Whether If-None-Match holds for the representation tagged `etag` (its condition is then false, and a GET or
 * HEAD is answered 304): `*`, or one of the listed tags under weak comparison (13.1.2).
 */
export function noneMatches(ifNoneMatch: string | null, etag: string): boolean {
  if (ifNoneMatch === null) return false;
  if (ifNoneMatch.trim() === '*') return true;
  return ifNoneMatch.split(',').some((tag) => opaque(tag) === etag);
}

/** Whether a 304 leaves this header out: it describes the representation's bytes, which a 304 does not carry. */
export const describesBody = (name: string) => name.startsWith('content-') || name === 'allow';
