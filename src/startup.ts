// What a start does before it serves: open the database (waiting for it a while), then, holding the start-up
// lock so that instances starting together take turns, bring its schema up to date and load demo data where
// that is asked for. Expected failures become one clear line (StartupError); nothing is written when a step fails.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { type Config, ConfigError, DEMO_PACKAGES } from './config.js';
import { type Database, DatabaseUnavailableError, openDatabase } from './db/client.js';
import { DataDirError, holdDataDir, isNewDataDir } from './db/data-dir.js';
import { MigrationError, migrate, pendingMigrations } from './db/migrate.js';
import { copyPreparedData, keepPreparedData, renewListingVersion } from './db/prepared-data.js';
import { READ_MODEL_CURRENT, rebuildReadModel } from './db/write/read-model-rebuild.js';
import { countPackages, seedDemoData } from './demo/seed.js';
import type { Logger } from './logger.js';
import { describeFailure, firstLine } from './messages.js';

/** A start-up failure with a message fit for the operator as it is. */
export class StartupError extends Error {}

export type ErrorClass = new (...args: never[]) => Error;
const EXPECTED: ErrorClass[] = [ConfigError, DatabaseUnavailableError, DataDirError, MigrationError, StartupError];

/** One line for a failure at start or in a job (see src/messages.ts). */
export function describeStartupFailure(error: unknown, expected: ErrorClass[] = []): string {
  return describeFailure(error, [...EXPECTED, ...expected]);
}

/**
 * Opens the database for the server, brought up to date. A new embedded database is first made: copied from the
 * prepared demo data where that is this start's database (src/db/prepared-data.ts), else (initdb, the migrations,
 * the demo data) by a process of its own (src/first-start.ts): PGlite's WebAssembly memory grows to about 700 MB
 * for that and never shrinks, and the server that opens the made database afterwards holds a third of it. `here`
 * prepares it in this process (what that process does).
 */
export async function prepareDatabase(config: Config, log: Logger, here = false): Promise<Database> {
  const { database } = config;
  let copied = false;
  if (!here && database.kind === 'pglite' && database.dataDir !== 'memory://' && isNewDataDir(database.dataDir)) {
    copied = await makeNewDatabase(config, database.dataDir, log);
  }
  const db = await openDatabase(config.database, {
    pool: config.pool,
    waitMs: config.databaseWaitMs,
    onWait: (line) => log.warn(line),
    onPoolerFound: (line) => log.warn(line),
    writes: false,
  });
  try {
    await db.withStartupLock(
      async () => {
        if (copied) await renewListingVersion(db);
        // Asked first: the schema engine (WebAssembly, tens of MB) is loaded only when there is work for it.
        const pending = await pendingMigrations(db);
        if (config.migrate === 'auto' && pending.length > 0) {
          const applied = await migrate(db);
          if (applied.length > 0) log.info({ migrations: applied }, `applied migrations: ${applied.join(', ')}`);
        } else if (pending.length > 0) {
          throw new StartupError(
            `the database is behind by ${pending.length} migration${pending.length === 1 ? '' : 's'} (${pending.join(', ')}) and MIGRATE=off: run npm run db:migrate first`,
          );
        }
        if (config.seedPackages > 0 && (await countPackages(db)) === 0) {
          const started = Date.now();
          log.info(`loading ${config.seedPackages} demo packages into the empty database`);
          await withStartupWrites(config, db, (writer) => seedDemoData(writer, { packages: config.seedPackages }));
          const seconds = ((Date.now() - started) / 1000).toFixed(1);
          log.info(`loaded ${config.seedPackages} demo packages in ${seconds} s`);
        }
        await ensureReadModel(
          db,
          (line) => log.info(line),
          (work) => withStartupWrites(config, db, work),
        );
      },
      (line) => log.info(line),
    );
    return db;
  } catch (error) {
    await db.close().catch(() => {});
    throw error;
  }
}

/**
 * Makes a new embedded database in `dataDir`: a copy of the prepared demo data when it is the database this start
 * would make (the default demo listing, migrations applied at start), else in a process of its own, which is then
 * kept as the prepared data for the next first start. True when it was copied.
 */
async function makeNewDatabase(config: Config, dataDir: string, log: Logger): Promise<boolean> {
  const prepared = config.migrate === 'auto' && config.seedPackages === DEMO_PACKAGES;
  if (prepared) {
    const started = Date.now();
    const outcome = copyPreparedData(dataDir, config.seedPackages);
    if (outcome.copied) {
      const seconds = ((Date.now() - started) / 1000).toFixed(1);
      log.info(`loaded ${config.seedPackages} demo packages: the prepared database copied in ${seconds} s`);
      return true;
    }
    log.info(`the prepared demo database is not used (${outcome.reason}): making the database`);
  }
  await firstStart();
  if (prepared) {
    // Held meanwhile, so that nothing writes to it while it is read.
    const hold = holdDataDir(dataDir);
    try {
      log.info(`kept the new database as the prepared demo data: ${keepPreparedData(dataDir, config.seedPackages)}`);
    } catch (error) {
      // Where the compiled code is read-only (the image), the next first start makes its database the same way.
      log.info(`the new database was not kept as the prepared demo data: ${firstLine(error)}`);
    } finally {
      hold.release();
    }
  }
  return false;
}

/**
 * Runs a start's writes (the demo data, the read model) where its migrations run: on the direct connection when
 * DATABASE_DIRECT_URL is set, as its role (the owner's, where the instances read as a role that may not write:
 * deploy/postgres/roles.sql), else on the database itself. The Prisma client (and, in seedDemoData, the demo
 * generator) is loaded only for this.
 */
async function withStartupWrites<T>(config: Config, db: Database, work: (writer: Database) => Promise<T>): Promise<T> {
  const { database } = config;
  if (database.kind !== 'postgresql' || !database.directUrl) {
    await db.enableWrites();
    return work(db);
  }
  const writer = await openDatabase(
    { kind: 'postgresql', url: database.directUrl },
    { pool: { ...config.pool, size: 2 }, waitMs: config.databaseWaitMs },
  );
  try {
    return await work(writer);
  } finally {
    await writer.close();
  }
}

/**
 * Builds the read model when it was not built for the listing as it stands in this build's format: a database
 * written by an older build, or one whose format changed, or migrated and never written. Writers keep it current
 * from then on. `npm run db:migrate` calls it too, so that instances that may not write find it built.
 */
export async function ensureReadModel(
  db: Database,
  say: (line: string) => void,
  writing: <T>(work: (writer: Database) => Promise<T>) => Promise<T> = async (work) => {
    await db.enableWrites();
    return work(db);
  },
): Promise<void> {
  const [state] = await db.read.single<{ current: boolean }>({ text: READ_MODEL_CURRENT });
  if (state?.current) return;
  const started = Date.now();
  say('building the read model of the listing');
  await writing((writer) =>
    writer.prisma.$transaction((tx) => rebuildReadModel((sql) => tx.$executeRawUnsafe(sql)), {
      timeout: 60 * 60 * 1000,
      maxWait: 60_000,
    }),
  );
  say(`built the read model in ${((Date.now() - started) / 1000).toFixed(1)} s`);
}

/**
 * V8 flags for the first start's process. Liftoff only: Node 24's optimising WebAssembly compiler takes hundreds of
 * MB for a few seconds on PGlite's largest functions (a first start peaked at 900 MB, against 330 MB without it),
 * and the optimised code gains nothing measurable for this one-off work.
 */
const FIRST_START_FLAGS = ['--liftoff-only'];

/** Runs src/first-start.ts (compiled beside this module) to its end; its lines go where this process's go. */
async function firstStart(): Promise<void> {
  const script = fileURLToPath(new URL('./first-start.js', import.meta.url));
  const flags = FIRST_START_FLAGS.filter((flag) => !process.execArgv.includes(flag));
  // It stops when this process is gone, however this one was started: it is this start's work alone.
  const env = { ...process.env, STOP_WITH_PARENT: 'true' };
  const child = spawn(process.execPath, [...process.execArgv, ...flags, script], { stdio: 'inherit', env });
  const { code, signal } = await new Promise<{ code: number | null; signal: NodeJS.Signals | null }>(
    (resolve, reject) => {
      child.once('error', reject);
      child.once('exit', (exitCode, exitSignal) => resolve({ code: exitCode, signal: exitSignal }));
    },
  );
  if (code === 0) return;
  throw new StartupError(`the new embedded database could not be prepared: ${childEnd(code, signal)}`);
}

/** How the first start's process ended, and what to do about it when it was killed. */
export function childEnd(code: number | null, signal: NodeJS.Signals | null): string {
  if (signal === 'SIGKILL') {
    return (
      'its process was killed by SIGKILL, most likely by the memory limit (the kernel kills the largest process ' +
      'of a container that reaches its limit). A first start takes some 450 MB with the server: give the ' +
      'container 512 MB or more, or make the data directory once where there is more memory and mount it'
    );
  }
  if (signal) return `its process was killed by ${signal}`;
  return `its process exited with code ${code}`;
}
