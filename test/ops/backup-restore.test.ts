// Backup and restore (docs/operations.md, "Backup and restore"), the guide's commands run as written with names of
// this test's own. PostgreSQL: a served database is dumped with pg_dump (custom format) while it serves, restored
// with pg_restore into a new database, and a server on it answers v2 pages and GraphQL byte for byte as the
// original, headers included: pages of several seeds and offsets, a first page without a seed (the seed pool is
// drawn from the listing version), every field, filters and connections. The listing version, its history and the
// read model come through as they were, and the restored server builds nothing at start. The embedded database:
// the stopped server's data directory archived with tar, unpacked into a new directory, and served the same way.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { print } from 'graphql';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { newApiKey } from '../../src/api-keys.js';
import { FullPageDocument, SlimPageDocument } from '../../src/generated/graphql/graphql.js';
import { onPostgres } from '../helpers/database.js';
import { runScript, type ServerProcess, startServer } from '../helpers/server-process.js';
import { copyOfTemplate } from '../helpers/templates.js';
import { operationsBlock, renamed, runBlock } from './doc-commands.js';
import { asAdmin, databaseName, type OpsNames, opsNames, urlAs } from './pg-admin.js';

/** A key that reads the private fields: every field of a page is compared. */
const KEY = newApiKey();
/** What both servers are given alike: the links' address, one pooled seed (a page without a seed is one answer). */
const ALIKE = {
  PUBLIC_URL: 'https://listing.example.com',
  SEED_POOL: '1',
  RATE_LIMIT: '0',
  API_KEYS: `backup:private:${KEY.hash}`,
};
const PACKAGES = 240;

const V2_PAGES = [
  'limit=5&seed=1',
  'limit=5&offset=5&seed=1',
  'limit=20&seed=42',
  'seed=7',
  'limit=10',
  `limit=3&offset=${PACKAGES - 2}&seed=5`,
  'limit=4&seed=3&category=2',
];
const GRAPHQL: [string, Record<string, unknown>][] = [
  [print(FullPageDocument), { limit: 10, seed: 3 }],
  [print(SlimPageDocument), { limit: 50, offset: 50, seed: 99 }],
  ['{ packages(limit: 5) { seed count results { id urlSlug title } } }', {}],
  [
    '{ packages(limit: 5, filter: { search: "wedding", currency: "USD", priceMax: "2000" }) { count results { id price } } }',
    {},
  ],
  ['{ packagesConnection(first: 6, seed: 4) { totalCount pageInfo { endCursor } edges { node { title } } } }', {}],
  ['{ categories { code name packageCount } }', {}],
];
/** Headers that differ between any two answers of one server. */
const PER_ANSWER = new Set(['date', 'x-request-id', 'connection', 'keep-alive']);

interface Answer {
  request: string;
  status: number;
  headers: Record<string, string>;
  body: string;
}

async function answer(request: string, response: Response): Promise<Answer> {
  const headers = Object.fromEntries([...response.headers].filter(([name]) => !PER_ANSWER.has(name)));
  return { request, status: response.status, headers, body: await response.text() };
}

/** The same requests, in the same order, of a server. */
async function answersOf(server: ServerProcess): Promise<Answer[]> {
  const answers: Answer[] = [];
  for (const query of V2_PAGES) {
    answers.push(await answer(query, await fetch(`${server.url}/v2/local-package-list/?${query}`)));
  }
  for (const [query, variables] of GRAPHQL) {
    const response = await fetch(`${server.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json', authorization: `Bearer ${KEY.key}` },
      body: JSON.stringify({ query, variables }),
    });
    answers.push(await answer(query.slice(0, 60), response));
  }
  return answers;
}

function expectAlike(restored: Answer[], original: Answer[]): void {
  expect(restored.map((a) => a.request)).toEqual(original.map((a) => a.request));
  for (const [i, one] of original.entries()) {
    const again = restored[i] as Answer;
    expect([one.status, one.body.includes('"errors"')], one.request).toEqual([200, false]);
    expect(again.headers, one.request).toEqual(one.headers);
    // Byte for byte; where not, the first place they part (the whole of a page would drown the report).
    let at = 0;
    while (at < one.body.length && one.body[at] === again.body[at]) at++;
    expect(again.body === one.body ? 'same' : again.body.slice(Math.max(0, at - 80), at + 80), one.request).toBe(
      'same',
    );
  }
  // The answers say something: each differs from the others.
  expect(new Set(original.map((a) => a.body)).size).toBe(original.length);
}

const servers: ServerProcess[] = [];
const work = mkdtempSync(join(tmpdir(), 'listing-backup-'));
let names: OpsNames | undefined;
const databases: string[] = [];
afterAll(async () => {
  await Promise.all(servers.map((server) => server.stop()));
  await names?.drop(databases);
  rmSync(work, { recursive: true, force: true });
});

describe.skipIf(!onPostgres)('backup and restore on PostgreSQL', () => {
  it('a dump of a served database, restored into a new one, serves the same answers byte for byte', async () => {
    names = opsNames('lgw_backup');
    const served = databaseName('lgw_backup');
    const restored = databaseName('lgw_restored');
    databases.push(served, restored);
    await asAdmin([`CREATE DATABASE ${served}`]);
    // The database as "Database roles" sets it up, written by the owner (two versions, so it has a history).
    const roles = operationsBlock('psql -q "postgresql://postgres@127.0.0.1:5432/listing" -v').split('\n')[0] as string;
    await runBlock(renamed(roles, names.replacements({ listing: served })));
    const owner = { DATABASE_URL: urlAs(names.owner, served) };
    for (const args of [
      ['--packages', '30'],
      ['--packages', String(PACKAGES), '--reset'],
    ]) {
      const seeded = await runScript('src/cli/seed.ts', owner, args);
      expect(seeded.code, seeded.stderr).toBe(0);
    }
    const original = await startServer({ DATABASE_URL: urlAs(names.serving, served), MIGRATE: 'off', ...ALIKE });
    servers.push(original);
    const before = await answersOf(original);

    const block = renamed(
      operationsBlock('pg_dump --format=custom'),
      names.replacements(
        { listing_restored: restored, listing: served },
        { 'listing.dump': join(work, 'listing.dump') },
      ),
    );
    expect(block).not.toMatch(/listing_(owner|serving|restored)|5432\/listing\b| listing\.dump/);
    const server = await runBlock(block, ALIKE);
    if (!server) throw new Error('the block starts no server');
    servers.push(server);
    expect(server.output()).not.toContain('building the read model');
    expectAlike(await answersOf(server), before);
    expect(await recorded(served)).toEqual(await recorded(restored));
  });
});

/** The listing version, its history and the read model's state, as a database records them. */
async function recorded(database: string): Promise<unknown[]> {
  const client = new pg.Client({ connectionString: urlAs(names?.owner as string, database) });
  await client.connect();
  try {
    const rows = async (sql: string) => (await client.query(sql)).rows;
    const state = [
      await rows('SELECT version::text FROM listing_version'),
      await rows('SELECT seq::text, version::text, committed_at FROM listing_version_history ORDER BY seq'),
      await rows('SELECT listing_version::text, format FROM read_model_state'),
      await rows("SELECT nextval('listing_version_history_seq_seq')::text AS next"),
    ];
    expect((state[1] as unknown[]).length).toBeGreaterThan(1);
    return state;
  } finally {
    await client.end();
  }
}

describe.skipIf(onPostgres)('backup and restore of the embedded database', () => {
  it("the stopped server's data directory, archived and unpacked into a new one, serves the same answers", async () => {
    const dataDir = copyOfTemplate();
    const original = await startServer({ DATA_DIR: dataDir, SEED_PACKAGES: String(PACKAGES), ...ALIKE });
    const before = await answersOf(original);
    expect(await original.stop()).toBe(0);

    const block = renamed(operationsBlock('tar -C data -czf'), {
      'tar -C data -czf': `tar -C ${dataDir} -czf`,
      'listing-data.tar.gz': join(work, 'listing-data.tar.gz'),
      'data-restored': join(work, 'data-restored'),
    });
    const server = await runBlock(block, ALIKE);
    if (!server) throw new Error('the block starts no server');
    servers.push(server);
    expect(server.output()).toContain(`embedded PGlite in ${join(work, 'data-restored')}`);
    expect(server.output()).not.toContain('building the read model');
    expectAlike(await answersOf(server), before);
    rmSync(dataDir, { recursive: true, force: true });
  });
});
