// The embedded database's data directory: held by one running instance at a time (two processes writing one
// PGlite directory would corrupt it), never mistaken for something else, and watched while the server runs.
//
// The hold is an operating-system lock on a file in the directory (an open-file-description lock on Linux,
// flock elsewhere, through fs-native-extensions): the kernel drops it when the process ends, however it ends, so
// a stale file or a reused process id can never block a start. The lock file itself stays in the directory.
import {
  accessSync,
  closeSync,
  constants,
  existsSync,
  mkdirSync,
  openSync,
  readdirSync,
  rmSync,
  statSync,
} from 'node:fs';
import { join } from 'node:path';
import { tryLock } from 'fs-native-extensions';

export class DataDirError extends Error {}

export const LOCK_FILE = 'gateway.lock';
/** Every PostgreSQL data directory, PGlite's included, holds this file. */
export const DATABASE_MARK = 'PG_VERSION';
/**
 * Lies in a directory while the prepared demo data is copied into it (src/db/prepared-data.ts), and is removed
 * last: found when the directory is taken, it marks a copy its process never finished, which is no database yet
 * and is cleared, so that the start makes the database again rather than refusing the directory.
 */
export const COPY_UNDER_WAY = 'copy-under-way';

function reason(error: unknown): string {
  const e = error as NodeJS.ErrnoException;
  return e.code ?? e.message;
}

export interface DataDirHold {
  release(): void;
  /** Why the directory is no longer fit to serve from (missing, replaced, not writable), or null. */
  problem(): string | null;
}

/**
 * Whether the directory is new: empty (made here when missing) or holding only an unfinished copy, so a database
 * is yet to be made in it.
 */
export function isNewDataDir(dir: string): boolean {
  try {
    mkdirSync(dir, { recursive: true });
    const entries = readdirSync(dir);
    return (
      statSync(dir).isDirectory() && (entries.every((name) => name === LOCK_FILE) || entries.includes(COPY_UNDER_WAY))
    );
  } catch {
    return false; // not a directory, or not one that can be made or read: holdDataDir says why
  }
}

/** Removes everything in the directory but its lock file (held by the caller). */
export function clearDataDir(dir: string): void {
  for (const name of readdirSync(dir)) {
    if (name !== LOCK_FILE) rmSync(join(dir, name), { recursive: true, force: true });
  }
}

/** Creates the directory if needed, checks it holds a database or nothing, and takes its lock. */
export function holdDataDir(dir: string): DataDirHold {
  if (existsSync(dir) && !statSync(dir).isDirectory()) {
    throw new DataDirError(`data directory ${dir} is not a directory`);
  }
  try {
    mkdirSync(dir, { recursive: true });
  } catch (error) {
    throw new DataDirError(`data directory ${dir} cannot be created (${reason(error)})`);
  }
  const entries = readdirSync(dir).filter((name) => name !== LOCK_FILE);
  if (entries.length > 0 && !entries.includes(DATABASE_MARK) && !entries.includes(COPY_UNDER_WAY)) {
    throw new DataDirError(
      `data directory ${dir} holds files but no database (no ${DATABASE_MARK}); refusing to write into it. Point DATA_DIR at an empty or new directory`,
    );
  }
  let fd: number;
  try {
    fd = openSync(join(dir, LOCK_FILE), 'a+');
  } catch (error) {
    throw new DataDirError(`data directory ${dir} is not writable (${reason(error)})`);
  }
  if (!tryLock(fd)) {
    closeSync(fd);
    throw new DataDirError(`data directory ${dir} is in use by another running instance`);
  }
  // Held now, so no other process is copying into it: an unfinished copy is cleared, the lock file kept.
  if (entries.includes(COPY_UNDER_WAY)) clearDataDir(dir);
  const { dev, ino } = statSync(dir);
  return {
    release: () => closeSync(fd), // closing the descriptor drops the lock
    problem() {
      let now: { dev: number; ino: number };
      try {
        now = statSync(dir);
      } catch {
        return `data directory ${dir} is missing`;
      }
      if (now.dev !== dev || now.ino !== ino) return `data directory ${dir} was replaced while the server ran`;
      try {
        accessSync(dir, constants.W_OK);
      } catch {
        return `data directory ${dir} is not writable`;
      }
      return null;
    },
  };
}
