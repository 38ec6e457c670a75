// Relay's Global Object Identification: `node(id:)` and `nodes(ids:)` find a listed package or photographer by
// the id it already has, null for anything else; `nodes` is priced per id; and relay-compiler compiles the
// storefront's Relay fragments (examples/storefront/relay), two of them @refetchable, into refetch queries this
// server answers. relay-compiler is an ecosystem tool, installed on first need (test/helpers/ecosystem.ts).
import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../src/app.js';
import { LISTING_VERSION } from '../../src/db/sql.js';
import { SCHEMA_FILE } from '../../src/graphql/schema.js';
import { createListingTestDatabase, engineName, type TestDatabase } from '../helpers/database.js';
import { ecosystemTools } from '../helpers/ecosystem.js';
import { graphql, PRIVATE_KEY, TEST_KEYS } from '../helpers/graphql.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const UNLISTED = '00000000-0000-4000-8000-000000000000';
const EVERY_FIELD = readFileSync(new URL('./documents/generated/full-package.graphql', import.meta.url), 'utf8');

let db: TestDatabase;
let app: ReturnType<typeof createApp>;
let listed: { id: string; title: string; photographer: { id: string; name: string } };

beforeAll(async () => {
  db = await createListingTestDatabase(12);
  app = createApp({ db, settings: { apiKeys: TEST_KEYS, rateLimit: { requests: 0, windowMs: 60_000 } } });
  const page = await graphql<{ packages: { results: (typeof listed)[] } }>(
    app,
    '{ packages(limit: 1, seed: 4) { results { id title photographer { id name } } } }',
  );
  listed = page.body.data?.packages.results[0] as typeof listed;
});
afterAll(async () => {
  await app?.dispose();
  await db?.destroy();
});

const NODE_FIELDS = `__typename id ... on Package { title } ... on Photographer { name }`;

describe(`node and nodes on ${engineName}`, () => {
  it('find a package and a photographer by their ids, and null for an id that names nothing listed', async () => {
    const { body } = await graphql(
      app,
      `query($p: ID!, $f: ID!, $u: ID!) {
        p: node(id: $p) { ${NODE_FIELDS} }
        f: node(id: $f) { ${NODE_FIELDS} }
        u: node(id: $u) { ${NODE_FIELDS} }
        bad: node(id: "not-a-uuid") { id }
      }`,
      { p: listed.id, f: listed.photographer.id, u: UNLISTED },
    );
    expect(body.errors).toBeUndefined();
    expect(body.data).toEqual({
      p: { __typename: 'Package', id: listed.id, title: listed.title },
      f: { __typename: 'Photographer', id: listed.photographer.id, name: listed.photographer.name },
      u: null,
      bad: null,
    });
  });

  it('nodes answers in the order of the ids, in one batched read per type (and the cache its version)', async () => {
    const { result, statements } = await db.statements.record(() =>
      graphql(app, `query($ids: [ID!]!) { nodes(ids: $ids) { ${NODE_FIELDS} } }`, {
        ids: [listed.photographer.id, UNLISTED, listed.id],
      }),
    );
    const { body } = result;
    expect(body.errors).toBeUndefined();
    expect(body.data?.nodes).toEqual([
      { __typename: 'Photographer', id: listed.photographer.id, name: listed.photographer.name },
      null,
      { __typename: 'Package', id: listed.id, title: listed.title },
    ]);
    expect(statements.length).toBeLessThanOrEqual(3);
  });

  it('prices nodes per id, as _entities: 1,000 ids asking for every field are refused before any read', async () => {
    const query = `query($ids: [ID!]!) { nodes(ids: $ids) { ... on Package { ...FullPackage } } }\n${EVERY_FIELD}`;
    const ids = Array.from({ length: 1000 }, () => listed.id);
    const refused = await db.statements.record(() => graphql(app, query, { ids }, { key: PRIVATE_KEY }));
    expect(refused.result.status).toBe(400);
    expect(refused.result.body.errors?.[0]?.extensions).toMatchObject({ code: 'QUERY_LIMIT_EXCEEDED', limit: 'cost' });
    // Only the response cache's read of the listing version, which comes before every request's checks.
    expect(refused.statements.filter((sql) => sql !== LISTING_VERSION.text)).toEqual([]);
    // The private fields among every field: asked with a key that may read them.
    const served = await graphql(app, query, { ids: ids.slice(0, 50) }, { key: PRIVATE_KEY });
    expect(served.status).toBe(200);
    expect(served.body.errors).toBeUndefined();
  });
});

const relay = await ecosystemTools('relay-compiler on the storefront fragments');

describe.skipIf(!relay.available)('relay-compiler on the storefront fragments', () => {
  const work = mkdtempSync(join(tmpdir(), 'relay-'));
  afterAll(() => rmSync(work, { recursive: true, force: true }));

  it('compiles a @refetchable fragment on Package into a refetch query through node, which the server answers', async () => {
    cpSync(join(ROOT, 'examples/storefront/relay'), join(work, 'src'), { recursive: true });
    cpSync(SCHEMA_FILE, join(work, 'schema.graphql'));
    mkdirSync(join(work, '__generated__'));
    const config = {
      src: './src',
      schema: './schema.graphql',
      language: 'typescript',
      artifactDirectory: './__generated__',
    };
    writeFileSync(join(work, 'relay.config.json'), JSON.stringify(config));
    execFileSync(relay.path('.bin/relay-compiler'), { cwd: work, stdio: 'pipe' });

    const artifact = readFileSync(join(work, '__generated__/PackageCardRefetchQuery.graphql.ts'), 'utf8');
    const text = JSON.parse(/"text": ("(?:[^"\\]|\\.)*")/.exec(artifact)?.[1] ?? '""') as string;
    expect(text).toMatch(/node\(id: \$id\)/);
    const { body } = await graphql<{ node: Record<string, unknown> }>(app, text, { id: listed.id });
    expect(body.errors).toBeUndefined();
    expect(body.data?.node).toMatchObject({ __typename: 'Package', id: listed.id, title: listed.title });
  });
});
