// `npm run db:seed -- --packages 100000 [--reset]`: loads demo data into the configured database.
import { migrateIfBehind } from '../db/migrate.js';
import { countPackages, seedDemoData } from '../demo/seed.js';
import { interruptSignal } from '../lifecycle.js';
import { progressReporter } from '../progress.js';
import { readArguments, UsageError } from './arguments.js';
import { openForJob, runJob } from './job.js';

const USAGE = 'usage: npm run db:seed -- --packages N [--reset]';

function readOptions() {
  const { values } = readArguments(
    { options: { packages: { type: 'string', default: '2000' }, reset: { type: 'boolean', default: false } } },
    USAGE,
  );
  const packages = Number(values.packages);
  if (!/^\d+$/.test(values.packages) || packages < 1 || packages > 1_000_000) {
    throw new UsageError(
      `--packages must be a whole number from 1 to 1000000, got ${JSON.stringify(values.packages)} (${USAGE})`,
    );
  }
  return { packages, reset: values.reset };
}

await runJob(
  async (config) => {
    const options = readOptions();
    const signal = interruptSignal();
    const db = await openForJob(config);
    try {
      // Under the start-up lock: a server starting meanwhile neither migrates nor seeds at the same time.
      await db.withStartupLock(
        async () => {
          await migrateIfBehind(db);
          const existing = await countPackages(db);
          if (existing > 0 && !options.reset) {
            throw new UsageError(`the database already holds ${existing} packages; add --reset to replace them`);
          }
          const started = Date.now();
          await seedDemoData(db, { ...options, onProgress: progressReporter('seeding'), signal });
          const seconds = (Date.now() - started) / 1000;
          console.log(`seeded ${options.packages} packages in ${seconds.toFixed(1)} s (${db.kind})`);
        },
        (line) => console.error(line),
      );
    } finally {
      await db.close();
    }
  },
  [UsageError],
);
