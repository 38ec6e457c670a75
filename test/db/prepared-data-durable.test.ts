// The prepared demo database is durable before it is declared whole: a power cut must never leave a copy without
// its copy-under-way marker, or kept prepared data in place, whose files or directory entries are still only in
// the page cache. node:fs is wrapped to record what happens to each path, in order, and each file is held to have
// been fsynced after its last write, and each directory after its last new entry, before the marker is unlinked
// (or the kept data renamed into place), and the directory of that last step fsynced after it.
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { COPY_UNDER_WAY } from '../../src/db/data-dir.js';
import { copyPreparedData, keepPreparedData } from '../../src/db/prepared-data.js';
import { tempDir } from '../helpers/temp-dir.js';

type Op = 'create' | 'write' | 'fsync' | 'unlink' | 'rename';
interface Event {
  op: Op;
  path: string;
  to?: string;
}

const recorded = vi.hoisted(() => ({ on: false, events: [] as { op: string; path: string; to?: string }[] }));

vi.mock('node:fs', async (importOriginal) => {
  const real = await importOriginal<typeof import('node:fs')>();
  const open = new Map<number, string>();
  const note = (op: Op, path: unknown, to?: unknown) => {
    if (recorded.on) recorded.events.push({ op, path: String(path), ...(to === undefined ? {} : { to: String(to) }) });
  };
  const pathOf = (file: unknown) => (typeof file === 'number' ? open.get(file) : String(file));
  const wrapped = {
    openSync: ((path, flags, mode) => {
      const fd = real.openSync(path, flags, mode);
      open.set(fd, String(path));
      if (/[wa]/.test(String(flags ?? 'r'))) note('create', path);
      return fd;
    }) as typeof real.openSync,
    closeSync: ((fd) => {
      open.delete(fd);
      real.closeSync(fd);
    }) as typeof real.closeSync,
    writeFileSync: ((file, data, options) => {
      if (typeof file !== 'number') note('create', file);
      note('write', pathOf(file));
      real.writeFileSync(file, data, options);
    }) as typeof real.writeFileSync,
    writeSync: ((fd: number, ...rest: unknown[]) => {
      note('write', open.get(fd));
      return (real.writeSync as (fd: number, ...rest: unknown[]) => number)(fd, ...rest);
    }) as typeof real.writeSync,
    fsyncSync: ((fd) => {
      note('fsync', open.get(fd));
      real.fsyncSync(fd);
    }) as typeof real.fsyncSync,
    fdatasyncSync: ((fd) => {
      note('fsync', open.get(fd));
      real.fdatasyncSync(fd);
    }) as typeof real.fdatasyncSync,
    mkdirSync: ((path, options) => {
      const made = real.mkdirSync(path, options);
      note('create', path);
      return made;
    }) as typeof real.mkdirSync,
    unlinkSync: ((path) => {
      note('unlink', path);
      real.unlinkSync(path);
    }) as typeof real.unlinkSync,
    renameSync: ((from, to) => {
      real.renameSync(from, to);
      note('rename', from, to);
    }) as typeof real.renameSync,
  };
  return { ...real, ...wrapped, default: { ...real, ...wrapped } };
});

const work = tempDir('prepared-data-durable-');
const made = join(work.path, 'made');
const root = join(work.path, 'demo-data');
const FILES = ['PG_VERSION', 'postgresql.conf', 'base/1/1259', 'base/1/2619', 'global/pg_control'];
const DIRECTORIES = ['base', 'base/1', 'global', 'pg_wal'];

/** What happened to paths under `under` while `run` ran, in order. */
function record(under: string, run: () => void): Event[] {
  recorded.events.length = 0;
  recorded.on = true;
  try {
    run();
  } finally {
    recorded.on = false;
  }
  return (recorded.events as Event[]).filter((event) => event.path.startsWith(under));
}

/** Every path a created path brings into being: itself and, for a recursive mkdir, its parents. */
const createdPaths = (events: Event[], index: number): string[] => {
  const event = events[index] as Event;
  if (event.op === 'rename') return [event.to as string];
  if (event.op !== 'create') return [];
  const paths: string[] = [];
  for (let path = event.path; path.length > 1; path = dirname(path)) paths.push(path);
  return paths;
};

/**
 * Each file in `files` fsynced after its last write, and each directory in `directories` after its last new
 * entry, all before the event at `before`.
 */
function expectDurable(events: Event[], files: string[], directories: string[], before: number): void {
  const fsyncAfter = (path: string, from: number) =>
    events.findIndex((event, index) => index > from && event.op === 'fsync' && event.path === path);
  for (const file of files) {
    const written = events.findLastIndex(
      (event, index) => index < before && event.op === 'write' && event.path === file,
    );
    expect(written, `${file} is written`).toBeGreaterThanOrEqual(0);
    const synced = fsyncAfter(file, written);
    expect(synced, `${file} fsynced after its last write`).toBeGreaterThan(written);
    expect(synced, `${file} fsynced before ${events[before]?.op} ${events[before]?.path}`).toBeLessThan(before);
  }
  for (const directory of directories) {
    let lastEntry = -1;
    for (let index = 0; index < before; index++) {
      if (createdPaths(events, index).some((path) => dirname(path) === directory)) lastEntry = index;
    }
    const synced = fsyncAfter(directory, lastEntry);
    expect(synced, `${directory} fsynced after its last new entry`).toBeGreaterThan(lastEntry);
    expect(synced, `${directory} fsynced before ${events[before]?.op} ${events[before]?.path}`).toBeLessThan(before);
  }
}

beforeAll(() => {
  for (const directory of DIRECTORIES) mkdirSync(join(made, directory), { recursive: true });
  FILES.forEach((file, i) => {
    writeFileSync(join(made, file), Buffer.alloc(1000 * (i + 1), i));
  });
});
afterAll(() => work.remove());

describe('the prepared demo database on disk', () => {
  it('is durable, files and directories, before it is renamed into place, and so is the rename', () => {
    const events = record(work.path, () => keepPreparedData(made, 1, root));
    const building = `${root}.${process.pid}.building`;
    const renamed = events.findIndex((event) => event.op === 'rename' && event.path === building);
    expect(events[renamed]?.to).toBe(root);
    expectDurable(
      events,
      [join(building, 'manifest'), ...FILES.map((file) => join(building, 'data', file))],
      [building, join(building, 'data'), ...DIRECTORIES.map((directory) => join(building, 'data', directory))],
      renamed,
    );
    expect(events.slice(renamed + 1)).toContainEqual({ op: 'fsync', path: work.path });
  });

  it('is copied durably, files and directories, before the copy-under-way marker goes, and so is its going', () => {
    const dir = join(work.path, 'copy');
    const marker = join(dir, COPY_UNDER_WAY);
    const events = record(work.path, () => expect(copyPreparedData(dir, 1, root)).toEqual({ copied: true }));
    const unlinked = events.findIndex((event) => event.op === 'unlink' && event.path === marker);
    expect(unlinked).toBeGreaterThan(0);
    expectDurable(
      events,
      FILES.map((file) => join(dir, file)),
      [dir, ...DIRECTORIES.map((directory) => join(dir, directory))],
      unlinked,
    );
    expect(events.slice(unlinked + 1)).toContainEqual({ op: 'fsync', path: dir });
    // The marker itself is on disk before the first file of the copy is: a cut never leaves files without it.
    const markerMade = events.findIndex((event) => event.op === 'create' && event.path === marker);
    const firstFile = events.findIndex(
      (event) => event.op === 'create' && FILES.some((f) => event.path === join(dir, f)),
    );
    for (const path of [marker, dir]) {
      const synced = events.findIndex(
        (event, index) => index > markerMade && event.op === 'fsync' && event.path === path,
      );
      expect(synced, `${path} fsynced after the marker was made`).toBeGreaterThan(markerMade);
      expect(synced, `${path} fsynced before the first file of the copy`).toBeLessThan(firstFile);
    }
  });
});
