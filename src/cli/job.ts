// The shared runner of the command-line tools: the database opened as a start opens it, and every failure turned
// into one line on stderr and an exit code.
import { type Config, loadConfig } from '../config.js';
import { type Database, openDatabase } from '../db/client.js';
import { Interrupted, interruptedExitCode } from '../lifecycle.js';
import { describeStartupFailure, type ErrorClass } from '../startup.js';

/** The database for a command-line job: waited for as at start, waiting lines on stderr. */
export function openForJob(config: Config): Promise<Database> {
  return openDatabase(config.database, {
    pool: config.pool,
    waitMs: config.databaseWaitMs,
    onWait: (line) => console.error(line),
  });
}

/**
 * Runs a command-line job to its end: any failure becomes one line on stderr and exit code 1, success exits
 * 0 at once (the schema engine's WebAssembly runtime leaves a timer behind that would keep the process up).
 */
export async function runJob(main: (config: Config) => Promise<void>, expected: ErrorClass[] = []): Promise<void> {
  await runOrExit(main, expected);
  process.exit(0);
}

/** Runs `main`, turning any failure into one line on stderr and exit code 1. */
export async function runOrExit(main: (config: Config) => Promise<void>, expected: ErrorClass[] = []): Promise<void> {
  try {
    await main(loadConfig());
  } catch (error) {
    if (error instanceof Interrupted) {
      console.error(`${error.message}: rolled back, nothing of the unfinished work was written`);
      process.exit(interruptedExitCode(error.reason));
    }
    console.error(`error: ${describeStartupFailure(error, expected)}`);
    process.exit(1);
  }
}
