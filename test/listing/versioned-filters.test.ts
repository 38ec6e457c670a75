// The matching positions kept per filter are keyed by the listing version, which every write that changes
// something bumps in its own transaction: a filtered listing is never stale after an import, and an import that
// changes nothing leaves the version (and what is kept) as it was.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../src/app.js';
import { generatePackages } from '../../src/demo/generate.js';
import { importSource } from '../../src/import/importer.js';
import type { V2Package } from '../../src/v2/records.js';
import { createTestDatabase, engineName, type TestDatabase } from '../helpers/database.js';
import { graphql } from '../helpers/graphql.js';
import { memorySource } from '../import/helpers.js';

let db: TestDatabase;
let app: ReturnType<typeof createApp>;
const records = [...generatePackages({ count: 80, seed: 21 })].map((r) => ({ ...r, status: 1 })) as V2Package[];

beforeAll(async () => {
  db = await createTestDatabase();
  await importSource(db, memorySource(records));
  app = createApp({ db });
});
afterAll(() => db?.destroy());

const CHEAP = `{ packages(limit: 100, filter: { currency: "USD", priceMax: "99.00" }, seed: 1) { count results { id } } }`;
/** Priced in US dollars: the photographer's override currency where set, else its own. */
const inDollars = ({ photographer: ph }: V2Package) =>
  (ph.override_currency_code || ph.currency_code).toUpperCase() === 'USD';

async function cheap(): Promise<string[]> {
  const { body } = await graphql<{ packages: { count: number; results: { id: string }[] } }>(app, CHEAP);
  expect(body.errors).toBeUndefined();
  const page = body.data?.packages;
  expect(page?.results).toHaveLength(page?.count as number);
  return (page?.results ?? []).map((r) => r.id).sort();
}

async function version(): Promise<string> {
  const rows = await db.prisma.$queryRawUnsafe<{ v: string }[]>('SELECT version::text AS v FROM listing_version');
  return rows[0]?.v ?? 'none';
}

describe(`a filtered listing after imports on ${engineName}`, () => {
  it('shows a price change and a delisting at once, and an unchanged import keeps the version', async () => {
    const before = await cheap();
    const target = records.find(
      (r) => inDollars(r) && Number(r.price) > 99 && !before.includes(r.identifier),
    ) as V2Package;
    const versionBefore = await version();

    await importSource(db, memorySource(records.map((r) => structuredClone(r))));
    expect(await version()).toBe(versionBefore);

    await importSource(db, memorySource([{ ...structuredClone(target), price: '49.00' }]));
    expect(await version()).not.toBe(versionBefore);
    expect(await cheap()).toEqual([...before, target.identifier].sort());

    const gone = before[0] as string;
    const delisted = records.find((r) => r.identifier === gone) as V2Package;
    await importSource(db, memorySource([{ ...structuredClone(delisted), status: 0 }]));
    expect(await cheap()).toEqual([...before, target.identifier].filter((id) => id !== gone).sort());
  });
});
