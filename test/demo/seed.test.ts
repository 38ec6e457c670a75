// Seeding writes in one transaction: interrupted, the database is left exactly as it was.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { countPackages, seedDemoData } from '../../src/demo/seed.js';
import { createTestDatabase, engineName, type TestDatabase } from '../helpers/database.js';

let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase();
});
afterAll(() => db?.destroy());

const packageIds = async () =>
  (await db.prisma.package.findMany({ select: { id: true }, orderBy: { id: 'asc' } })).map((p) => p.id);

describe(`demo seed on ${engineName}`, () => {
  it('loads the packages with their photographers and numbers them for the listing', async () => {
    await seedDemoData(db, { packages: 120 });
    expect(await countPackages(db)).toBe(120);
    expect(await db.prisma.listingEntry.count()).toBe(120);
    expect(await db.prisma.photographer.count()).toBeGreaterThan(10);
  });

  it('leaves the database as it was when interrupted midway, even with --reset', async () => {
    const before = await packageIds();
    const interrupted = seedDemoData(db, {
      packages: 1500,
      reset: true,
      onProgress: (written) => {
        if (written >= 1000) throw new Error('interrupted');
      },
    });
    await expect(interrupted).rejects.toThrow('interrupted');
    expect(await packageIds()).toEqual(before);
    expect(await db.prisma.listingEntry.count()).toBe(120);
  });
});
