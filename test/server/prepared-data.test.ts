// The prepared demo database (src/db/prepared-data.ts) serves exactly what a first start that makes its database
// serves. Real processes over real HTTP: `npm run db:demo-data` makes the prepared data, the first start's own
// process makes a database the long way (the migrations, the demo generator, the writes, the read model), and two
// servers answer: one on that database, one started on a new directory, which copies the prepared data. Every page
// of the v2 listing in three seeded orders, GraphQL pages with every field, and a storefront's
// search with its facets must be the same bytes; only the listing version differs, as it does between any two
// databases, two copies included.
import { print } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FullPageDocument } from '../../src/generated/graphql/graphql.js';
import { runScript, type ServerProcess, startServer } from '../helpers/server-process.js';
import { tempDir } from '../helpers/temp-dir.js';

const made = tempDir('listing-made-');
const copied = tempDir('listing-copied-');
const copiedAgain = tempDir('listing-copied-again-');
let longWay: ServerProcess;
let fromCopy: ServerProcess;
let fromAnotherCopy: ServerProcess;

beforeAll(async () => {
  // It reads no setting: wrong ones, as test/docs/cli.test.ts gives the other such tools, do not stop it.
  const maker = await runScript('src/cli/demo-data.ts', { PORT: 'abc', API_KEYS: 'broken' });
  expect(maker.code, maker.stderr).toBe(0);
  const first = await runScript('src/first-start.ts', { DATA_DIR: made.path });
  expect(first.code, first.stdout + first.stderr).toBe(0);
  [longWay, fromCopy, fromAnotherCopy] = await Promise.all([
    startServer({ DATA_DIR: made.path }),
    startServer({ DATA_DIR: copied.path }),
    startServer({ DATA_DIR: copiedAgain.path }),
  ]);
}, 600_000);

afterAll(async () => {
  await Promise.all([longWay?.stop(), fromCopy?.stop(), fromAnotherCopy?.stop()]);
  for (const dir of [made, copied, copiedAgain]) dir.remove();
});

const text = async (url: string) => {
  const response = await fetch(url);
  expect(response.status, url).toBe(200);
  // The answer names the listing version it was read from, for a CDN's purges.
  const version = /(?:^| )listing-(\d+)/.exec(response.headers.get('surrogate-key') ?? '')?.[1];
  return { body: await response.text(), version };
};

const graphql = async (base: string, query: string, variables: Record<string, unknown>) => {
  const response = await fetch(`${base}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ query, variables }),
  });
  const body = await response.text();
  expect(response.status, body).toBe(200);
  expect((JSON.parse(body) as { data?: { packages?: unknown } }).data?.packages, body).toBeTruthy();
  return body;
};

/** The same path's bytes from both servers (the v2 links name each server's own address, set aside). */
async function sameV2(path: string): Promise<number> {
  const [a, b] = await Promise.all([text(`${longWay.url}${path}`), text(`${fromCopy.url}${path}`)]);
  const own = (body: string, base: string) => body.split(base).join('<base>');
  expect(own(b.body, fromCopy.url), path).toBe(own(a.body, longWay.url));
  return (JSON.parse(a.body) as { count: number }).count;
}

describe('the prepared demo database', () => {
  it('is what the first start copied', () => {
    for (const server of [fromCopy, fromAnotherCopy]) {
      expect(server.output()).toMatch(/loaded 2000 demo packages: the prepared database copied in/);
      expect(server.output()).not.toContain('loading 2000 demo packages');
    }
  });

  it('serves every v2 page of the listing as the database made the long way does', async () => {
    for (const seed of [7, 20240601, 1]) {
      for (let offset = 0; offset < 2000; offset += 100) {
        expect(await sameV2(`/v2/local-package-list/?limit=100&offset=${offset}&seed=${seed}`)).toBe(2000);
      }
    }
  }, 300_000);

  it('serves the same GraphQL pages with every field, and the same search and facets', async () => {
    const full = print(FullPageDocument);
    for (const offset of [0, 950, 1950]) {
      const variables = { limit: 50, offset, seed: 7 };
      expect(await graphql(fromCopy.url, full, variables)).toBe(await graphql(longWay.url, full, variables));
    }
    const search = `query Search($search: String) {
      packages(limit: 24, filter: { search: $search }, sort: RELEVANCE) {
        count results { id title price }
        facets { category { values { id label count input } } price { values { id count } }
          photographer { values { id label count } } featured { values { id count } }
          instantBooking { values { id count } } }
      }
    }`;
    for (const words of ['weding', 'golden hou', 'portrait studio']) {
      const variables = { search: words };
      expect(await graphql(fromCopy.url, search, variables)).toBe(await graphql(longWay.url, search, variables));
    }
  }, 120_000);

  it('gives each copy a listing version of its own', async () => {
    const path = '/v2/local-package-list/?limit=1&seed=7';
    const versions = await Promise.all(
      [longWay, fromCopy, fromAnotherCopy].map(async (s) => (await text(`${s.url}${path}`)).version),
    );
    expect(versions.every(Boolean)).toBe(true);
    expect(new Set(versions).size).toBe(3);
  });
});
