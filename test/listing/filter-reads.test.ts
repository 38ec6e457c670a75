// A filter's first page reads its matching positions, which costs O(matching packages), and the filter is the
// client's to choose: a burst of new filters gets a few of those reads at a time and is refused past that, with
// 429 TOO_BUSY and Retry-After, never a 5xx, while filters already read keep being served.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../src/app.js';
import { createListingTestDatabase, engineName, type TestDatabase } from '../helpers/database.js';

let db: TestDatabase;
let app: ReturnType<typeof createApp>;

beforeAll(async () => {
  db = await createListingTestDatabase(300);
  app = createApp({ db, settings: { responseCacheBytes: 0 } });
});
afterAll(() => db?.destroy());

/** A page of a filter matching everything priced at least `cents` (every value a filter of its own). */
async function page(cents: number) {
  const response = await app.fetch('http://localhost/graphql', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      query: `query ($min: Decimal) { packages(limit: 5, seed: 1, filter: { priceMin: $min }) { count } }`,
      variables: { min: (cents / 100).toFixed(2) },
    }),
  });
  const body = (await response.json()) as {
    data?: { packages: { count: number } | null } | null;
    errors?: { message: string; extensions?: { code?: string } }[];
  };
  return { status: response.status, retryAfter: response.headers.get('retry-after'), body };
}

describe(`first reads of new filters on ${engineName}`, () => {
  it('run a few at a time; a burst past that is refused at once with 429, and served once retried', async () => {
    const burst = Array.from({ length: 60 }, (_, i) => i + 1);
    const answers = await Promise.all(burst.map(page));
    const refused = answers.filter((a) => a.status === 429);
    const served = answers.filter((a) => a.status === 200);
    expect(served.length + refused.length).toBe(burst.length);
    expect(served.length).toBeGreaterThanOrEqual(4); // 2 at once and 2 waiting, at the least
    expect(refused.length).toBeGreaterThan(0);
    for (const answer of refused) {
      expect(answer.retryAfter).toBe('1');
      expect(answer.body.errors?.[0]?.extensions?.code).toBe('TOO_BUSY');
      expect(answer.body.errors?.[0]?.message).toMatch(/^Too many new filters are being read right now/);
    }
    for (const answer of served) expect(answer.body.errors).toBeUndefined();

    // Retried one by one, each is served; a filter already read is served whatever else is going on.
    for (const cents of burst.filter((_, i) => answers[i]?.status === 429).slice(0, 5)) {
      const again = await page(cents);
      expect(again.status).toBe(200);
      expect(again.body.data?.packages?.count).toBeGreaterThan(0);
    }
  });
});
