// What `npm start` does before it serves: validate config, open the database, migrate, seed when empty.
// Expected failures become one clear line (StartupError); nothing is written when a step fails.
import { type Config, ConfigError, loadConfig } from './config.js';
import { type Database, DatabaseUnavailableError, openDatabase } from './db/client.js';
import { DataDirError } from './db/data-dir.js';
import { MigrationError, migrate } from './db/migrate.js';
import { countPackages, seedDemoData } from './db/seed/seed.js';
import { progressReporter } from './progress.js';

/** A start-up failure with a message fit for the operator as it is. */
export class StartupError extends Error {}

type ErrorClass = new (...args: never[]) => Error;
const EXPECTED: ErrorClass[] = [ConfigError, DatabaseUnavailableError, DataDirError, MigrationError, StartupError];

/** One line for an expected failure; the message alone for anything else (never a stack trace). */
export function describeFailure(error: unknown, expected: ErrorClass[] = []): string {
  if ([...EXPECTED, ...expected].some((kind) => error instanceof kind)) return (error as Error).message;
  return `unexpected error: ${(error as Error)?.message ?? String(error)}`.split('\n')[0] ?? 'unexpected error';
}

export async function prepareDatabase(config: Config, log: (line: string) => void): Promise<Database> {
  const db = await openDatabase(config.database);
  try {
    const applied = await migrate(db);
    if (applied.length > 0) log(`applied migrations: ${applied.join(', ')}`);
    if (config.seedPackages > 0 && (await countPackages(db)) === 0) {
      const started = Date.now();
      await seedDemoData(db, { packages: config.seedPackages, onProgress: progressReporter('seeding demo data') });
      log(`loaded ${config.seedPackages} demo packages in ${((Date.now() - started) / 1000).toFixed(1)} s`);
    }
    return db;
  } catch (error) {
    await db.close().catch(() => {});
    throw error;
  }
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
    console.error(`error: ${describeFailure(error, expected)}`);
    process.exit(1);
  }
}
