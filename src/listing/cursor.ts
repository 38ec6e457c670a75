// Opaque connection cursors: an index in an order, with what fixes that order (a fingerprint of the filter and
// sort, and the seed), so a page can continue it and a cursor from another order is refused, not misread.

export interface CursorPosition {
  fingerprint: string;
  seed: number;
  index: number;
}

const PREFIX = 'pc1';
const SHAPE = /^pc1:([A-Za-z0-9_-]{1,32}):(-?\d{1,10}):(\d{1,10})$/;

export function encodeCursor({ fingerprint, seed, index }: CursorPosition): string {
  return Buffer.from(`${PREFIX}:${fingerprint}:${seed}:${index}`).toString('base64url');
}

/** The cursor's position, or null when the text is not a cursor this server made. */
export function decodeCursor(cursor: string): CursorPosition | null {
  if (cursor.length > 96) return null;
  const match = SHAPE.exec(Buffer.from(cursor, 'base64url').toString('latin1'));
  if (!match) return null;
  const seed = Number(match[2]);
  const index = Number(match[3]);
  if (!Number.isSafeInteger(seed) || seed < -(2 ** 31) || seed >= 2 ** 31 || index >= 2 ** 31) return null;
  return { fingerprint: match[1] as string, seed, index };
}
