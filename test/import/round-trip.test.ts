// The byte-exact round trip: records imported from legacy pages and read back through GET /v2/local-package-list/
// render to the same bytes as the originals, for the edge records and for 2,000 generated ones.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generatePackages } from '../../src/demo/generate.js';
import { importSource } from '../../src/import/importer.js';
import type { Source } from '../../src/import/source.js';
import { openSources } from '../../src/import/sources.js';
import { renderJson } from '../../src/rest/render.js';
import type { V2Package } from '../../src/v2/records.js';
import { importEdgePackages } from '../fixtures/import-edge-records.js';
import { createTestDatabase, engineName, type TestDatabase } from '../helpers/database.js';
import { readListing, tempDir, writePages } from './helpers.js';

let db: TestDatabase;
const dir = tempDir();
const generated = [...generatePackages({ count: 2000, seed: 7 })];

beforeAll(async () => {
  db = await createTestDatabase();
});
afterAll(async () => {
  await db?.destroy();
  dir.remove();
});

function expectSameBytes(originals: V2Package[], served: Map<string, V2Package>) {
  const listed = originals.filter((r) => r.status === 1);
  let same = 0;
  for (const original of listed) {
    const back = served.get(original.identifier);
    expect(back, `record ${original.identifier} is listed`).toBeDefined();
    const [want, got] = [renderJson(original), renderJson(back)];
    if (got !== want) {
      let i = 0;
      while (want[i] === got[i]) i++;
      expect.fail(
        `record ${original.identifier} differs at ${i}: got …${got.slice(i - 40, i + 40)}… want …${want.slice(i - 40, i + 40)}…`,
      );
    }
    same++;
  }
  return same;
}

describe(`byte-exact round trip through the v2 listing on ${engineName}`, () => {
  it('gives back every edge record byte for byte', async () => {
    const edge = join(dir.path, 'edge');
    mkdirSync(edge);
    writePages(edge, importEdgePackages, 3);
    const [source] = await openSources([edge]);
    const report = await importSource(db, source as Source);
    expect(report.status, report.rejections.join('\n') || report.error).toBe('imported');
    expect(report.counts).toMatchObject({ read: importEdgePackages.length, created: importEdgePackages.length });

    const served = await readListing(db, 5);
    expect(expectSameBytes(importEdgePackages, served)).toBe(importEdgePackages.filter((r) => r.status === 1).length);
    // the package with status 2 is stored but not listed
    expect(served.has((importEdgePackages.find((r) => r.status !== 1) as V2Package).identifier)).toBe(false);
  });

  it('gives back 2,000 generated records byte for byte, whatever the page order', async () => {
    const pages = tempDir();
    try {
      writePages(pages.path, generated, 50);
      const [source] = await openSources([pages.path]);
      const report = await importSource(db, source as Source);
      expect(report.status, report.rejections.join('\n') || report.error).toBe('imported');
      expect(report.counts).toMatchObject({ read: 2000, created: 2000, rejected: 0 });
    } finally {
      pages.remove();
    }
    for (const seed of [1, 99]) {
      const served = await readListing(db, seed);
      expect(expectSameBytes(generated, served)).toBe(generated.filter((r) => r.status === 1).length);
      expect(expectSameBytes(importEdgePackages, served)).toBeGreaterThan(0);
    }
  }, 180_000); // 15 s on a quiet machine; a bound against a hang, not a speed target
});
