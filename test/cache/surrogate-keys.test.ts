// What a CDN is told: an anonymous cacheable answer carries Surrogate-Key and Cache-Tag (its listing version, its
// packages and photographers) and Surrogate-Control (CDN_MAX_AGE), the same from the cache; an answer for an API
// key carries none of it and stays private; past the size bound the version key alone.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../src/app.js';
import { MAX_SURROGATE_KEY_BYTES, surrogateKeys } from '../../src/cache/surrogate-keys.js';
import { createListingTestDatabase, engineName, type TestDatabase } from '../helpers/database.js';
import { PRIVATE_KEY, TEST_KEYS } from '../helpers/graphql.js';

const ORIGIN = 'http://listing.test';
let db: TestDatabase;
let app: ReturnType<typeof createApp>;

beforeAll(async () => {
  db = await createListingTestDatabase(120);
  app = createApp({
    db,
    settings: { apiKeys: TEST_KEYS, rateLimit: { requests: 0, windowMs: 60_000 }, cdnMaxAgeSeconds: 3600 },
  });
});
afterAll(async () => {
  await app?.dispose();
  await db?.destroy();
});

const gql = (query: string) => `${ORIGIN}/graphql?query=${encodeURIComponent(query)}`;

describe(`surrogate keys on ${engineName}`, () => {
  it('files a v2 page under its version, packages and photographers, the same when served from the cache', async () => {
    const response = await app.fetch(`${ORIGIN}/v2/local-package-list/?limit=10&seed=4`);
    const page = (await response.json()) as { results: { identifier: string; photographer: { identifier: string } }[] };
    const keys = (response.headers.get('surrogate-key') ?? '').split(' ');
    expect(keys[0]).toMatch(/^listing-\d+$/);
    expect(keys.slice(1).sort()).toEqual(
      [
        ...new Set([
          ...page.results.map((r) => `package-${r.identifier}`),
          ...page.results.map((r) => `photographer-${r.photographer.identifier}`),
        ]),
      ].sort(),
    );
    expect(response.headers.get('cache-tag')).toBe(keys.join(','));
    expect(response.headers.get('surrogate-control')).toBe('max-age=3600');
    expect(response.headers.get('cache-control')).toBe('public, max-age=5, stale-while-revalidate=30');
    const again = await app.fetch(`${ORIGIN}/v2/local-package-list/?limit=10&seed=4`);
    expect(again.headers.get('x-cache')).toBe('hit');
    expect(again.headers.get('surrogate-key')).toBe(keys.join(' '));
    expect(again.headers.get('surrogate-control')).toBe('max-age=3600');
  });

  it('files an anonymous GraphQL GET the same way; an answer for an API key stays private and unfiled', async () => {
    const query = '{ packages(limit: 3, seed: 2) { results { id title } } }';
    const anonymous = await app.fetch(gql(query));
    expect(anonymous.headers.get('cache-control')).toBe('public, max-age=5, stale-while-revalidate=30');
    const ids = (
      (await anonymous.json()) as { data: { packages: { results: { id: string }[] } } }
    ).data.packages.results.map((r) => `package-${r.id}`);
    const keys = anonymous.headers.get('surrogate-key')?.split(' ') ?? [];
    expect(keys).toEqual(expect.arrayContaining(ids));
    const keyed = await app.fetch(gql(query), { headers: { authorization: `Bearer ${PRIVATE_KEY}` } });
    expect(keyed.status).toBe(200);
    expect(keyed.headers.get('cache-control')).toBe('private, no-cache');
    for (const name of ['surrogate-key', 'cache-tag', 'surrogate-control']) expect(keyed.headers.get(name)).toBeNull();
  });

  it(`falls back to the version key alone past ${MAX_SURROGATE_KEY_BYTES} bytes`, () => {
    const ids = (n: number) =>
      new Set(Array.from({ length: n }, (_, i) => `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`));
    const fits = surrogateKeys('7', { packages: ids(100), photographers: ids(50) });
    expect(fits).toHaveLength(151);
    expect(fits.join(' ').length).toBeLessThanOrEqual(MAX_SURROGATE_KEY_BYTES);
    expect(surrogateKeys('7', { packages: ids(200), photographers: ids(50) })).toEqual(['listing-7']);
  });

  it('files nothing that is not kept, and tells every cache not to keep it: an answer with errors', async () => {
    const response = await app.fetch(gql('{ packages(limit: 3, seed: 2) { results { nope } } }'));
    expect(response.headers.get('surrogate-key')).toBeNull();
    expect(response.headers.get('surrogate-control')).toBeNull();
    // Without it a CDN applies its own default lifetime (Varnish: 120 s) to an answer no purge names.
    expect(response.headers.get('cache-control')).toBe('private, no-store');
  });
});
