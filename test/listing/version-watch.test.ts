// The version watch on a real database: silent until something listens, then one change per committed import,
// with the version before it; an unchanged re-read tells nothing; a failing read is skipped.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generatePackages } from '../../src/demo/generate.js';
import { importSource } from '../../src/import/importer.js';
import { type ListingChange, watchListingVersion } from '../../src/listing/version-watch.js';
import type { V2Package } from '../../src/v2/records.js';
import { createTestDatabase, engineName, type TestDatabase } from '../helpers/database.js';
import { memorySource } from '../import/helpers.js';

let db: TestDatabase;
const records = [...generatePackages({ count: 5, seed: 3 })].map((r) => ({ ...r, status: 1 })) as V2Package[];
const quiet = { warn: () => {}, debug: () => {} };

beforeAll(async () => {
  db = await createTestDatabase();
  await importSource(db, memorySource(records));
});
afterAll(() => db?.destroy());

describe(`the version watch on ${engineName}`, () => {
  it('tells each import once, with the version before it, and reads nothing before a listener', async () => {
    const watch = watchListingVersion(db.read, 60_000, quiet);
    expect(watch.current()).toBeUndefined(); // no listener yet: nothing read
    const changes: ListingChange[] = [];
    watch.subscribe((change) => changes.push(change));
    await watch.check();
    const first = watch.current();
    expect(first).toEqual({ version: expect.any(String), count: 5 });
    await watch.check();
    expect(changes).toEqual([]);

    await importSource(db, memorySource([{ ...structuredClone(records[0] as V2Package), price: '77.00' }]));
    await watch.check();
    expect(changes).toHaveLength(1);
    expect(changes[0]).toMatchObject({ previous: first?.version, count: 5 });
    expect(changes[0]?.version).not.toBe(first?.version);
    expect(changes[0]?.changedAt).toBeInstanceOf(Date);
    watch.stop();
  });

  it('reads only while something listens, and starts afresh with the next listener', async () => {
    let reads = 0;
    const read = {
      single: (async (statement, params) => {
        reads++;
        return db.read.single(statement, params);
      }) as typeof db.read.single,
    };
    const watch = watchListingVersion(read, 20, quiet);
    const changes: ListingChange[] = [];
    const stop = watch.subscribe((change) => changes.push(change));
    await new Promise((resolve) => setTimeout(resolve, 150));
    expect(reads).toBeGreaterThan(2);
    stop();
    await new Promise((resolve) => setTimeout(resolve, 20)); // a read in flight finishes
    const after = reads;
    await new Promise((resolve) => setTimeout(resolve, 150));
    expect(reads).toBe(after);
    expect(watch.current()).toBeUndefined();
    // A change made while nobody listened is not told to the next listener: it starts from what it reads.
    await importSource(db, memorySource([{ ...structuredClone(records[2] as V2Package), price: '99.00' }]));
    watch.subscribe((change) => changes.push(change));
    await new Promise((resolve) => setTimeout(resolve, 150));
    expect(changes).toEqual([]);
    watch.stop();
  });

  it('skips a read that fails and tells the change once it is seen', async () => {
    let failing = false;
    const read = {
      single: (async (statement, params) => {
        if (failing) throw new Error('connection lost');
        return db.read.single(statement, params);
      }) as typeof db.read.single,
    };
    const watch = watchListingVersion(read, 60_000, quiet);
    const changes: ListingChange[] = [];
    watch.subscribe((change) => changes.push(change));
    await watch.check();
    failing = true;
    await importSource(db, memorySource([{ ...structuredClone(records[1] as V2Package), price: '88.00' }]));
    await watch.check();
    expect(changes).toEqual([]);
    failing = false;
    await watch.check();
    expect(changes).toHaveLength(1);
    watch.stop();
  });
});
