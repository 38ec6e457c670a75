// GET /v2/local-package-list/ on the app itself: headers, methods, the legacy record bytes for edge data,
// and the same records in the same order as the GraphQL packages query.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../src/app.js';
import { SlimPageDocument } from '../../src/generated/graphql/graphql.js';
import { renderJson } from '../../src/rest/render.js';
import type { V2Page } from '../../src/v2/records.js';
import { edgePackages } from '../fixtures/edge-records.js';
import {
  createListingTestDatabase,
  createTestDatabase,
  engineName,
  failingReads,
  readingThrough,
  type TestDatabase,
} from '../helpers/database.js';
import { graphql } from '../helpers/graphql.js';

let db: TestDatabase;
let app: ReturnType<typeof createApp>;
const ORIGIN = 'http://gateway.test';
const PATH = '/v2/local-package-list/';

beforeAll(async () => {
  db = await createListingTestDatabase(120);
  app = createApp({ db });
});
afterAll(() => db?.destroy());

async function get(query: string, init: RequestInit = {}) {
  const response = await app.fetch(`${ORIGIN}${PATH}${query}`, init);
  const text = await response.text();
  return { response, text };
}

async function walk(seed: number): Promise<V2Page['results']> {
  const records: V2Page['results'] = [];
  let url: string | null = `${ORIGIN}${PATH}?format=api&limit=100&seed=${seed}`;
  while (url) {
    const page = JSON.parse(await (await app.fetch(url)).text()) as V2Page;
    records.push(...page.results);
    url = page.next;
  }
  return records;
}

function expectV2Headers(response: Response) {
  expect(response.headers.get('content-type')).toBe('application/json');
  expect(response.headers.get('vary')).toBe('Accept, Accept-Encoding');
  expect(response.headers.get('allow')).toBe('GET, HEAD, OPTIONS');
}

describe(`the v2 listing endpoint on ${engineName}`, () => {
  it('renders each edge record byte for byte as the legacy service did', async () => {
    const records = await walk(4);
    for (const edge of edgePackages.filter((p) => p.status === 1)) {
      const served = records.find((r) => r.identifier === edge.identifier);
      expect(served, edge.identifier).toBeDefined();
      expect(renderJson(served)).toBe(renderJson(edge));
    }
    expect(records.find((r) => r.identifier === edgePackages.find((p) => p.status !== 1)?.identifier)).toBeUndefined();
  });

  it('writes the page in DRF form: compact, keys in spec order, U+2028 escaped', async () => {
    const { response, text } = await get('?format=api&limit=100&seed=4');
    expect(response.status).toBe(200);
    expectV2Headers(response);
    expect(text).toBe(renderJson(JSON.parse(text)));
    expect(text.startsWith('{"count":')).toBe(true);
    const all = await Promise.all([0, 100].map((offset) => get(`?limit=100&offset=${offset}&seed=4`)));
    expect(all.some(({ text: t }) => t.includes('\\u2028'))).toBe(true);
    expect(all.every(({ text: t }) => !t.includes('\u2028'))).toBe(true);
  });

  it('gives the same records in the same order as the GraphQL packages query for a seed', async () => {
    const rest = (await walk(21)).map((r) => r.identifier);
    const viaGraphQL: string[] = [];
    for (let offset = 0; offset < rest.length; offset += 100) {
      const { body } = await graphql(app, SlimPageDocument, { limit: 100, offset, seed: 21 });
      viaGraphQL.push(...(body.data?.packages.results.map((p) => p.id) ?? []));
    }
    expect(rest).toEqual(viaGraphQL);
    expect(rest).toHaveLength(120 + edgePackages.filter((p) => p.status === 1).length);
  });

  it('without a seed, picks one and carries it in the links so the next page keeps the order', async () => {
    const first = JSON.parse((await get('?format=api')).text) as V2Page;
    const seed = new URL(first.next as string).searchParams.get('seed');
    expect(seed).toMatch(/^\d+$/);
    const replay = JSON.parse((await get(`?format=api&seed=${seed}`)).text) as V2Page;
    expect(replay.results.map((r) => r.identifier)).toEqual(first.results.map((r) => r.identifier));
  });

  it('builds links on the request origin in-process, with limit and offset moved', async () => {
    const page = JSON.parse((await get('?format=api&limit=10&offset=20&seed=3')).text) as V2Page;
    expect(page.next).toBe(`${ORIGIN}${PATH}?format=api&limit=10&offset=30&seed=3`);
    expect(page.previous).toBe(`${ORIGIN}${PATH}?format=api&limit=10&offset=10&seed=3`);
  });

  it('answers HEAD as GET without a body', async () => {
    const { response, text } = await get('?seed=1', { method: 'HEAD' });
    expect(response.status).toBe(200);
    expectV2Headers(response);
    expect(text).toBe('');
  });

  it('answers OPTIONS with DRF metadata', async () => {
    const { response, text } = await get('', { method: 'OPTIONS' });
    expect(response.status).toBe(200);
    expectV2Headers(response);
    expect(text).toBe(
      '{"name":"Local Package List","description":"","renders":["application/json"],"parses":["application/json"]}',
    );
  });

  it.each(['POST', 'PUT', 'PATCH', 'DELETE'])('refuses %s with 405 and DRF detail', async (method) => {
    const { response, text } = await get('', { method, body: method === 'DELETE' ? undefined : '{}' });
    expect(response.status).toBe(405);
    expectV2Headers(response);
    expect(text).toBe(`{"detail":"Method \\"${method}\\" not allowed."}`);
  });

  it('refuses a bad seed with 400 and an unknown format with 404, with the v2 headers', async () => {
    const bad = await get('?seed=abc');
    expect(bad.response.status).toBe(400);
    expectV2Headers(bad.response);
    expect(JSON.parse(bad.text)).toEqual({
      detail: 'Invalid seed "abc": expected an integer from -2147483648 to 2147483647.',
    });
    const unknown = await get('?format=xml');
    expect(unknown.response.status).toBe(404);
    expect(unknown.text).toBe('{"detail":"Not found."}');
  });

  it('redirects the path without its trailing slash, as Django does: empty HTML, the query as received', async () => {
    const response = await app.fetch(`${ORIGIN}/v2/local-package-list?limit=3&b=%7e&a`, { redirect: 'manual' });
    expect(response.status).toBe(301);
    expect(response.headers.get('location')).toBe(`${PATH}?limit=3&b=%7e&a`);
    expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(await response.text()).toBe('');
  });

  it('negotiates before the method: a bad format is 404 and an Accept without JSON 406, for every method', async () => {
    for (const method of ['GET', 'OPTIONS', 'POST', 'DELETE']) {
      const badFormat = await get('?format=xml', { method });
      expect(badFormat.response.status, method).toBe(404);
      expect(badFormat.text).toBe('{"detail":"Not found."}');
      const html = await get('?limit=1', { method, headers: { accept: 'text/html' } });
      expect(html.response.status, method).toBe(406);
      expectV2Headers(html.response);
      expect(html.text).toBe('{"detail":"Could not satisfy the request Accept header."}');
    }
    expect((await get('?format=&limit=1&seed=2')).response.status).toBe(200);
  });

  it('indents the page as DRF does for Accept: application/json; indent=N', async () => {
    const compact = JSON.parse((await get('?limit=2&seed=5')).text);
    const indented = await get('?limit=2&seed=5', { headers: { accept: 'application/json; indent=2' } });
    expect(indented.response.status).toBe(200);
    expect(indented.response.headers.get('content-type')).toBe('application/json');
    expect(indented.text).toBe(JSON.stringify(compact, null, 2));
    expect(indented.text.startsWith('{\n  "count": ')).toBe(true);
  });

  it('carries an offset of any size back in the links, unclamped', async () => {
    const { response, text } = await get(`?limit=10&seed=1&offset=1${'0'.repeat(30)}`);
    expect(response.status).toBe(200);
    const page = JSON.parse(text) as V2Page;
    expect(page.results).toEqual([]);
    expect(page.next).toBeNull();
    expect(page.previous).toBe(`${ORIGIN}${PATH}?limit=10&offset=${'9'.repeat(29)}0&seed=1`);
  });

  it('answers 503 with Retry-After, in DRF words, when the database is gone', async () => {
    const broken = await createTestDatabase();
    const brokenApp = createApp({ db: broken });
    await broken.destroy();
    const response = await brokenApp.fetch(`${ORIGIN}${PATH}?seed=1`);
    expect(response.status).toBe(503);
    expectV2Headers(response);
    expect(response.headers.get('retry-after')).toBe('5');
    expect(await response.text()).toBe('{"detail":"Service temporarily unavailable."}');
  });

  it('hides internals on an unexpected failure: 500 with a generic detail', async () => {
    const buggy = createApp({
      db: readingThrough(
        db,
        failingReads(new TypeError('cannot read x of undefined at /srv/app/src/listing/store.ts:12')),
      ),
    });
    const response = await buggy.fetch(`${ORIGIN}${PATH}?seed=1`);
    expect(response.status).toBe(500);
    expectV2Headers(response);
    expect(await response.text()).toBe('{"detail":"A server error occurred."}');
  });
});
