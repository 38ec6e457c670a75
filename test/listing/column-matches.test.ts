// Filters of the common storefront parts (categories, a price range, instant booking, featured) are matched in the
// facet columns kept in memory, not read: for any such filter the positions are exactly those the filter's SQL
// condition selects, and finding them runs no statement but the summary's, once per listing version.
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LISTING_VERSION } from '../../src/db/sql.js';
import { filterCondition, normalizeFilter, type PackageFilter } from '../../src/listing/filter.js';
import { createMatchSets } from '../../src/listing/matches.js';
import { createListingTestDatabase, engineName, type TestDatabase } from '../helpers/database.js';

let db: TestDatabase;
/** Prices the listing has: a bound on one of them is where an off-by-one would show. */
let listedPrices: string[];
beforeAll(async () => {
  db = await createListingTestDatabase(300);
  const rows = await db.read.single<{ price: string }>({ text: 'SELECT DISTINCT price::text AS price FROM package' });
  listedPrices = rows.map((row) => row.price);
});
afterAll(() => db?.destroy());

/** The positions the filter's SQL condition selects, in listing order: what a read of the matches gives. */
async function selected(filter: PackageFilter): Promise<number[]> {
  const condition = filterCondition(filter);
  const rows = await db.read.single<{ position: number }>(
    {
      text: `SELECT e.position FROM listing_entry e JOIN package p ON p.id = e.package_id
        WHERE ${condition.text} ORDER BY e.position`,
    },
    condition.params,
  );
  return rows.map((row) => row.position);
}

const anyPrice = fc
  .tuple(fc.integer({ min: 0, max: 3000 }), fc.integer({ min: 0, max: 99 }), fc.boolean())
  .map(([whole, cents, short]) =>
    short && cents % 10 === 0 ? `${whole}.${cents / 10}` : `${whole}.${String(cents).padStart(2, '0')}`,
  );
const price = fc.oneof(
  anyPrice,
  fc.integer({ min: 0, max: 1 << 30 }).map((i) => listedPrices[i % listedPrices.length] as string),
);
const columnFilter = fc
  .record(
    {
      categories: fc.uniqueArray(fc.integer({ min: 0, max: 13 }), { minLength: 1, maxLength: 5 }),
      // Any case; one the listing lacks matches nothing.
      currency: fc.constantFrom('USD', 'eur', 'JPY', 'XAU'),
      priceMin: price,
      priceMax: price,
      instantBooking: fc.boolean(),
      featured: fc.boolean(),
    },
    { requiredKeys: [] },
  )
  // A price is in a currency: bounds without one are refused.
  .map((filter) =>
    (filter.priceMin ?? filter.priceMax) && !filter.currency ? { currency: 'USD', ...filter } : filter,
  );

describe(`filters matched in the facet columns on ${engineName}`, () => {
  it('give exactly the positions their SQL condition selects, reading nothing but the summary', async () => {
    const [{ version } = { version: '' }] = await db.read.single<{ version: string }>(LISTING_VERSION);
    const statements: string[] = [];
    const session = db.read.session();
    const noting = {
      ...session,
      query: ((statement, params) => {
        statements.push(statement.name ?? statement.text);
        return session.query(statement, params);
      }) as typeof session.query,
    };
    const matchSets = createMatchSets(64 * 1024 * 1024);
    let nonEmpty = 0;
    await fc.assert(
      fc.asyncProperty(columnFilter, async (raw) => {
        let filter: PackageFilter;
        try {
          filter = normalizeFilter(raw);
        } catch {
          return; // priceMin above priceMax: refused before any match
        }
        const positions = Array.from(await matchSets.positions(noting, filter, version));
        expect(positions).toEqual(await selected(filter));
        if (positions.length > 0) nonEmpty++;
      }),
      { numRuns: 150 },
    );
    expect(nonEmpty).toBeGreaterThan(10);
    expect(new Set(statements)).toEqual(new Set(['facet_columns']));
  });
});
