// Least-privilege roles on PostgreSQL (docs/operations.md, "Database roles"): deploy/postgres/roles.sql makes an
// owner that migrates and a serving role that reads. The guide's commands are run as written (names of this test's
// own): the script, `npm run db:migrate` as the owner, the server as the serving role with MIGRATE=off, which serves
// v2 and GraphQL and sees what the owner imports meanwhile. The serving role is refused every change of the schema
// and the data, read-only default or not; and a server whose DATABASE_DIRECT_URL is the owner migrates, seeds and
// builds its read model through it at start, its requests read as the serving role alone.
import { print } from 'graphql';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SlimPageDocument } from '../../src/generated/graphql/graphql.js';
import { onPostgres } from '../helpers/database.js';
import { runScript, type ServerProcess, startServer } from '../helpers/server-process.js';
import { operationsBlock, renamed, runBlock } from './doc-commands.js';
import { asAdmin, databaseName, type OpsNames, opsNames, urlAs } from './pg-admin.js';

const ROLES_BLOCK =
  'psql -q "postgresql://postgres@127.0.0.1:5432/listing" -v owner=listing_owner -v serving=listing_serving -f deploy/postgres/roles.sql';

let names: OpsNames;
const databases = { served: '', atStart: '' };
const servers: ServerProcess[] = [];

beforeAll(async () => {
  if (!onPostgres) return;
  names = opsNames('lgw_roles');
  databases.served = databaseName('lgw_roles');
  databases.atStart = databaseName('lgw_roles_start');
  await asAdmin([`CREATE DATABASE ${databases.served}`, `CREATE DATABASE ${databases.atStart}`]);
});
afterAll(async () => {
  await Promise.all(servers.map((server) => server.stop()));
  await names?.drop(Object.values(databases).filter(Boolean));
});

async function graphql(server: ServerProcess, query: string, variables = {}) {
  const response = await fetch(`${server.url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json' },
    body: JSON.stringify({ query, variables }),
  });
  return { status: response.status, body: (await response.json()) as { data?: unknown; errors?: unknown[] } };
}

const v2Count = async (server: ServerProcess) =>
  ((await (await fetch(`${server.url}/v2/local-package-list/?limit=3&seed=4`)).json()) as { count: number }).count;

/** The server's log lines at warn or worse, the request lines aside. */
const complaints = (server: ServerProcess) =>
  server
    .output()
    .split('\n')
    .filter((line) => /"level":"(warn|error|fatal)"/.test(line));

async function until(check: () => Promise<boolean>, what: string): Promise<void> {
  const end = Date.now() + 20_000;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`waited 20 s for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/** Every query a page of either door needs, as the serving role. */
async function servesEverything(server: ServerProcess, count: number): Promise<void> {
  const v2 = await fetch(`${server.url}/v2/local-package-list/?limit=5&seed=11`);
  expect(v2.status).toBe(200);
  expect(((await v2.json()) as { count: number }).count).toBe(count);
  for (const [query, variables] of [
    [print(SlimPageDocument), { limit: 5, seed: 3 }],
    [
      '{ packages(limit: 3, filter: { search: "wedding", currency: "USD", priceMin: "1" }) { count results { id } } }',
      {},
    ],
    ['{ packagesConnection(first: 4, seed: 2) { totalCount edges { node { title photographer { name } } } } }', {}],
    ['{ categories { code name packageCount } }', {}],
  ] as const) {
    const { status, body } = await graphql(server, query, variables);
    expect(body.errors, query).toBeUndefined();
    expect(status).toBe(200);
  }
  expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
}

describe.skipIf(!onPostgres)('database roles', () => {
  it("runs the guide's steps: the roles, migrations as the owner, the instances as the serving role", async () => {
    const block = renamed(operationsBlock(ROLES_BLOCK), names.replacements({ listing: databases.served }));
    // Never the guide's own names on the shared test server.
    expect(block).not.toMatch(/listing_(owner|serving)|5432\/listing\b/);
    const server = await runBlock(block, { RATE_LIMIT: '0', LISTING_WATCH_INTERVAL: '0.2' });
    if (!server) throw new Error('the block starts no server');
    servers.push(server);
    // Migrated and never written: the read model was built by the migration job, not by this start.
    expect(server.output()).not.toContain('building the read model');
    await servesEverything(server, 0);

    // The owner imports (here: seeds) while the instance serves; the instance reads the new listing.
    const seeded = await runScript('src/cli/seed.ts', { DATABASE_URL: urlAs(names.owner, databases.served) }, [
      '--packages',
      '40',
    ]);
    expect(seeded.code, seeded.stderr).toBe(0);
    await until(async () => (await v2Count(server)) === 40, 'the seeded listing');
    await servesEverything(server, 40);
    expect(complaints(server)).toEqual([]);
  });

  it('refuses the serving role every change of the schema and the data, and grants the owner them', async () => {
    const statements = [
      'ALTER TABLE package ADD COLUMN intruder int',
      'CREATE TABLE intruder (a int)',
      'DROP TABLE package CASCADE',
      'CREATE TEMP TABLE intruder (a int)',
      'CREATE INDEX intruder ON package (title)',
      'TRUNCATE listing_version',
      'INSERT INTO listing_version (id, version) VALUES (2, 2)',
      'UPDATE listing_version SET version = 1',
      'DELETE FROM package',
    ];
    const refusals = async (role: string, readWrite: boolean) => {
      const client = new pg.Client({ connectionString: urlAs(role, databases.served) });
      await client.connect();
      const codes: Record<string, string> = {};
      try {
        if (readWrite) await client.query('SET default_transaction_read_only = off');
        for (const statement of statements) {
          await client.query('BEGIN');
          codes[statement] = await client.query(statement).then(
            () => 'done',
            (error: { code?: string }) => error.code ?? '?',
          );
          await client.query('ROLLBACK');
        }
      } finally {
        await client.end();
      }
      return codes;
    };
    const every = (code: string) => Object.fromEntries(statements.map((statement) => [statement, code]));
    // Read-only by default (25006), and without the privilege when it asks otherwise (42501).
    expect(await refusals(names.serving, false)).toEqual(every('25006'));
    expect(await refusals(names.serving, true)).toEqual(every('42501'));
    expect(await refusals(names.owner, false)).toEqual(every('done'));
  });

  it('migrates, seeds and builds the read model at start through a direct URL as the owner; requests read as the serving role', async () => {
    const roles = renamed(
      operationsBlock(ROLES_BLOCK).split('\n')[0] as string,
      names.replacements({ listing: databases.atStart }),
    );
    await runBlock(roles);
    const server = await startServer({
      DATABASE_URL: urlAs(names.serving, databases.atStart),
      DATABASE_DIRECT_URL: urlAs(names.owner, databases.atStart),
      SEED_PACKAGES: '25',
      RATE_LIMIT: '0',
    });
    servers.push(server);
    expect(server.output()).toContain('applied migrations');
    await servesEverything(server, 25);
    const client = new pg.Client({ connectionString: process.env.TEST_DATABASE_URL });
    await client.connect();
    try {
      const { rows } = await client.query<{ usename: string }>(
        'SELECT DISTINCT usename FROM pg_stat_activity WHERE datname = $1',
        [databases.atStart],
      );
      expect(rows.map((row) => row.usename)).toEqual([names.serving]);
    } finally {
      await client.end();
    }
    expect(complaints(server)).toEqual([]);
  });
});
