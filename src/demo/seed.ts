// Loads the demo data: generated v2 records, written in batches inside ONE transaction, so an interrupted
// seed leaves the database as it was. The generator (faker's data, some 17 MB) is loaded only when seeding, and
// the production image leaves it out (the Dockerfile's demo target has it).
import { ConfigError } from '../config.js';
import type { Database } from '../db/client.js';
import { toRows } from '../db/write/rows.js';
import {
  bumpListingVersion,
  deleteEverything,
  insertRows,
  liftStatementTimeout,
  refreshStatistics,
  renumberListing,
  type TransactionClient,
} from '../db/write/store.js';

export interface SeedOptions {
  packages: number;
  /** Replace whatever the database holds. */
  reset?: boolean;
  onProgress?: (written: number, total: number) => void;
  /** Checked between batches: when it aborts, the transaction rolls back and its reason is thrown. */
  signal?: AbortSignal;
}

// Records generated, converted and sent per round: 1,000 at a time held over 100 MB of live heap (the records, their
// rows and the JSON texts of each statement's parameter), which a heap of 40% of a 256 MB container cannot hold; 250
// at a time hold a quarter of that, for no slower a seed.
const BATCH = 250;

/**
 * Lets the event loop take its turn (signals, timers): the embedded database answers through promises that are
 * already settled, so a seed would otherwise hold the loop until its end and never hear a SIGTERM.
 */
const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));
const NO_TIMEOUT = 24 * 60 * 60 * 1000;

export async function countPackages(db: Pick<Database, 'read'>): Promise<number> {
  const [row] = await db.read.single<{ count: number }>({ text: 'SELECT count(*)::int AS count FROM package' });
  return row?.count ?? 0;
}

/**
 * The generator's references are consistent by construction, so the seed may skip the per-row foreign-key
 * triggers for this transaction, as pg_restore --disable-triggers does: it halves the load time. Only a
 * superuser may (PGlite always is); other roles load with the checks on.
 */
async function skipForeignKeyChecksIfAllowed(tx: TransactionClient): Promise<void> {
  const [role] = await tx.$queryRaw<
    { superuser: boolean }[]
  >`SELECT rolsuper AS superuser FROM pg_roles WHERE rolname = current_user`;
  if (role?.superuser) await tx.$executeRaw`SET LOCAL session_replication_role = replica`;
}

/** The demo generator; where it is not installed, a start or a seed is refused in one line that says where it is. */
async function loadGenerator(): Promise<typeof import('./generate.js')> {
  try {
    return await import('./generate.js');
  } catch (error) {
    if ((error as { code?: unknown }).code !== 'ERR_MODULE_NOT_FOUND') throw error;
    const missing = /Cannot find (?:package|module) '([^']+)'/.exec((error as Error).message)?.[1] ?? 'it';
    throw new ConfigError(
      `the demo generator is not installed here (${missing} is missing): the production image leaves it out; demo packages come from the demo image (docker build --target demo), a listing from npm run import`,
    );
  }
}

export async function seedDemoData(db: Database, options: SeedOptions): Promise<void> {
  const total = options.packages;
  const { generatePackages } = await loadGenerator();
  await db.prisma.$transaction(
    async (tx) => {
      await liftStatementTimeout(tx);
      if (options.reset) await deleteEverything(tx);
      await skipForeignKeyChecksIfAllowed(tx);
      let batch = [];
      let written = 0;
      for (const record of generatePackages({ count: total })) {
        batch.push(record);
        if (batch.length === BATCH) {
          await nextTurn();
          options.signal?.throwIfAborted();
          await insertRows(tx, toRows(batch));
          written += batch.length;
          batch = [];
          options.onProgress?.(written, total);
        }
      }
      options.signal?.throwIfAborted();
      if (batch.length > 0) {
        await insertRows(tx, toRows(batch));
        written += batch.length;
        options.onProgress?.(written, total);
      }
      await renumberListing(tx);
      await bumpListingVersion(tx);
      await refreshStatistics(tx);
      options.signal?.throwIfAborted();
    },
    { timeout: NO_TIMEOUT, maxWait: 60_000 },
  );
}
