// The gateway as an Apollo Federation 2 subgraph, asked as a router asks: `_service { sdl }`, and `_entities`
// with representations of packages and photographers. References are batched like a page's records, priced like
// a page's items, and private fields stay withheld without the private scope.
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../src/app.js';
import { createListingTestDatabase, type TestDatabase } from '../helpers/database.js';
import { graphql, PRIVATE_KEY, TEST_KEYS } from '../helpers/graphql.js';

const EVERY_FIELD = readFileSync(new URL('./documents/generated/full-package.graphql', import.meta.url), 'utf8');

let db: TestDatabase;
let app: ReturnType<typeof createApp>;
let ids: { package: string; photographer: string }[];

beforeAll(async () => {
  db = await createListingTestDatabase(80);
  app = createApp({
    db,
    settings: { apiKeys: TEST_KEYS, responseCacheBytes: 0, rateLimit: { requests: 0, windowMs: 60_000 } },
  });
  const page = await graphql<{ packages: { results: { id: string; photographer: { id: string } }[] } }>(
    app,
    '{ packages(limit: 50, seed: 3) { results { id photographer { id } } } }',
  );
  ids = (page.body.data?.packages.results ?? []).map((p) => ({ package: p.id, photographer: p.photographer.id }));
});
afterAll(() => db?.destroy());

const ENTITIES = `query($representations: [_Any!]!) {
  _entities(representations: $representations) {
    __typename
    ... on Package { id title price photographer { name } images { id } }
    ... on Photographer { id name }
  }
}`;

type Entity = { __typename: string; id: string; title?: string; photographer?: { name: string }; name?: string };

describe('the federation subgraph', () => {
  it('gives its subgraph schema, with Package and Photographer keyed by id', async () => {
    const { body } = await graphql<{ _service: { sdl: string } }>(app, '{ _service { sdl } }');
    const sdl = body.data?._service.sdl ?? '';
    expect(sdl).toContain('@link(url: "https://specs.apollo.dev/federation/v2.6", import: ["@key"])');
    expect(sdl).toMatch(/type Package implements Node\s+@key\(fields: "id"\)/);
    expect(sdl).toMatch(/type Photographer implements Node\s+@key\(fields: "id"\)/);
  });

  it('keeps its schema to itself when introspection is off: _service refused, _entities still served', async () => {
    const hidden = createApp({ db, settings: { introspection: false, responseCacheBytes: 0 } });
    const sdl = await graphql(hidden, '{ _service { sdl } }');
    expect(sdl.status).toBe(400);
    expect(sdl.body.errors?.[0]?.message).toContain('introspection is off');
    const representations = [{ __typename: 'Package', id: ids[0]?.package }];
    const entities = await graphql<{ _entities: Entity[] }>(hidden, ENTITIES, { representations });
    expect(entities.body.data?._entities[0]?.id).toBe(ids[0]?.package);
  });

  it('resolves 50 package references with photographer and images in at most 6 statements, in order', async () => {
    expect(ids).toHaveLength(50);
    const representations = ids.map((id) => ({ __typename: 'Package', id: id.package }));
    const { result, statements } = await db.statements.record(() =>
      graphql<{ _entities: Entity[] }>(app, ENTITIES, { representations }),
    );
    expect(result.body.errors).toBeUndefined();
    const entities = result.body.data?._entities ?? [];
    expect(entities.map((e) => e.id)).toEqual(ids.map((id) => id.package));
    for (const entity of entities) expect(entity.photographer?.name).toEqual(expect.any(String));
    expect(statements.length).toBeLessThanOrEqual(6);
  });

  it('answers null for a reference to nothing listed, or an id that is not a UUID, beside the ones it has', async () => {
    const representations = [
      { __typename: 'Photographer', id: ids[0]?.photographer },
      { __typename: 'Package', id: '00000000-0000-4000-8000-000000000000' },
      { __typename: 'Package', id: 'not-a-uuid' },
      { __typename: 'Package', id: ids[1]?.package.toUpperCase() },
    ];
    const { body } = await graphql<{ _entities: (Entity | null)[] }>(app, ENTITIES, { representations });
    expect(body.errors).toBeUndefined();
    const [photographer, none, invalid, upper] = body.data?._entities ?? [];
    expect(photographer).toMatchObject({ __typename: 'Photographer', id: ids[0]?.photographer });
    expect([none, invalid]).toEqual([null, null]);
    expect(upper).toMatchObject({ __typename: 'Package', id: ids[1]?.package });
  });

  it('refuses with 400 a representation that names no entity of ours, before any SQL', async () => {
    for (const [representations, message] of [
      [[{ __typename: 'Nope', id: 'x' }], 'representations[0].__typename must be one of Package, Photographer'],
      [[{ __typename: 'Package', id: ids[0]?.package }, 5], 'representations[1] must be an object'],
      [['Package'], 'representations[0] must be an object'],
    ] as const) {
      const { result, statements } = await db.statements.record(() => graphql(app, ENTITIES, { representations }));
      expect(result.status).toBe(400);
      expect(result.body.errors?.[0]).toMatchObject({ extensions: { code: 'BAD_USER_INPUT' } });
      expect(result.body.errors?.[0]?.message).toContain(message);
      expect(statements).toEqual([]);
    }
  });

  it('prices each representation as a page item: 1,000 asking for every field are refused before any SQL', async () => {
    const query = `query($representations: [_Any!]!) { _entities(representations: $representations) { ... on Package { ...FullPackage } } }\n${EVERY_FIELD}`;
    const many = Array.from({ length: 1000 }, (_, i) => ({ __typename: 'Package', id: ids[i % 50]?.package }));
    const refused = await db.statements.record(() =>
      graphql(app, query, { representations: many }, { key: PRIVATE_KEY }),
    );
    expect(refused.result.status).toBeGreaterThanOrEqual(400);
    expect(refused.result.status).toBeLessThan(500);
    expect(refused.result.body.errors?.[0]?.extensions).toMatchObject({ code: 'QUERY_LIMIT_EXCEEDED', limit: 'cost' });
    expect(refused.statements).toEqual([]);
    const fifty = many.slice(0, 50);
    const served = await graphql(app, query, { representations: fifty }, { key: PRIVATE_KEY });
    expect(served.status).toBe(200);
    expect(served.body.errors).toBeUndefined();
  });

  it('withholds private fields without the private scope', async () => {
    const query = `query($r: [_Any!]!) { _entities(representations: $r) { ... on Package { id photographerEmail } } }`;
    const r = [{ __typename: 'Package', id: ids[0]?.package }];
    const anonymous = await graphql<{ _entities: { photographerEmail: string | null }[] }>(app, query, { r });
    expect(anonymous.body.data?._entities[0]?.photographerEmail).toBeNull();
    const allowed = await graphql<{ _entities: { photographerEmail: string | null }[] }>(
      app,
      query,
      { r },
      { key: PRIVATE_KEY },
    );
    expect(allowed.body.data?._entities[0]?.photographerEmail).toEqual(expect.any(String));
  });
});
