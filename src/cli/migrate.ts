// `npm run db:migrate`: applies the pending migrations to the configured database, and builds the read model
// where it is not current (src/startup.ts, ensureReadModel).

import { migrate } from '../db/migrate.js';
import { ensureReadModel } from '../startup.js';
import { openForJob, runJob } from './job.js';

await runJob(async (config) => {
  const db = await openForJob(config);
  try {
    const applied = await db.withStartupLock(
      async () => {
        const names = await migrate(db);
        // Built here too: instances that read as a role that may not write (MIGRATE=off) cannot build it at start.
        await ensureReadModel(db, (line) => console.error(line));
        return names;
      },
      (line) => console.error(line),
    );
    console.log(applied.length > 0 ? `applied: ${applied.join(', ')}` : 'the database is up to date: nothing to apply');
  } finally {
    await db.close();
  }
});
