// The tests check records against the contract checker's field table through a pinned copy
// (test/fixtures/v2-contract/fields.mjs), so a clone runs its suite on its own. Where the shared contract sits
// beside the checkout (../shared, as in CI), the copy must be that file, byte for byte: a contract that gained
// rows fails here first.
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const PINNED = fileURLToPath(new URL('../fixtures/v2-contract/fields.mjs', import.meta.url));
const SHARED = fileURLToPath(new URL('../../../shared/v2-contract/fields.mjs', import.meta.url));

describe('the pinned copy of the v2 contract field table', () => {
  it.runIf(existsSync(SHARED))('is ../shared/v2-contract/fields.mjs as it is now', () => {
    expect(readFileSync(PINNED, 'utf8')).toBe(readFileSync(SHARED, 'utf8'));
  });
});
