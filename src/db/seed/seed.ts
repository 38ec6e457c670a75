// Loads the demo data: generated v2 records, written in batches inside ONE transaction, so an interrupted
// seed leaves the database as it was.
import type { Database } from '../client.js';
import { toRows } from '../write/rows.js';
import { insertRows, refreshStatistics, renumberListing, type TransactionClient } from '../write/store.js';
import { generatePackages } from './generate.js';

export interface SeedOptions {
  packages: number;
  /** Replace whatever the database holds. */
  reset?: boolean;
  onProgress?: (written: number, total: number) => void;
}

const BATCH = 1000;
const NO_TIMEOUT = 24 * 60 * 60 * 1000;

export async function countPackages(db: Database): Promise<number> {
  return db.prisma.package.count();
}

async function deleteEverything(tx: TransactionClient): Promise<void> {
  // Children first; one statement per table keeps this fast at any size.
  await tx.listingEntry.deleteMany();
  await tx.linkedAddOn.deleteMany();
  await tx.packageSimplePortfolio.deleteMany();
  await tx.packagePriorityTag.deleteMany();
  await tx.packageImage.deleteMany();
  await tx.package.deleteMany();
  await tx.photographerCoverImage.deleteMany();
  await tx.social.deleteMany();
  await tx.calendarWorkDay.deleteMany();
  await tx.review.deleteMany();
  await tx.photographer.deleteMany();
  await tx.image.deleteMany();
  await tx.priorityTag.deleteMany();
  await tx.simplePortfolio.deleteMany();
  await tx.addOnTemplate.deleteMany();
  await tx.socialSite.deleteMany();
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

export async function seedDemoData(db: Database, options: SeedOptions): Promise<void> {
  const total = options.packages;
  await db.prisma.$transaction(
    async (tx) => {
      if (options.reset) await deleteEverything(tx);
      await skipForeignKeyChecksIfAllowed(tx);
      let batch = [];
      let written = 0;
      for (const record of generatePackages({ count: total })) {
        batch.push(record);
        if (batch.length === BATCH) {
          await insertRows(tx, toRows(batch));
          written += batch.length;
          batch = [];
          options.onProgress?.(written, total);
        }
      }
      if (batch.length > 0) {
        await insertRows(tx, toRows(batch));
        written += batch.length;
        options.onProgress?.(written, total);
      }
      await renumberListing(tx);
      await refreshStatistics(tx);
    },
    { timeout: NO_TIMEOUT, maxWait: 60_000 },
  );
}
