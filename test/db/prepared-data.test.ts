// The prepared demo database is copied only when it is certainly this build's: each way it can be stale or damaged
// is refused with a reason and leaves the new directory empty; a copy interrupted midway is cleared by the next
// start; and a copy, once its listing version is renewed, is the kept database with a version of its own.
// The embedded engine only: the prepared data is an embedded data directory.
import { readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/db/client.js';
import { COPY_UNDER_WAY, holdDataDir, isNewDataDir } from '../../src/db/data-dir.js';
import { copyPreparedData, keepPreparedData, renewListingVersion } from '../../src/db/prepared-data.js';
import { READ_MODEL_CURRENT } from '../../src/db/write/read-model-rebuild.js';
import { seedDemoData } from '../../src/demo/seed.js';
import { tempDir } from '../helpers/temp-dir.js';
import { copyOfTemplate } from '../helpers/templates.js';

const PACKAGES = 30;
const work = tempDir('prepared-data-');
const root = join(work.path, 'demo-data');
let made: string;

/** Every table's rows as text, in a stable order, but for the columns that hold the listing version. */
const VERSIONED = new Set(['listing_version', 'listing_version_history', 'read_model_state', 'listing_summary']);
async function tables(dataDir: string): Promise<{ rows: Record<string, string>; versions: string[] }> {
  const db = await openDatabase({ kind: 'pglite', dataDir }, { writes: false });
  try {
    const names = await db.read.single<{ name: string }>({
      text: `SELECT table_name AS name FROM information_schema.tables WHERE table_schema = 'public' ORDER BY 1`,
    });
    const rows: Record<string, string> = {};
    for (const { name } of names.filter((table) => !VERSIONED.has(table.name))) {
      const [row] = await db.read.single<{ text: string }>({
        text: `SELECT coalesce(string_agg(t::text, E'\\n' ORDER BY t::text), '') AS text FROM "${name}" t`,
      });
      rows[name] = row?.text ?? '';
    }
    const versions = await db.read.single<{ version: string }>({
      text: `SELECT version::text AS version FROM listing_version
        UNION ALL SELECT version::text FROM listing_version_history
        UNION ALL SELECT listing_version::text FROM read_model_state
        UNION ALL SELECT listing_version::text FROM listing_summary`,
    });
    return { rows, versions: versions.map((v) => v.version) };
  } finally {
    await db.close();
  }
}

/** A new data directory under the test's folder. */
let dirs = 0;
const newDir = () => join(work.path, `data-${++dirs}`);
const entries = (dir: string) => readdirSync(dir).filter((name) => name !== 'gateway.lock');

beforeAll(async () => {
  made = copyOfTemplate();
  const db = await openDatabase({ kind: 'pglite', dataDir: made });
  await seedDemoData(db, { packages: PACKAGES });
  await db.close();
  keepPreparedData(made, PACKAGES, root);
}, 120_000);
afterAll(() => work.remove());

describe('a copy of the prepared demo database', () => {
  it('holds what was kept, and a listing version of its own once renewed', async () => {
    const dir = newDir();
    expect(copyPreparedData(dir, PACKAGES, root)).toEqual({ copied: true });
    expect(entries(dir)).toContain('PG_VERSION');
    expect(entries(dir)).not.toContain(COPY_UNDER_WAY);
    const kept = await tables(made);
    const before = await tables(dir);
    expect(before).toEqual(kept);

    const db = await openDatabase({ kind: 'pglite', dataDir: dir }, { writes: false });
    try {
      const version = await renewListingVersion(db);
      expect(version).not.toBe(kept.versions[0]);
      const [state] = await db.read.single<{ current: boolean }>({ text: READ_MODEL_CURRENT });
      expect(state?.current).toBe(true);
    } finally {
      await db.close();
    }
    const after = await tables(dir);
    expect(after.rows).toEqual(kept.rows);
    expect(new Set(after.versions).size).toBe(1);
    expect(after.versions).toHaveLength(kept.versions.length);
    expect(after.versions[0]).not.toBe(kept.versions[0]);
  });

  it('is refused for another number of packages, or where none was made', () => {
    const dir = newDir();
    const other = copyPreparedData(dir, PACKAGES + 1, root);
    expect(other).toEqual({ copied: false, reason: expect.stringMatching(/made by another build/) });
    expect(copyPreparedData(dir, PACKAGES, join(work.path, 'nowhere'))).toEqual({
      copied: false,
      reason: 'none was made',
    });
    expect(isNewDataDir(dir)).toBe(true);
  });

  it('is refused when a file was changed, added or removed, and the new directory is left empty', () => {
    const manifest = join(root, 'manifest');
    const listed = JSON.parse(readFileSync(manifest, 'utf8')) as { files: [string, number, string][] };
    const [path, size] = listed.files.find(([, bytes]) => bytes > 8192) as [string, number, string];
    const file = join(root, 'data', path);
    const original = readFileSync(file);

    const changed = Buffer.from(original);
    changed[size >> 1] = (changed[size >> 1] as number) ^ 0xff;
    writeFileSync(file, changed);
    const dir = newDir();
    expect(copyPreparedData(dir, PACKAGES, root)).toEqual({
      copied: false,
      reason: `its file ${path} is not the one its manifest lists`,
    });
    expect(entries(dir)).toEqual([]);

    writeFileSync(file, original);
    writeFileSync(join(root, 'data', 'extra'), 'x');
    expect(copyPreparedData(dir, PACKAGES, root)).toEqual({
      copied: false,
      reason: 'its files are not the ones its manifest lists',
    });
    expect(entries(dir)).toEqual([]);

    rmSync(join(root, 'data', path));
    expect(copyPreparedData(dir, PACKAGES, root)).toEqual({
      copied: false,
      reason: 'its files are not the ones its manifest lists',
    });

    // Restored as it was made, it is taken again.
    rmSync(join(root, 'data', 'extra'));
    writeFileSync(file, original);
    expect(copyPreparedData(dir, PACKAGES, root)).toEqual({ copied: true });
  });
});

describe('a copy interrupted midway', () => {
  it('makes the directory new again, and is cleared when the directory is next taken', () => {
    const dir = newDir();
    expect(isNewDataDir(dir)).toBe(true);
    writeFileSync(join(dir, COPY_UNDER_WAY), '');
    writeFileSync(join(dir, 'half-copied'), 'x');
    expect(isNewDataDir(dir)).toBe(true);
    const hold = holdDataDir(dir);
    hold.release();
    expect(entries(dir)).toEqual([]);
  });
});
