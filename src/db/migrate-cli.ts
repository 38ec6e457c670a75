// `npm run db:migrate`: applies the pending migrations to the configured database.
import { runJob } from '../startup.js';
import { openDatabase } from './client.js';
import { migrate } from './migrate.js';

await runJob(async (config) => {
  const db = await openDatabase(config.database);
  try {
    const applied = await migrate(db);
    console.log(applied.length > 0 ? `applied: ${applied.join(', ')}` : 'the database is up to date: nothing to apply');
  } finally {
    await db.close();
  }
});
