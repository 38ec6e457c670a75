// Every column of every table survives a write and a read exactly: decimals at their scale, texts byte for byte
// (U+2028, CRLF, emoji), empty strings apart from nulls, JSON kept as given, order kept.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Rows, toRows } from '../../src/db/write/rows.js';
import { bumpListingVersion, insertRows, renumberListing } from '../../src/db/write/store.js';
import { edgePackages } from '../fixtures/edge-records.js';
import { createTestDatabase, engineName, type TestDatabase } from '../helpers/database.js';

let db: TestDatabase;
const expected: Rows = toRows(edgePackages);

beforeAll(async () => {
  db = await createTestDatabase();
  await db.prisma.$transaction(async (tx) => {
    await insertRows(tx, expected);
    await renumberListing(tx);
    await bumpListingVersion(tx); // and the read model with it
  });
});
afterAll(() => db?.destroy());

/** Compares a stored value with what was written (timestamps are written as ISO text, read as dates). */
function same(written: unknown, stored: unknown): boolean {
  if (stored instanceof Date && typeof written === 'string') return new Date(written).getTime() === stored.getTime();
  return JSON.stringify(written) === JSON.stringify(stored);
}

/** A table's rows as the read path gets them: column names, decimals as PostgreSQL's text. */
async function stored(table: string): Promise<object[]> {
  const session = db.read.session();
  try {
    return await session.query({ text: `SELECT * FROM "${table}"` });
  } finally {
    await session.end();
  }
}

function expectSameRows(
  written: object[] | undefined,
  stored: object[],
  key: (row: Record<string, unknown>) => string,
) {
  expect(stored).toHaveLength(written?.length ?? -1);
  const byKey = new Map(stored.map((row) => [key(row as Record<string, unknown>), row as Record<string, unknown>]));
  for (const row of (written ?? []) as Record<string, unknown>[]) {
    const match = byKey.get(key(row));
    expect(match, `row ${key(row)}`).toBeDefined();
    for (const [field, value] of Object.entries(row)) {
      expect(
        same(value, match?.[field]),
        `${key(row)}.${field}: wrote ${String(value)}, read ${String(match?.[field])}`,
      ).toBe(true);
    }
  }
}

const byId = (row: Record<string, unknown>) => String(row.id);
const byParentAndPosition = (parent: string) => (row: Record<string, unknown>) => `${row[parent]}#${row.position}`;

describe(`round trip of every table on ${engineName}`, () => {
  it('keeps every photographer field, created_at to the microsecond', async () => {
    expectSameRows(expected.photographer, await stored('photographer'), byId);
    const zoe = await db.prisma.photographer.findUniqueOrThrow({
      where: { id: edgePackages[0]?.photographer.identifier },
    });
    expect(zoe.createdAtMicros).toBe(1);
  });

  it('keeps every package field: decimals at scale, texts byte for byte, JSON as given', async () => {
    expectSameRows(expected.package, await stored('package'), byId);
    const first = await db.prisma.package.findUniqueOrThrow({ where: { id: edgePackages[0]?.identifier } });
    expect(first.description).toContain('\u2028');
    expect(first.whatToExpect).toBe('Tab\there\r\nCRLF line\nLF line\u0001control');
    expect(first.faqs).toEqual([{ question: 'Wie lange?', answer: 'Zwei Stunden 🕑' }, 'plain', 42, null]);
    expect(first.paymentSchedulePolicy).toBe('');
    expect(first.price.toFixed(2)).toBe('999999999999.99');
    expect(first.weeksAvailable).toBeNull();
  });

  it('keeps reviews, images, tags, portfolios, templates, social sites and calendar days', async () => {
    expectSameRows(expected.review, await stored('review'), byId);
    expectSameRows(expected.image, await stored('image'), byId);
    expectSameRows(expected.priority_tag, await stored('priority_tag'), byId);
    expectSameRows(expected.simple_portfolio, await stored('simple_portfolio'), byId);
    expectSameRows(expected.add_on_template, await stored('add_on_template'), byId);
    expectSameRows(expected.social_site, await stored('social_site'), byId);
    expectSameRows(expected.social, await stored('social'), byId);
    expectSameRows(expected.calendar_work_day, await stored('calendar_work_day'), byId);
    expectSameRows(expected.linked_add_on, await stored('linked_add_on'), byId);
  });

  it('keeps the order of every nested array', async () => {
    expectSameRows(expected.package_image, await stored('package_image'), byParentAndPosition('package_id'));
    expectSameRows(
      expected.photographer_cover_image,
      await stored('photographer_cover_image'),
      byParentAndPosition('photographer_id'),
    );
    expectSameRows(
      expected.package_priority_tag,
      await stored('package_priority_tag'),
      byParentAndPosition('package_id'),
    );
    expectSameRows(
      expected.package_simple_portfolio,
      await stored('package_simple_portfolio'),
      byParentAndPosition('package_id'),
    );
    const zoe = edgePackages[0]?.photographer;
    const days = await db.prisma.calendarWorkDay.findMany({
      where: { photographerId: zoe?.identifier },
      orderBy: { position: 'asc' },
    });
    expect(days.map((d) => d.day)).toEqual(zoe?.calendar_work_days.map((d) => d.day));
    const covers = await db.prisma.photographerCoverImage.findMany({
      where: { photographerId: zoe?.identifier },
      orderBy: { position: 'asc' },
    });
    expect(covers.map((c) => c.imageId)).toEqual(zoe?.cover_image.map((i) => i.identifier));
  });

  it('stores shared records once', async () => {
    expect(await db.prisma.photographer.count()).toBe(2);
    expect(await db.prisma.addOnTemplate.count()).toBe(2);
    expect(await db.prisma.priorityTag.count()).toBe(2);
    expect(
      await db.prisma.linkedAddOn.count({
        where: { templateId: edgePackages[0]?.linked_add_ons[0]?.package_add_on_template.identifier },
      }),
    ).toBe(2);
  });

  it('numbers the listed packages densely and leaves the others out', async () => {
    const packages = await db.prisma.package.findMany({ orderBy: { id: 'asc' } });
    const entries = await db.prisma.listingEntry.findMany({ orderBy: { position: 'asc' } });
    const listed = packages.filter((p) => p.status === 1);
    expect(listed.length).toBeLessThan(packages.length);
    expect(entries.map((e) => e.packageId)).toEqual(listed.map((p) => p.id));
    expect(entries.map((e) => e.position)).toEqual(listed.map((_, i) => i));
  });
});
