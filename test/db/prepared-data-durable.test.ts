// The prepared demo database is durable before it is declared whole: a power cut must never leave a copy without
// its copy-under-way marker, or kept prepared data in place, whose files or directory entries are still only in
// the page cache. node:fs and `sync -f` (syncfs(2), run through node:child_process) are wrapped to record what
// happens to each path, in order, and each file is held to have been synced after its last write, and each
// directory after its last new entry, before the marker is unlinked (or the kept data renamed into place), and the
// directory of that last step synced after it. A sync is the path's own fsync, or a syncfs of its file system.
// Both ways are held to it: syncfs where it works (and then no file is fsynced one by one: that cost seconds), and
// the fsyncs where `sync -f` fails.
import { mkdirSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { COPY_UNDER_WAY } from '../../src/db/data-dir.js';
import { copyPreparedData, keepPreparedData } from '../../src/db/prepared-data.js';
import { tempDir } from '../helpers/temp-dir.js';

type Op = 'create' | 'write' | 'fsync' | 'syncfs' | 'syncfs failed' | 'unlink' | 'rename';
interface Event {
  op: Op;
  path: string;
  to?: string;
  /** For a syncfs: the file system it synced. */
  device?: number;
}

const recorded = vi.hoisted(() => ({
  on: false,
  syncfsFails: false,
  events: [] as { op: string; path: string; to?: string; device?: number }[],
}));

vi.mock('node:child_process', async (importOriginal) => {
  const real = await importOriginal<typeof import('node:child_process')>();
  const { statSync } = await import('node:fs');
  const execFileSync = ((file: string, args?: readonly string[], options?: object) => {
    if (file !== 'sync' || args?.[0] !== '-f') return real.execFileSync(file, args, options);
    const path = String(args[1]);
    if (recorded.syncfsFails) {
      if (recorded.on) recorded.events.push({ op: 'syncfs failed', path });
      throw new Error("sync: unrecognized option '-f'");
    }
    const output = real.execFileSync(file, args, options);
    if (recorded.on) recorded.events.push({ op: 'syncfs', path, device: statSync(path).dev });
    return output;
  }) as typeof real.execFileSync;
  return { ...real, execFileSync, default: { ...real, execFileSync } };
});

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

/** Whether the event puts `path` on disk: its own fsync, or a syncfs of its file system (all of the test's). */
const syncs = (event: Event, path: string) =>
  (event.op === 'fsync' && event.path === path) || (event.op === 'syncfs' && event.device === statSync(work.path).dev);

/** Every path a created path brings into being: itself and, for a recursive mkdir, its parents. */
const createdPaths = (events: Event[], index: number): string[] => {
  const event = events[index] as Event;
  if (event.op === 'rename') return [event.to as string];
  if (event.op !== 'create') return [];
  const paths: string[] = [];
  for (let path = event.path; path.length > 1; path = dirname(path)) paths.push(path);
  return paths;
};

/** The index of the first event after `from` that puts `path` on disk, or -1. */
const syncedAfter = (events: Event[], path: string, from: number) =>
  events.findIndex((event, index) => index > from && syncs(event, path));

/**
 * Each file in `files` synced after its last write, and each directory in `directories` after its last new
 * entry, all before the event at `before`.
 */
function expectDurable(events: Event[], files: string[], directories: string[], before: number): void {
  for (const file of files) {
    const written = events.findLastIndex(
      (event, index) => index < before && event.op === 'write' && event.path === file,
    );
    expect(written, `${file} is written`).toBeGreaterThanOrEqual(0);
    const synced = syncedAfter(events, file, written);
    expect(synced, `${file} synced after its last write`).toBeGreaterThan(written);
    expect(synced, `${file} synced before ${events[before]?.op} ${events[before]?.path}`).toBeLessThan(before);
  }
  for (const directory of directories) {
    let lastEntry = -1;
    for (let index = 0; index < before; index++) {
      if (createdPaths(events, index).some((path) => dirname(path) === directory)) lastEntry = index;
    }
    const synced = syncedAfter(events, directory, lastEntry);
    expect(synced, `${directory} synced after its last new entry`).toBeGreaterThan(lastEntry);
    expect(synced, `${directory} synced before ${events[before]?.op} ${events[before]?.path}`).toBeLessThan(before);
  }
}

/** How the events made `files` durable: by syncfs where it works, by their own fsyncs where it fails. */
function expectSyncedBy(way: Way, events: Event[], files: string[]): void {
  const fsynced = files.filter((file) => events.some((event) => event.op === 'fsync' && event.path === file));
  if (way === 'syncfs') {
    expect(events.filter((event) => event.op === 'syncfs').length, 'synced by syncfs').toBeGreaterThan(0);
    expect(fsynced, 'no file fsynced one by one').toEqual([]);
  } else {
    expect(events.filter((event) => event.op === 'syncfs')).toEqual([]);
    if (process.platform === 'linux') {
      expect(events.filter((event) => event.op === 'syncfs failed').length, 'syncfs tried first').toBeGreaterThan(0);
    }
    expect(fsynced, 'every file fsynced').toEqual(files);
  }
}

beforeAll(() => {
  for (const directory of DIRECTORIES) mkdirSync(join(made, directory), { recursive: true });
  FILES.forEach((file, i) => {
    writeFileSync(join(made, file), Buffer.alloc(1000 * (i + 1), i));
  });
});
afterAll(() => work.remove());

type Way = 'syncfs' | 'fsync';

// syncfs is tried on Linux only: elsewhere sync(2) need not wait for the writes.
describe.each<Way>(process.platform === 'linux' ? ['syncfs', 'fsync'] : ['fsync'])(
  'the prepared demo database on disk, made durable by %s',
  (way) => {
    beforeAll(() => {
      recorded.syncfsFails = way === 'fsync';
    });
    afterAll(() => {
      recorded.syncfsFails = false;
    });

    it('is durable, files and directories, before it is renamed into place, and so is the rename', () => {
      const events = record(work.path, () => keepPreparedData(made, 1, root));
      const building = `${root}.${process.pid}.building`;
      const renamed = events.findIndex((event) => event.op === 'rename' && event.path === building);
      expect(events[renamed]?.to).toBe(root);
      const files = [...FILES.map((file) => join(building, 'data', file)), join(building, 'manifest')];
      expectDurable(
        events,
        files,
        [building, join(building, 'data'), ...DIRECTORIES.map((directory) => join(building, 'data', directory))],
        renamed,
      );
      expect(syncedAfter(events, work.path, renamed), 'the rename synced').toBeGreaterThan(renamed);
      expectSyncedBy(way, events, files);
    });

    it('is copied durably, files and directories, before the copy-under-way marker goes, and so is its going', () => {
      const dir = join(work.path, `copy-${way}`);
      const marker = join(dir, COPY_UNDER_WAY);
      const events = record(work.path, () => expect(copyPreparedData(dir, 1, root)).toEqual({ copied: true }));
      const unlinked = events.findIndex((event) => event.op === 'unlink' && event.path === marker);
      expect(unlinked).toBeGreaterThan(0);
      const files = FILES.map((file) => join(dir, file));
      expectDurable(events, files, [dir, ...DIRECTORIES.map((directory) => join(dir, directory))], unlinked);
      expect(syncedAfter(events, dir, unlinked), 'the unlink synced').toBeGreaterThan(unlinked);
      expectSyncedBy(way, events, files);
      // The marker itself is on disk before the first file of the copy is: a cut never leaves files without it.
      const markerMade = events.findIndex((event) => event.op === 'create' && event.path === marker);
      const firstFile = events.findIndex(
        (event) => event.op === 'create' && FILES.some((f) => event.path === join(dir, f)),
      );
      for (const path of [marker, dir]) {
        const synced = syncedAfter(events, path, markerMade);
        expect(synced, `${path} synced after the marker was made`).toBeGreaterThan(markerMade);
        expect(synced, `${path} synced before the first file of the copy`).toBeLessThan(firstFile);
      }
    });
  },
);
