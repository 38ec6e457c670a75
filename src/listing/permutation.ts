// The seeded listing order: a keyed pseudo-random permutation of the listing positions 0..n-1.
//
// A balanced Feistel network over the smallest even-bit power of two >= n is a bijection whatever its round
// function; "cycle walking" (applying it again while the result is >= n) turns it into a bijection of
// 0..n-1. So page k of the order is positions permute(offset..offset+limit-1): no sort, no cache, the same
// cost at offset 0 and at offset 90,000, and every package exactly once across the pages. Different seeds
// give unrelated orders (the round keys are hashed from the seed), not rotations of one order.

const ROUNDS = 4;

/** murmur3's 32-bit finaliser: a fast, well-mixing integer hash. */
function mix32(value: number): number {
  let h = value | 0;
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

export interface Permutation {
  /** The listing position shown at `index` of the seeded order (0 <= index < size). */
  at(index: number): number;
  readonly size: number;
}

export function seededPermutation(size: number, seed: number): Permutation {
  if (!Number.isInteger(size) || size < 0 || size > 2 ** 30) throw new RangeError(`size ${size} out of range`);
  let halfBits = 1;
  while (2 ** (2 * halfBits) < size) halfBits++;
  const mask = 2 ** halfBits - 1;
  const keys = Array.from({ length: ROUNDS }, (_, round) => mix32(seed ^ mix32(0x9e3779b9 * (round + 1))));

  const encrypt = (value: number): number => {
    let left = value >>> halfBits;
    let right = value & mask;
    for (const key of keys) {
      const next = left ^ (mix32(right ^ key) & mask);
      left = right;
      right = next;
    }
    return (left << halfBits) | right;
  };

  return {
    size,
    at(index: number): number {
      if (!Number.isInteger(index) || index < 0 || index >= size)
        throw new RangeError(`index ${index} out of 0..${size - 1}`);
      let position = encrypt(index);
      while (position >= size) position = encrypt(position);
      return position;
    },
  };
}

/** The listing positions of one page, in display order. */
export function pagePositions(permutation: Permutation, offset: number, limit: number): number[] {
  const end = Math.min(permutation.size, offset + limit);
  const positions: number[] = [];
  for (let index = offset; index < end; index++) positions.push(permutation.at(index));
  return positions;
}
