// The Node edge's wait for the listing's version: LATE past the wait, and one wait per shared read.
import { describe, expect, it } from 'vitest';
import { LATE, versionWithin } from '../../src/cache/version-reads.js';

describe('versionWithin', () => {
  it('gives the version read within the wait, and LATE past it', async () => {
    expect(await versionWithin(Promise.resolve('7'), 50)).toBe('7');
    expect(await versionWithin(new Promise<string>(() => {}), 20)).toBe(LATE);
  });

  it('shares one wait between the requests that share a read, begun by the first to ask', async () => {
    let answer: (version: string) => void = () => {};
    const reading = new Promise<string | null>((resolve) => {
      answer = resolve;
    });
    const first = versionWithin(reading, 60);
    await new Promise((resolve) => setTimeout(resolve, 40));
    const second = versionWithin(reading, 60);
    // The second asked 40 ms into the first's wait: it waits out what is left of it, not a wait of its own.
    expect(second).toBe(first);
    expect(await second).toBe(LATE);
    answer('8');
    expect(await versionWithin(Promise.resolve('8'), 60)).toBe('8');
  });

  it('passes a failed read on to every request waiting for it', async () => {
    const reading = Promise.reject(new Error('the database is away'));
    await expect(versionWithin(reading, 50)).rejects.toThrow('the database is away');
    await expect(versionWithin(reading, 50)).rejects.toThrow('the database is away');
  });
});
