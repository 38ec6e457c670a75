// DB_STATEMENT_TIMEOUT bounds a request's reads, not a writer's statements: an import or a seed has statements that
// grow with the listing (numbering 1,000,000 packages outlasted the 5 s default, and the import was rolled back
// after 18 minutes). A trigger that makes numbering the listing take 0.4 s stands in for such a statement here,
// with the timeout at its least, 0.1 s. (PostgreSQL only: the setting is PostgreSQL's.)
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generatePackages } from '../../src/demo/generate.js';
import { createPostgresDatabaseUrl, onPostgres } from '../helpers/database.js';
import { runScript } from '../helpers/server-process.js';
import { tempDir, writePages } from './helpers.js';

const SLOW_NUMBERING = `
  CREATE FUNCTION slow_numbering() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN PERFORM pg_sleep(0.4); RETURN NULL; END $$;
  CREATE TRIGGER slow_numbering AFTER INSERT ON listing_entry FOR EACH STATEMENT EXECUTE FUNCTION slow_numbering();
  -- ALWAYS: the seed turns ordinary triggers off (session_replication_role = replica) to skip the foreign keys.
  ALTER TABLE listing_entry ENABLE ALWAYS TRIGGER slow_numbering;`;

describe.runIf(onPostgres)('writers on PostgreSQL with DB_STATEMENT_TIMEOUT=0.1', () => {
  const dir = tempDir();
  let database: { url: string; drop: () => Promise<void> };
  const env = () => ({ DATABASE_URL: database.url, DB_STATEMENT_TIMEOUT: '0.1' });
  const listed = async () => {
    const client = new pg.Client({ connectionString: database.url });
    await client.connect();
    try {
      return (await client.query<{ n: number }>('SELECT count(*)::int AS n FROM listing_entry')).rows[0]?.n;
    } finally {
      await client.end();
    }
  };

  beforeAll(async () => {
    database = await createPostgresDatabaseUrl();
    const client = new pg.Client({ connectionString: database.url });
    await client.connect();
    await client.query(SLOW_NUMBERING);
    await client.end();
  });
  afterAll(async () => {
    await database?.drop();
    dir.remove();
  });

  it('an import numbers the listing past the timeout and commits', async () => {
    const pages = join(dir.path, 'pages');
    mkdirSync(pages);
    writePages(pages, [...generatePackages({ count: 60, seed: 3 })]);
    const run = await runScript('src/cli/import.ts', env(), [pages]);
    expect(run.stderr).not.toMatch(/statement timeout/);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/summary: 60 created/);
    expect(await listed()).toBe(60);
  });

  it('a seed does too', async () => {
    const run = await runScript('src/cli/seed.ts', env(), ['--packages', '40', '--reset']);
    expect(run.stderr).not.toMatch(/statement timeout/);
    expect(run.code, run.stderr).toBe(0);
    expect(await listed()).toBe(40);
  });
});
