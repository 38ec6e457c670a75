// Instances starting together on one empty PostgreSQL database: they take turns migrating under an advisory lock,
// all of them come up, and none writes demo data unless told to. MIGRATE=off refuses a database that is behind.
// PostgreSQL only (TEST_DATABASE_URL): the embedded database has one instance by construction.
import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { createPostgresDatabaseUrl, onPostgres } from '../helpers/database.js';
import { runScript, type ServerProcess, startServer } from '../helpers/server-process.js';

const cleanup: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step();
});

async function packageCount(url: string): Promise<number> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<{ n: number }>('SELECT count(*)::int AS n FROM package')).rows[0]?.n ?? -1;
  } finally {
    await client.end();
  }
}

async function fresh(): Promise<string> {
  const database = await createPostgresDatabaseUrl({ empty: true });
  cleanup.push(database.drop);
  return database.url;
}

async function startAll(count: number, env: Record<string, string>): Promise<ServerProcess[]> {
  const servers = await Promise.all(Array.from({ length: count }, () => startServer({ RATE_LIMIT: '0', ...env })));
  cleanup.push(() => Promise.all(servers.map((server) => server.stop('SIGTERM'))));
  return servers;
}

describe.runIf(onPostgres)('several instances starting together on PostgreSQL', () => {
  it('three instances on an empty database all serve, migrated once, with no demo data', async () => {
    const url = await fresh();
    const servers = await startAll(3, { DATABASE_URL: url });
    for (const server of servers) {
      expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
      const page = (await (await fetch(`${server.url}/v2/local-package-list/`)).json()) as { count: number };
      expect(page.count).toBe(0);
    }
    const applied = servers.filter((server) => server.output().includes('applied migrations')).length;
    expect(applied).toBe(1);
    expect(await packageCount(url)).toBe(0);
  });

  it('with SEED_PACKAGES set, the demo data is written once, however many start', async () => {
    const url = await fresh();
    const servers = await startAll(2, { DATABASE_URL: url, SEED_PACKAGES: '40' });
    expect(await packageCount(url)).toBe(40);
    expect(servers.filter((server) => server.output().includes('loaded 40 demo packages'))).toHaveLength(1);
  });

  it('db:seed right after instances started on an empty database runs at once (no lock left behind)', async () => {
    const url = await fresh();
    const servers = await startAll(2, { DATABASE_URL: url });
    // The one still running is the one that migrated.
    await servers.find((server) => !server.output().includes('applied migrations'))?.stop('SIGTERM');
    const started = performance.now();
    const seeded = await runScript('src/cli/seed.ts', { DATABASE_URL: url }, ['--packages', '50']);
    expect(seeded.code, seeded.stderr).toBe(0);
    // The schema engine's advisory lock used to stay held by an idle pooled connection of the instance that
    // migrated, until DB_IDLE_TIMEOUT closed it: the seed waited on it and failed after ~20-30 s.
    expect(performance.now() - started).toBeLessThan(10_000);
    expect(await packageCount(url)).toBe(50);
  });

  it('MIGRATE=off refuses a database that is behind, in one line, and writes nothing', async () => {
    const url = await fresh();
    const refused = await runScript('src/server.ts', { DATABASE_URL: url, MIGRATE: 'off', LOG_LEVEL: 'warn' });
    expect(refused.code).toBe(1);
    const line = JSON.parse(refused.stdout.trim()) as { level: string; msg: string };
    expect(line).toMatchObject({ level: 'fatal' });
    expect(line.msg).toMatch(
      /^the database is behind by \d+ migrations? \(\d+_init(, \d+_\w+)*\) and MIGRATE=off: run npm run db:migrate first$/,
    );
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    const tables = await client.query("SELECT count(*)::int AS n FROM pg_tables WHERE schemaname = 'public'");
    await client.end();
    expect(tables.rows[0]?.n).toBe(0);
  });
});
