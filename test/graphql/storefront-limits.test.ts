// The default operation limits admit the web storefront's own queries with room to spare (docs/security.md, "What
// one request may cost"): each is measured as the limits measure it, with the largest page sizes its variables
// may ask for. A realistic page deeper than the old limit of 7 runs; what the depth and cost limits are there for
// is still refused before it runs: a query 16 or 51 fields deep, and pages within pages.
import { readFileSync } from 'node:fs';
import { Kind, parse } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type App, createApp } from '../../src/app.js';
import { DEFAULT_LIMITS } from '../../src/config.js';
import { measureOperation } from '../../src/graphql/limits.js';
import { schema } from '../../src/graphql/schema.js';
import { createListingTestDatabase, engineName, type TestDatabase } from '../helpers/database.js';
import { graphql } from '../helpers/graphql.js';

const STOREFRONT = new URL('../../examples/storefront/', import.meta.url);

/** Every operation of the storefront: the web page's documents and the typed ones of queries.ts. */
function storefrontDocuments(): { name: string; text: string }[] {
  const web = readFileSync(new URL('web/documents.graphql', STOREFRONT), 'utf8');
  const typed = readFileSync(new URL('queries.ts', STOREFRONT), 'utf8');
  const texts = [web, ...[...typed.matchAll(/graphql\(`([\s\S]*?)`\)/g)].map((match) => match[1] as string)];
  return texts.flatMap((text) =>
    parse(text)
      .definitions.filter((d) => d.kind === Kind.OPERATION_DEFINITION)
      .map((operation) => ({ name: operation.name?.value ?? '(anonymous)', text })),
  );
}

/** The largest values the storefront's variables may take (page sizes at the API's maximum). */
const LARGEST = { limit: 100, first: 100, offset: 0, seed: 1, slug: 'x', facets: true };

const measure = (text: string, name?: string) =>
  measureOperation({ schema, document: parse(text) }, name, LARGEST) as { depth: number; cost: number };

/** One more trip through a photographer's other packages: photographer, packages, edges, node. */
const TRIP = 4;

/** A page of cards, each with its photographer's other packages and their images: 8 fields deep. */
const CARDS_WITH_OTHERS = `{ packages(limit: 24, seed: 1) { results { id title photographer { name
  packages(first: 7) { totalCount edges { node { id title images { id thumbnail } } } } } } } }`;

/** The same at the default sizes (50 cards, 50 packages each) with every image: 25,000 images. */
const EVERY_IMAGE =
  '{ packages { results { photographer { packages { edges { node { images { id image thumbnail } } } } } } } }';

/** `trips` times through photographers' packages below a page, each list asking for `size`: 2 + 4 trips + 1 deep. */
function pagesWithin(trips: number, size: number): string {
  const hop = `photographer { packages(first: ${size}) { edges { node { `;
  return `{ packages(limit: ${size}, seed: 1) { results { ${hop.repeat(trips)}id${' } } } }'.repeat(trips)} } } }`;
}

describe('the default limits and the storefront', () => {
  it.each(storefrontDocuments())('$name is within them with room to spare', ({ name, text }) => {
    const { depth, cost } = measure(text, name);
    expect(depth + TRIP).toBeLessThanOrEqual(DEFAULT_LIMITS.depth);
    expect(cost * 2).toBeLessThanOrEqual(DEFAULT_LIMITS.cost);
  });

  it('measures what docs/security.md says', () => {
    expect(measure(CARDS_WITH_OTHERS).depth).toBe(8);
    expect(measure(CARDS_WITH_OTHERS).cost).toBeLessThan(6000);
    expect(measure(EVERY_IMAGE)).toMatchObject({ depth: 8, cost: 82_651 });
    expect(measure(pagesWithin(3, 1)).depth).toBe(15);
    expect(measure(pagesWithin(3, 2)).cost).toBeLessThan(DEFAULT_LIMITS.cost);
  });
});

describe(`refused or run by the limits, on ${engineName}`, () => {
  let db: TestDatabase;
  let app: App;
  beforeAll(async () => {
    db = await createListingTestDatabase(30);
    app = createApp({ db, settings: { responseCacheBytes: 0 } });
  });
  afterAll(async () => {
    await app.dispose();
    await db.destroy();
  });

  it("a page of cards with their photographers' other packages and images runs (8 deep)", async () => {
    const { status, body } = await graphql(app, CARDS_WITH_OTHERS);
    expect(body.errors).toBeUndefined();
    expect(status).toBe(200);
  });

  it("three trips through photographers' packages run (15 deep); a fourth, or 51 fields, is refused", async () => {
    expect((await graphql(app, pagesWithin(3, 1))).status).toBe(200);
    for (const [trips, depth] of [
      [4, 19],
      [12, 51],
    ] as const) {
      const started = performance.now();
      const { status, body } = await graphql(app, pagesWithin(trips, 1));
      expect(performance.now() - started).toBeLessThan(1000);
      expect(status).toBe(400);
      expect(body.data).toBeUndefined();
      expect(body.errors?.[0]?.message).toBe(`The query is ${depth} fields deep; the limit is 15.`);
    }
  });

  it('pages within pages are refused by their cost before they run', async () => {
    for (const query of [EVERY_IMAGE, pagesWithin(2, 100), pagesWithin(3, 20)]) {
      const started = performance.now();
      const { status, body } = await graphql(app, query);
      expect(performance.now() - started).toBeLessThan(1000);
      expect(status).toBe(400);
      expect(body.errors?.[0]?.extensions).toMatchObject({ code: 'QUERY_LIMIT_EXCEEDED', limit: 'cost' });
    }
  });
});
