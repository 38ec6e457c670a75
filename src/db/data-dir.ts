// The embedded database's data directory: checked writable, and held by one running instance at a time
// (two processes writing one PGlite directory would corrupt it).
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, rmSync, statSync, writeSync } from 'node:fs';
import { join } from 'node:path';

export class DataDirError extends Error {}

const LOCK_FILE = 'gateway.lock';

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function reason(error: unknown): string {
  const e = error as NodeJS.ErrnoException;
  return e.code ?? e.message;
}

/** Creates the directory if needed and takes its lock; returns a function that releases it. */
export function lockDataDir(dir: string): () => void {
  if (existsSync(dir) && !statSync(dir).isDirectory())
    throw new DataDirError(`data directory ${dir} is not a directory`);
  try {
    mkdirSync(dir, { recursive: true });
  } catch (error) {
    throw new DataDirError(`data directory ${dir} cannot be created (${reason(error)})`);
  }
  const lockPath = join(dir, LOCK_FILE);
  for (let attempt = 0; attempt < 2; attempt++) {
    let fd: number;
    try {
      fd = openSync(lockPath, 'wx');
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code !== 'EEXIST') throw new DataDirError(`data directory ${dir} is not writable (${reason(error)})`);
      const holder = Number.parseInt(readFileSync(lockPath, 'utf8'), 10);
      if (Number.isInteger(holder) && holder !== process.pid && isRunning(holder)) {
        throw new DataDirError(`data directory ${dir} is in use by another running instance (pid ${holder})`);
      }
      rmSync(lockPath, { force: true }); // left behind by a process that is gone
      continue;
    }
    writeSync(fd, String(process.pid));
    closeSync(fd);
    return () => rmSync(lockPath, { force: true });
  }
  throw new DataDirError(`data directory ${dir} could not be locked`);
}
