// A package's photographer asked for with every field is answered from the read model's prepared text
// (src/graphql/prepared-photographers.ts): the answer must be graphql-js's own, byte for byte, on every page of a
// listing with the edge-case packages, and a document that does not select exactly every field is resolved as
// before.
import { readFileSync } from 'node:fs';
import { type DocumentNode, parse, print } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../src/app.js';
import { withPreparedPhotographer } from '../../src/graphql/prepared-photographers.js';
import { schema } from '../../src/graphql/schema.js';
import { createListingTestDatabase, engineName, type TestDatabase } from '../helpers/database.js';
import { PRIVATE_KEY, TEST_KEYS } from '../helpers/graphql.js';

const documents = new URL('./documents/', import.meta.url);
const FULL_PAGE = `${readFileSync(new URL('full-page.graphql', documents), 'utf8')}${readFileSync(
  new URL('generated/full-package.graphql', documents),
  'utf8',
)}`;
/** The same selection, which a directive keeps from the prepared text: resolved field by field. */
const FIELD_BY_FIELD = FULL_PAGE.replace('  photographer {', '  photographer @include(if: true) {');

let db: TestDatabase;
let app: ReturnType<typeof createApp>;

beforeAll(async () => {
  db = await createListingTestDatabase(300);
  app = createApp({ db, settings: { apiKeys: TEST_KEYS, responseCacheBytes: 0 } });
});

afterAll(async () => {
  await app?.dispose();
  await db?.close();
});

async function answer(query: string, variables: Record<string, unknown>, key?: string, accept = 'application/json') {
  const response = await app.fetch('http://localhost/graphql', {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept,
      ...(key ? { authorization: `Bearer ${key}` } : {}),
    },
    body: JSON.stringify({ query, variables }),
  });
  return { status: response.status, text: await response.text() };
}

const marked = (document: DocumentNode) => withPreparedPhotographer(schema, document) !== document;

describe(`prepared photographers (${engineName})`, () => {
  it.each([
    ['without', undefined],
    ['with', PRIVATE_KEY],
  ])(
    'answers every page with every field byte for byte as field-by-field resolution does, %s the private scope',
    async (_with, key) => {
      const first = JSON.parse((await answer(FULL_PAGE, { limit: 1, seed: 3 }, key)).text);
      const count: number = first.data.packages.count;
      expect(count).toBeGreaterThan(300);
      for (let offset = 0; offset < count; offset += 100) {
        const variables = { limit: 100, offset, seed: 3 };
        const { result: prepared, statements } = await db.statements.record(() => answer(FULL_PAGE, variables, key));
        const resolved = await answer(FIELD_BY_FIELD, variables, key);
        expect(prepared.status).toBe(200);
        // One statement: the photographers' prepared texts come with the page.
        expect(statements).toHaveLength(1);
        expect(statements[0]).toContain('photographer_document');
        expect(prepared.text).toBe(resolved.text);
      }
    },
  );

  it('reports the private fields withheld, as the resolvers do', async () => {
    const { text } = await answer(FULL_PAGE, { limit: 2, seed: 1 });
    const body = JSON.parse(text);
    expect(body.errors).toHaveLength(1);
    expect(body.errors[0].extensions.fields).toEqual(
      expect.arrayContaining(['Photographer.crmOrganizationId', 'Photographer.paymentsUserId', 'Photographer.phone']),
    );
    expect(body.data.packages.results[0].photographer.phone).toBeNull();
  });

  it('gives a caller with the private scope the private fields', async () => {
    const { text } = await answer(FULL_PAGE, { limit: 20, seed: 1 }, PRIVATE_KEY);
    const body = JSON.parse(text);
    expect(body.errors).toBeUndefined();
    const photographers = body.data.packages.results.map((p: { photographer: object }) => p.photographer);
    expect(photographers.some((p: { paymentsUserId: unknown }) => typeof p.paymentsUserId === 'string')).toBe(true);
  });

  it.each(['text/event-stream', 'multipart/mixed'])(
    'writes the prepared text into an answer sent as %s',
    async (accept) => {
      const variables = { limit: 3, seed: 5 };
      const { status, text } = await answer(FULL_PAGE, variables, undefined, accept);
      expect(status).toBe(200);
      expect(text).not.toMatch(/prepared-|__preparedPhotographer/);
      // The answer's JSON, as the same request asked as application/json gives it.
      const json = (await answer(FIELD_BY_FIELD, variables)).text;
      expect(text).toContain(json);
    },
  );

  it('marks only a document whose one package photographer selects exactly every field', () => {
    const full = parse(FULL_PAGE);
    expect(marked(full)).toBe(true);
    // Another selection of the photographer could merge with it.
    expect(
      marked(parse(FULL_PAGE.replace('  photographerEmail\n', '  photographerEmail\n  photographer { id }\n'))),
    ).toBe(false);
    expect(marked(parse(FULL_PAGE.replace('  photographer {', '  boss: photographer {')))).toBe(false);
    expect(marked(parse(FIELD_BY_FIELD))).toBe(false);
    // A field left out, a field moved, an alias or a directive below it.
    expect(marked(parse(FULL_PAGE.replace('    taxRate\n', '')))).toBe(false);
    expect(
      marked(
        parse(
          FULL_PAGE.replace('    activeSubscriptionName\n', '').replace(
            '    taxRate\n',
            '    taxRate\n    activeSubscriptionName\n',
          ),
        ),
      ),
    ).toBe(false);
    expect(marked(parse(FULL_PAGE.replace('    taxRate\n', '    taxRate: taxRate\n')))).toBe(true);
    expect(marked(parse(FULL_PAGE.replace('    taxRate\n', '    tax: taxRate\n')))).toBe(false);
    expect(marked(parse(FULL_PAGE.replace('    taxRate\n', '    taxRate @skip(if: false)\n')))).toBe(false);
    // The marker is the module's own: a client's field of that alias is not one.
    const rewritten = print(withPreparedPhotographer(schema, full));
    expect(rewritten).toMatch(/photographer \{\s+__preparedPhotographer: id\s+\}/);
    expect(marked(parse(rewritten))).toBe(false);
  });

  it("answers a client's own marker alias as the id it is", async () => {
    const { text } = await answer(
      '{ packages(limit: 1, seed: 1) { results { photographer { __preparedPhotographer: id } } } }',
      {},
    );
    const photographer = JSON.parse(text).data.packages.results[0].photographer;
    expect(Object.keys(photographer)).toEqual(['__preparedPhotographer']);
    expect(photographer.__preparedPhotographer).toMatch(/^[0-9a-f-]{36}$/);
  });
});
