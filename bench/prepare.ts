// A bench helper run as a child process (never alongside a server on the same PGlite directory): opens the
// database the environment names (DATABASE_URL, else DATA_DIR) through the product's own client and
//   `count`    prints {"listed": n, "analyzed": bool, "version": "PostgreSQL ..."}: listed packages (0 when the
//              tables do not exist yet), whether the planner has statistics for them, the server's version;
//   `analyze`  runs VACUUM ANALYZE: the state autovacuum reaches by itself after a bulk load on a normally
//              configured server. Without it (autovacuum off, or PGlite, which has no autovacuum) the planner
//              guesses row counts and plans, and even JIT-compiles, far too expensively.
import { loadConfig } from '../src/config.js';
import { openDatabase } from '../src/db/client.js';

const command = process.argv[2];
if (command !== 'count' && command !== 'analyze') {
  console.error('usage: tsx bench/prepare.ts count|analyze');
  process.exit(2);
}

const db = await openDatabase(loadConfig().database);
try {
  if (command === 'count') {
    const [{ version } = { version: '' }] =
      await db.prisma.$queryRawUnsafe<{ version: string }[]>('SELECT version() AS version');
    let listed = 0;
    let analyzed = false;
    try {
      const [row] = await db.prisma.$queryRawUnsafe<{ listed: number; analyzed: boolean }[]>(
        `SELECT (SELECT count(*)::int FROM listing_entry) AS listed,
                EXISTS (SELECT 1 FROM pg_stats WHERE schemaname = 'public' AND tablename = 'package') AS analyzed`,
      );
      listed = row?.listed ?? 0;
      analyzed = row?.analyzed ?? false;
    } catch {
      // no tables yet: an empty database
    }
    console.log(JSON.stringify({ listed, analyzed, version }));
  } else {
    await db.prisma.$executeRawUnsafe('VACUUM ANALYZE');
    console.log(JSON.stringify({ analyzed: true }));
  }
} finally {
  await db.close();
}
