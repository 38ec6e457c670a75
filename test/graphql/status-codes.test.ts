// The HTTP status of a GraphQL answer, as GraphQL over HTTP says it, for both media types a client may accept and
// the same at the Node edge and in yoga: an answer whose `data` holds something is a 200 whatever its field errors
// say (a client reads the fields it got and the errors beside them); one that answered no root field has `data`
// null and its errors' status (400 for a bad argument, 503 with Retry-After while the database is away); a
// request error (parse, validation, variables, limits, a mutation) is a 4xx without `data`.
import { beforeAll, describe, expect, it } from 'vitest';
import type { AppSettings } from '../../src/app.js';
import { DatabaseUnavailableError } from '../../src/db/faults.js';
import { engineName, failingReads, readingThrough } from '../helpers/database.js';
import { type Ask, same } from '../helpers/edge-compare.js';
import { edgeAndApp } from '../helpers/edge-pair.js';
import { serveApp } from '../helpers/http-server.js';

const { db, pair } = edgeAndApp({ count: 20, seed: 53, publicUrl: 'http://listing.example' });
const ACCEPTS = ['application/json', 'application/graphql-response+json'];
const UNKNOWN_ID = '3f2504e0-4f89-41d3-9a0c-0305e82c3301';

interface Body {
  data?: Record<string, unknown> | null;
  errors?: { message: string; path?: (string | number)[]; extensions?: { code?: string } }[];
}

const post = (query: string, accept: string, variables: object = {}): Ask => {
  const body = JSON.stringify({ query, variables });
  return {
    body,
    headers: { 'content-type': 'application/json', accept, 'content-length': String(Buffer.byteLength(body)) },
  };
};

let both: Awaited<ReturnType<typeof pair>>;
let slug: string;
beforeAll(async () => {
  both = await pair({ responseCacheBytes: 0 } satisfies Partial<AppSettings>);
  const first = await same(both, post('{ packages(limit: 1, seed: 1) { results { urlSlug } } }', 'application/json'));
  slug = (JSON.parse(first.body.toString()) as { data: { packages: { results: { urlSlug: string }[] } } }).data.packages
    .results[0]?.urlSlug as string;
});

/** The answer, the same at the edge and in yoga, for each media type: its status, body and Retry-After. */
async function answers(query: string, variables: object = {}) {
  const seen: { accept: string; status: number; body: Body; retryAfter: string | undefined }[] = [];
  for (const accept of ACCEPTS) {
    const answer = await same(both, post(query, accept, variables));
    const body = JSON.parse(answer.body.toString()) as Body;
    seen.push({ accept, status: answer.status, body, retryAfter: answer.headers['retry-after'] });
  }
  return seen;
}

describe(`HTTP status codes of GraphQL answers on ${engineName}`, () => {
  it('a partial answer is a 200 with its data and the errors of the fields that failed', async () => {
    const query = 'query ($slug: String!) { a: package(urlSlug: $slug) { title } b: package(id: "123") { id } }';
    for (const { status, body } of await answers(query, { slug })) {
      expect(status).toBe(200);
      expect(body.data).toEqual({ a: { title: expect.any(String) }, b: null });
      expect(body.errors).toEqual([expect.objectContaining({ path: ['b'], extensions: { code: 'BAD_USER_INPUT' } })]);
    }
  });

  it('a field that can be null fails alone, its siblings answered: photographer beside a page', async () => {
    const query = '{ a: packages(limit: 2, seed: 1) { count } b: photographer(id: "x") { name } }';
    for (const { status, body } of await answers(query)) {
      expect(status).toBe(200);
      expect(body.data).toEqual({ a: { count: 20 }, b: null });
      expect(body.errors?.map((e) => [e.path, e.extensions?.code])).toEqual([[['b'], 'BAD_USER_INPUT']]);
    }
  });

  // `packages` and `packagesConnection` are non-null (making them nullable breaks every typed client): a bad
  // argument of theirs nulls `data`, as GraphQL says, and the answer is the refusal.
  it("a page's bad argument is a refusal: data null, 400, its siblings with it", async () => {
    for (const field of ['packages(limit: 0) { count }', 'packagesConnection(first: 0) { totalCount }']) {
      const query = `query ($slug: String!) { a: package(urlSlug: $slug) { title } b: ${field} }`;
      for (const { status, body } of await answers(query, { slug })) {
        expect(status).toBe(400);
        expect(body.data).toBeNull();
        expect(body.errors?.map((e) => [e.path, e.extensions?.code])).toEqual([[['b'], 'BAD_USER_INPUT']]);
      }
    }
  });

  it('an answer with no root field answered has data null and the status of its errors: 400', async () => {
    for (const query of [
      '{ package(id: "123") { id } }',
      '{ packages(limit: 0) { count } }',
      `{ a: package(id: "123") { id } b: photographer(id: "x") { name } }`,
    ]) {
      for (const { status, body } of await answers(query)) {
        expect(status, query).toBe(400);
        expect(body.data, query).toBeNull();
        expect(body.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
      }
    }
  });

  it('a root field that is null without an error is an answer: a 200', async () => {
    const query = `{ a: package(id: "${UNKNOWN_ID}") { id } b: package(id: "123") { id } }`;
    for (const { status, body } of await answers(query)) {
      expect(status).toBe(200);
      expect(body.data).toEqual({ a: null, b: null });
    }
  });

  it('request errors stay 4xx without data: parse, validation, variables, limits, a mutation', async () => {
    const hops = 'photographer { packages(first: 1) { edges { node { ';
    const deep = `{ packages(limit: 1) { results { ${hops.repeat(12)}id${' } } } }'.repeat(12)} } } }`;
    for (const [query, variables, code] of [
      ['{ packages(limit: 1 { count } }', {}, 'GRAPHQL_PARSE_FAILED'],
      ['{ packages { nope } }', {}, 'GRAPHQL_VALIDATION_FAILED'],
      ['query ($l: Int) { packages(limit: $l) { count } }', { l: 'x' }, 'BAD_USER_INPUT'],
      [deep, {}, 'QUERY_LIMIT_EXCEEDED'],
      ['mutation { packages }', {}, 'OPERATION_NOT_SUPPORTED'],
    ] as const) {
      for (const { status, body } of await answers(query, variables)) {
        expect(status, query.slice(0, 60)).toBe(400);
        expect(body).not.toHaveProperty('data');
        expect(body.errors?.[0]?.extensions?.code).toBe(code);
      }
    }
  });
});

describe(`while the database is away, on ${engineName}`, () => {
  it('an answer without any field is a 503 with Retry-After, one with a field a 200', async () => {
    const away = readingThrough(db(), failingReads(new DatabaseUnavailableError('connection refused')));
    const settings: Partial<AppSettings> = { responseCacheBytes: 0, rateLimit: { requests: 0, windowMs: 60_000 } };
    const edge = await serveApp(away, settings);
    const app = await serveApp(away, settings, undefined, undefined, { edgeHits: false });
    try {
      for (const accept of ACCEPTS) {
        const none = await same({ edge, app }, post(`{ package(id: "${UNKNOWN_ID}") { id } }`, accept));
        expect([none.status, none.headers['retry-after']]).toEqual([503, '5']);
        expect(JSON.parse(none.body.toString())).toMatchObject({ data: null });
        const some = await same({ edge, app }, post(`{ __typename package(id: "${UNKNOWN_ID}") { id } }`, accept));
        expect(some.status).toBe(200);
        expect(JSON.parse(some.body.toString())).toMatchObject({
          data: { __typename: 'Query', package: null },
          errors: [{ extensions: { code: 'SERVICE_UNAVAILABLE' } }],
        });
      }
    } finally {
      await edge.close();
      await app.close();
    }
  });
});
