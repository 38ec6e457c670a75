// Helpers for the import tests: legacy page files, in-memory sources, reading the listing back, table dumps.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createApp } from '../../src/app.js';
import type { Database } from '../../src/db/client.js';
import { TABLES } from '../../src/db/write/tables.js';
import type { Source } from '../../src/import/source.js';
import { renderJson } from '../../src/rest/render.js';
import type { V2Package, V2Page } from '../../src/v2/records.js';

export { type TempDir, tempDir } from '../helpers/temp-dir.js';

/** A legacy page as the legacy service wrote it (DRF bytes). */
export function pageJson(records: unknown[], count = records.length, next: string | null = null): string {
  return renderJson({ count, next, previous: null, results: records });
}

/** Writes the records as legacy pages `page-1.json`, `page-2.json`, ... into `dir`; returns the file paths. */
export function writePages(dir: string, records: unknown[], pageSize = 50): string[] {
  const paths: string[] = [];
  for (let i = 0; i * pageSize < records.length; i++) {
    const path = join(dir, `page-${i + 1}.json`);
    writeFileSync(path, pageJson(records.slice(i * pageSize, (i + 1) * pageSize), records.length));
    paths.push(path);
  }
  return paths;
}

/** A source over records in memory. */
export function memorySource(records: unknown[], label = 'memory'): Source {
  return {
    label,
    progress: () => null,
    async *records() {
      for (let i = 0; i < records.length; i++) yield { value: records[i], where: label, path: `[${i}]` };
    },
  };
}

/** Every listed record, read through GET /v2/local-package-list/ following the next links, by identifier. */
export async function readListing(db: Database, seed = 1): Promise<Map<string, V2Package>> {
  const app = createApp({ db });
  const records = new Map<string, V2Package>();
  let url: string | null = `http://x/v2/local-package-list/?limit=100&seed=${seed}`;
  while (url) {
    const response = await app.fetch(url);
    if (response.status !== 200) throw new Error(`${url}: HTTP ${response.status} ${await response.text()}`);
    const page = JSON.parse(await response.text()) as V2Page;
    for (const record of page.results) records.set(record.identifier, record);
    url = page.next;
  }
  return records;
}

/** Every table's rows as text, sorted: equal dumps mean equal data. */
export async function dumpTables(db: Database): Promise<Record<string, string[]>> {
  const dump: Record<string, string[]> = {};
  for (const table of [...TABLES.map(({ name }) => name), 'listing_entry']) {
    const rows = await db.prisma.$queryRawUnsafe<{ row: string }[]>(
      `SELECT (t.*)::text AS row FROM "${table}" t ORDER BY 1`,
    );
    dump[table] = rows.map((r) => r.row);
  }
  return dump;
}

export async function countRows(db: Database, table: string): Promise<number> {
  const [row] = await db.prisma.$queryRawUnsafe<{ n: number }[]>(`SELECT count(*)::int AS n FROM "${table}"`);
  return row?.n ?? 0;
}
