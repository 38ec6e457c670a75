// `npm run db:migrate`: applies the pending migrations to the configured database.

import { migrate } from '../db/migrate.js';
import { openForJob, runJob } from './job.js';

await runJob(async (config) => {
  const db = await openForJob(config);
  try {
    const applied = await db.withStartupLock(
      () => migrate(db),
      (line) => console.error(line),
    );
    console.log(applied.length > 0 ? `applied: ${applied.join(', ')}` : 'the database is up to date: nothing to apply');
  } finally {
    await db.close();
  }
});
