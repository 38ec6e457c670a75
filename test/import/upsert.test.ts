// Import semantics: a repeated import changes nothing, a newer copy replaces the older one (and a shared record's
// new content shows in every package embedding it), a rejected or failed source writes nothing and leaves earlier
// data as it was, and a dry run never writes.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { generatePackages } from '../../src/demo/generate.js';
import { importSource } from '../../src/import/importer.js';
import type { Source } from '../../src/import/source.js';
import { openSources } from '../../src/import/sources.js';
import { renderJson } from '../../src/rest/render.js';
import type { V2Package } from '../../src/v2/records.js';
import { importEdgePackages } from '../fixtures/import-edge-records.js';
import { createTestDatabase, engineName, type TestDatabase } from '../helpers/database.js';
import { countRows, dumpTables, memorySource, readListing, tempDir } from './helpers.js';

let db: TestDatabase;
beforeEach(async () => {
  db = await createTestDatabase();
});
afterEach(() => db?.destroy());

const copy = <T>(value: T): T => structuredClone(value);
const edge = (i: number) => copy(importEdgePackages[i]) as V2Package;
const generated = [...generatePackages({ count: 120, seed: 11 })];
const everything = () => [...importEdgePackages.map(copy), ...generated.map(copy)];

async function xmins(table: string): Promise<string[]> {
  const rows = await db.prisma.$queryRawUnsafe<{ x: string }[]>(`SELECT xmin::text AS x FROM "${table}" ORDER BY id`);
  return rows.map((r) => r.x);
}

// Small batches too, so shared records and changes that span batches are covered.
describe.each([1000, 7])(`importing on ${engineName} in batches of %i records`, (batchRecords) => {
  it('changes nothing when the same data is imported again', async () => {
    const first = await importSource(db, memorySource(everything()), { batchRecords });
    expect(first.status, first.rejections.join('\n')).toBe('imported');
    expect(first.counts).toEqual({ read: 128, created: 128, updated: 0, unchanged: 0, rejected: 0 });
    const before = await dumpTables(db);
    const rowVersions = await xmins('package');

    const again = await importSource(db, memorySource(everything()), { batchRecords });
    expect(again.counts).toEqual({ read: 128, created: 0, updated: 0, unchanged: 128, rejected: 0 });
    expect(again.shared).toEqual({ created: 0, updated: 0 });
    expect(await dumpTables(db)).toEqual(before);
    expect(await xmins('package')).toEqual(rowVersions); // not even rewritten
  });

  it("replaces an older copy with a newer one, and shows a shared record's new content everywhere", async () => {
    await importSource(db, memorySource(importEdgePackages.map(copy)), { batchRecords });
    const newer = edge(5); // "Long arrays": busy photographer, shared template
    newer.title = 'Long arrays, newer';
    newer.images = newer.images.slice(0, 3);
    newer.linked_add_ons = newer.linked_add_ons.slice(0, 2);
    const template = newer.linked_add_ons[1]
      ?.package_add_on_template as V2Package['linked_add_ons'][0]['package_add_on_template'];
    template.price = '5.00';
    newer.photographer.name = 'Óli, renamed';
    newer.photographer.socials = [];
    newer.photographer.review = null;
    newer.photographer.cover_image = newer.photographer.cover_image.slice(2, 4);
    (newer.photographer.calendar_work_days[0] as { work_times: string }).work_times = '[{"start":"800","end":"1200"}]';
    const untouched = edge(7);

    const report = await importSource(db, memorySource([newer, untouched]), { batchRecords });
    expect(report.counts).toEqual({ read: 2, created: 0, updated: 1, unchanged: 1, rejected: 0 });

    const served = await readListing(db);
    expect(renderJson(served.get(newer.identifier))).toBe(renderJson(newer));
    // packages not in the newer source show the photographer's and the template's new content
    for (const i of [4, 6]) {
      const old = edge(i);
      const expected = { ...old, photographer: newer.photographer };
      for (const link of expected.linked_add_ons) {
        if (link.package_add_on_template.identifier === template.identifier) link.package_add_on_template = template;
      }
      expect(renderJson(served.get(old.identifier)), old.identifier).toBe(renderJson(expected));
    }
    // everything else is as it was
    for (const i of [0, 1, 3, 7]) expect(renderJson(served.get(edge(i).identifier))).toBe(renderJson(edge(i)));
    // the photographer's dropped socials and review are gone, not orphaned
    expect(await db.prisma.social.count({ where: { photographerId: newer.photographer.identifier } })).toBe(0);
    expect(await db.prisma.review.count({ where: { photographerId: newer.photographer.identifier } })).toBe(0);
  });

  it('takes a package off the listing when a newer copy has another status, and renumbers the listing', async () => {
    await importSource(db, memorySource(everything()), { batchRecords });
    const listed = await countRows(db, 'listing_entry');
    const delisted = edge(0);
    delisted.status = 2;
    const relisted = edge(2); // status 2 in the fixture
    relisted.status = 1;
    const report = await importSource(db, memorySource([delisted, relisted]), { batchRecords });
    expect(report.counts).toMatchObject({ updated: 2 });
    const served = await readListing(db);
    expect(served.has(delisted.identifier)).toBe(false);
    expect(renderJson(served.get(relisted.identifier))).toBe(renderJson(relisted));
    const positions = await db.prisma.listingEntry.findMany({ orderBy: { position: 'asc' } });
    expect(positions.map((p) => p.position)).toEqual([...Array(listed).keys()]);
  });
});

describe(`counting updates across batches on ${engineName}`, () => {
  it('counts a package as updated when a shared record it embeds changed in an earlier batch', async () => {
    await importSource(db, memorySource(importEdgePackages.map(copy)));
    const [first, second] = [edge(5), edge(6)]; // same photographer and template
    const photographer = { ...first.photographer, name: 'Óli, newer' };
    first.photographer = photographer;
    second.photographer = photographer;
    type Template = V2Package['linked_add_ons'][0]['package_add_on_template'];
    const template: Template = { ...(second.linked_add_ons[0]?.package_add_on_template as Template), price: '7.00' };
    for (const record of [first, second]) {
      for (const link of record.linked_add_ons) {
        if (link.package_add_on_template.identifier === template.identifier) link.package_add_on_template = template;
      }
    }
    // one record per batch: the second package's own rows are unchanged, what it embeds was written by batch 1
    const report = await importSource(db, memorySource([first, second]), { batchRecords: 1 });
    expect(report.counts).toEqual({ read: 2, created: 0, updated: 2, unchanged: 0, rejected: 0 });
    expect(report.shared).toEqual({ created: 0, updated: 2 });
    const again = await importSource(db, memorySource([copy(second)]), { batchRecords: 1 });
    expect(again.counts).toMatchObject({ updated: 0, unchanged: 1 });
    const served = await readListing(db);
    expect(renderJson(served.get(second.identifier))).toBe(renderJson(second));
    expect(renderJson(served.get(first.identifier))).toBe(renderJson(first));
  });
});

describe(`rejecting a source on ${engineName}`, () => {
  it('writes nothing from a source with a bad record, names it, and leaves earlier data intact', async () => {
    await importSource(db, memorySource(importEdgePackages.map(copy)));
    const before = await dumpTables(db);
    const changed = edge(0);
    changed.title = 'would be an update';
    const bad = copy(generated[0]) as V2Package;
    bad.price = '12.5';
    const fresh = copy(generated[1]) as V2Package;

    const report = await importSource(db, memorySource([changed, bad, fresh], 'pages/page-7.json'), {
      batchRecords: 1,
    });
    expect(report.status).toBe('rejected');
    expect(report.counts).toEqual({ read: 3, created: 0, updated: 0, unchanged: 0, rejected: 1 });
    expect(report.rejections).toEqual([
      `pages/page-7.json: record ${bad.identifier} rejected: [1].price: expected a string-decimal with 2 decimals, got "12.5"`,
    ]);
    expect(await dumpTables(db)).toEqual(before);
  });

  it('refuses an identifier of a linked add-on that another package already uses', async () => {
    await importSource(db, memorySource(importEdgePackages.map(copy)));
    const before = await dumpTables(db);
    const thief = copy(generated[0]) as V2Package;
    const owner = edge(0);
    const link = owner.linked_add_ons[0] as V2Package['linked_add_ons'][0];
    thief.linked_add_ons = [link];
    const report = await importSource(db, memorySource([thief]));
    expect(report.status).toBe('rejected');
    expect(report.rejections[0]).toBe(
      `memory: record ${thief.identifier} rejected: [0].linked_add_ons[0].identifier: expected an identifier no other package uses for its linked add on (it is the linked add on of package ${owner.identifier}), got "${link.identifier}"`,
    );
    expect(await dumpTables(db)).toEqual(before);
  });

  it('refuses a social that two photographers claim within one source', async () => {
    const [a, b] = [copy(generated[0]) as V2Package, copy(generated[10]) as V2Package];
    expect(a.photographer.identifier).not.toBe(b.photographer.identifier);
    const social = edge(0).photographer.socials[0] as V2Package['photographer']['socials'][0];
    a.photographer.socials = [social];
    b.photographer.socials = [social];
    const report = await importSource(db, memorySource([a, b]), { batchRecords: 1 });
    expect(report.status).toBe('rejected');
    expect(report.rejections[0]).toContain(`record ${b.identifier} rejected: [1].photographer.socials[0].identifier`);
    expect(report.rejections[0]).toContain(`(it is the social of photographer ${a.photographer.identifier})`);
    expect(await countRows(db, 'package')).toBe(0);
  });

  it('writes nothing when the source breaks off in the middle (malformed JSON after valid records)', async () => {
    await importSource(db, memorySource(importEdgePackages.map(copy)));
    const before = await dumpTables(db);
    const dir = tempDir();
    try {
      const path = join(dir.path, 'dump.jsonl');
      writeFileSync(path, `${renderJson(generated[0])}\n${renderJson(generated[1])}\n{"identifier": "x",\n`);
      const [source] = await openSources([path]);
      const report = await importSource(db, source as Source, { batchRecords: 1 });
      expect(report.status).toBe('failed');
      expect(report.error).toMatch(/^.*dump\.jsonl line 3: malformed JSON: .+/);
      expect(report.counts).toMatchObject({ read: 2, created: 0 });
    } finally {
      dir.remove();
    }
    expect(await dumpTables(db)).toEqual(before);
  });

  it('validates without writing in a dry run', async () => {
    const before = await dumpTables(db);
    const ok = await importSource(db, memorySource(everything()), { dryRun: true });
    expect(ok.status).toBe('validated');
    expect(ok.counts).toEqual({ read: 128, created: 0, updated: 0, unchanged: 0, rejected: 0 });
    const bad = everything();
    (bad[4] as V2Package).photographer.created_at = 'yesterday';
    const rejected = await importSource(db, memorySource(bad), { dryRun: true });
    expect(rejected.status).toBe('rejected');
    expect(rejected.rejections[0]).toContain('[4].photographer.created_at: expected an ISO 8601 UTC timestamp');
    expect(await dumpTables(db)).toEqual(before);
  });
});
