// The demo database made once and kept ready to copy: a closed embedded data directory holding the migrated schema
// and the demo listing with its read model, beside the compiled code (dist/demo-data/). A first start on a new
// data directory copies it, which takes about half a second and no more memory than one file, instead of applying
// the migrations and generating, writing and indexing the demo packages (some 15 s and 450 MB).
// `npm install` makes it (`npm run db:demo-data`); a first start that had to make its database keeps a copy.
//
// A copy is only ever the database that making it would give: its key names PGlite's version, the migrations,
// the build (the demo generator, the writes and the read model are compiled code) and the number of packages, and
// every file is checked against its SHA-256 as it is copied. Anything else (none made, another key, a file
// missing, changed or added) is a reason given in one line, and the database is made as before.
// The kept data and each copy are on disk before they are declared whole (renamed into place, the marker unlinked),
// and so is that step: a power cut never leaves one that looks whole and is not (makeDurable).
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  closeSync,
  fsyncSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildFingerprint } from '../build-fingerprint.js';
import type { Database } from './client.js';
import { COPY_UNDER_WAY, clearDataDir, DATABASE_MARK, holdDataDir, LOCK_FILE } from './data-dir.js';
import { pgliteVersion } from './embedded-template.js';
import { readMigrations } from './schema-engine.js';
import { RENEW_LISTING_VERSION } from './write/store.js';

/** Where the prepared data lives (tests keep theirs elsewhere): its manifest, and the database's files under data/. */
export const PREPARED_DATA = fileURLToPath(new URL('../demo-data', import.meta.url));
// No extension: the build's fingerprint hashes the .json files under dist/, and the manifest is no code.
const MANIFEST = 'manifest';
const DATA = 'data';

interface Manifest {
  key: string;
  packages: number;
  /** Every directory, parents first (PostgreSQL needs its empty ones too), relative to data/. */
  directories: string[];
  /** Every file as [path, size, SHA-256 in hex]. */
  files: [string, number, string][];
}

/** What the prepared data must have been made with to be this build's database of `packages` demo packages. */
export function preparedDataKey(packages: number): string {
  const hash = createHash('sha256');
  hash.update(`pglite ${pgliteVersion()}\0build ${buildFingerprint()}\0packages ${packages}\0`);
  for (const migration of readMigrations().migrationDirectories) {
    const { content } = migration.migrationFile;
    hash.update(`${migration.path}\0${content.tag === 'ok' ? content.value : ''}\0`);
  }
  return hash.digest('hex');
}

const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

/** Writes the file and fsyncs it: its bytes are on disk (its name is once its directory is synced). */
function writeFileDurably(path: string, bytes: Buffer | string): void {
  const fd = openSync(path, 'w');
  try {
    writeFileSync(fd, bytes);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/** Fsyncs the directory: the names created, renamed or removed in it are on disk. */
function syncDirectory(path: string): void {
  const fd = openSync(path, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/** Fsyncs the file written before: its bytes are on disk. Opened for writing, as some systems fsync no other. */
function syncFile(path: string): void {
  const fd = openSync(path, 'r+');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/**
 * Puts `files` and the entries of `directories`, all on the file system holding `dir`, on disk. On Linux, with one
 * syncfs(2) of that file system (`sync -f`, coreutils 8.24+): one journal commit for them all, where an fsync of each
 * of a copy's thousand files commits once per file and took seconds where the copy itself takes half of one
 * (PostgreSQL 16's initdb --sync-method=syncfs makes the same choice). Linux's sync(2) waits for the writes too, so
 * a `sync` that ignores -f (an old busybox) still suffices. Elsewhere sync may return before the writes are done;
 * there, or where `sync` cannot be run or fails (an image without coreutils), each file and directory is fsynced.
 */
function makeDurable(dir: string, files: readonly string[], directories: readonly string[]): void {
  if (process.platform === 'linux') {
    try {
      execFileSync('sync', ['-f', dir], { stdio: 'ignore' });
      return;
    } catch {
      // Fsynced one by one below.
    }
  }
  for (const file of files) syncFile(file);
  for (const directory of directories) syncDirectory(directory);
}

/** The directories and files under `root`, relative to it with '/', parents before their children. */
function walk(root: string, skip: ReadonlySet<string> = new Set()): { directories: string[]; files: string[] } {
  const directories: string[] = [];
  const files: string[] = [];
  const visit = (relative: string) => {
    for (const entry of readdirSync(join(root, relative), { withFileTypes: true })) {
      const path = relative ? `${relative}/${entry.name}` : entry.name;
      if (skip.has(path)) continue;
      if (entry.isDirectory()) {
        directories.push(path);
        visit(path);
      } else if (entry.isFile()) files.push(path);
      else throw new Error(`${path} is neither a file nor a directory`);
    }
  };
  visit('');
  return { directories: directories.sort(), files: files.sort() };
}

/**
 * Keeps the closed data directory `madeDir`, just made with `packages` demo packages by this build, as the
 * prepared data, replacing any other. Made aside and renamed into place, so a reader never meets half of it.
 */
export function keepPreparedData(madeDir: string, packages: number, root = PREPARED_DATA): string {
  const building = `${root}.${process.pid}.building`;
  const old = `${root}.${process.pid}.old`;
  rmSync(building, { recursive: true, force: true });
  try {
    const { directories, files } = walk(madeDir, new Set([LOCK_FILE, COPY_UNDER_WAY]));
    const manifest: Manifest = { key: preparedDataKey(packages), packages, directories, files: [] };
    for (const directory of directories) mkdirSync(join(building, DATA, directory), { recursive: true });
    mkdirSync(join(building, DATA), { recursive: true });
    for (const file of files) {
      const bytes = readFileSync(join(madeDir, file));
      writeFileSync(join(building, DATA, file), bytes);
      manifest.files.push([file, bytes.length, sha256(bytes)]);
    }
    writeFileSync(join(building, MANIFEST), `${JSON.stringify(manifest)}\n`);
    makeDurable(
      building,
      [...files.map((file) => join(building, DATA, file)), join(building, MANIFEST)],
      [...directories.map((directory) => join(building, DATA, directory)), join(building, DATA), building],
    );
    rmSync(old, { recursive: true, force: true });
    try {
      renameSync(root, old);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
    renameSync(building, root);
    makeDurable(dirname(root), [], [dirname(root)]);
    rmSync(old, { recursive: true, force: true });
    return root;
  } catch (error) {
    rmSync(building, { recursive: true, force: true });
    throw error;
  }
}

const reasonOf = (error: unknown) => (error as NodeJS.ErrnoException).code ?? (error as Error).message;

/** The manifest of prepared data usable for `packages` demo packages in this build, or why there is none. */
function usableManifest(packages: number, root: string): Manifest | string {
  let manifest: Manifest;
  try {
    manifest = JSON.parse(readFileSync(join(root, MANIFEST), 'utf8')) as Manifest;
    if (!Array.isArray(manifest.files) || !Array.isArray(manifest.directories)) throw new Error('not a manifest');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return code === 'ENOENT' ? 'none was made' : `its manifest cannot be read (${reasonOf(error)})`;
  }
  if (manifest.key !== preparedDataKey(packages)) {
    return `it was made by another build, PGlite, set of migrations or number of packages than ${packages}`;
  }
  let found: { directories: string[]; files: string[] };
  try {
    found = walk(join(root, DATA));
  } catch (error) {
    return `its files cannot be listed (${reasonOf(error)})`;
  }
  const listed = manifest.files.map((file) => file[0]);
  if (
    found.files.join('\0') !== listed.join('\0') ||
    found.directories.join('\0') !== manifest.directories.join('\0')
  ) {
    return 'its files are not the ones its manifest lists';
  }
  return manifest;
}

export type CopyOutcome = { copied: true } | { copied: false; reason: string };

/**
 * Copies the prepared data into the new data directory `dataDir`, each file checked against its SHA-256 on the
 * way, PostgreSQL's PG_VERSION last. The directory is held meanwhile and marked while the copy is under way, so an
 * interrupted copy is cleared by the next start (src/db/data-dir.ts); a failed one is cleared here. Once opened,
 * the copy needs a listing version of its own: renewListingVersion.
 */
export function copyPreparedData(dataDir: string, packages: number, root = PREPARED_DATA): CopyOutcome {
  const manifest = usableManifest(packages, root);
  if (typeof manifest === 'string') return { copied: false, reason: manifest };
  const hold = holdDataDir(dataDir);
  try {
    if (readdirSync(dataDir).some((name) => name !== LOCK_FILE)) {
      return { copied: false, reason: 'the data directory is no longer empty' };
    }
    // On disk before any file of the copy is: a cut never leaves part of a copy without it.
    writeFileDurably(join(dataDir, COPY_UNDER_WAY), '');
    syncDirectory(dataDir);
    for (const directory of manifest.directories) mkdirSync(join(dataDir, directory), { recursive: true });
    const last = (path: string) => (path === DATABASE_MARK ? 1 : 0);
    const files = [...manifest.files].sort((a, b) => last(a[0]) - last(b[0]));
    for (const [path, size, hash] of files) {
      const bytes = readFileSync(join(root, DATA, path));
      if (bytes.length !== size || sha256(bytes) !== hash) {
        clearDataDir(dataDir);
        return { copied: false, reason: `its file ${path} is not the one its manifest lists` };
      }
      mkdirSync(dirname(join(dataDir, path)), { recursive: true });
      writeFileSync(join(dataDir, path), bytes);
    }
    makeDurable(
      dataDir,
      files.map(([path]) => join(dataDir, path)),
      [...manifest.directories.map((directory) => join(dataDir, directory)), dataDir],
    );
    unlinkSync(join(dataDir, COPY_UNDER_WAY));
    makeDurable(dataDir, [], [dataDir]);
    return { copied: true };
  } catch (error) {
    clearDataDir(dataDir);
    return { copied: false, reason: `copying it failed (${reasonOf(error)})` };
  } finally {
    hold.release();
  }
}

/**
 * Gives a copied database a listing version of its own: the prepared data's would otherwise be every copy's, and
 * two databases never share one (their answers may meet in one Redis; src/db/write/store.ts).
 */
export async function renewListingVersion(db: Pick<Database, 'read'>): Promise<string> {
  const [row] = await db.read.single<{ version: string }>({ text: RENEW_LISTING_VERSION });
  return row?.version as string;
}
