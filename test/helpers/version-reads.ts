// The listing version's reads with a step before each (a delay, a thrown fault), for tests that mock
// src/listing/version.js: `vi.mock(path, async (original) => (await import(this)).versionReadsWith(await original(), step))`.
import type * as Version from '../../src/listing/version.js';

export function versionReadsWith(real: typeof Version, before: () => unknown): typeof Version {
  return {
    ...real,
    sharedVersionReads: (...args: Parameters<typeof real.sharedVersionReads>) => {
      const current = real.sharedVersionReads(...args);
      return async (read: Parameters<typeof current>[0]) => {
        await before();
        return current(read);
      };
    },
  };
}
