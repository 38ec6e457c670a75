// A filter's first page reads its matching positions, which costs O(matching packages), and the filter is the
// client's to choose: a burst of new filters gets a few of those reads at a time and is refused past that, with
// 429 TOO_BUSY and Retry-After, never a 5xx, while filters already read keep being served; and one client holds
// at most its share of those reads, so a second client's new filter is read meanwhile.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../src/app.js';
import type { ReadPath, ReadSession } from '../../src/db/sql.js';
import { READS_PER_CALLER } from '../../src/listing/matches.js';
import { createListingTestDatabase, engineName, readingThrough, type TestDatabase } from '../helpers/database.js';

let db: TestDatabase;
let app: ReturnType<typeof createApp>;

beforeAll(async () => {
  db = await createListingTestDatabase(300);
  app = createApp({ db, settings: { responseCacheBytes: 0 } });
});
afterAll(() => db?.destroy());

/**
 * A page of a filter matching the packages priced at least `cents` with "golden" in them (every value a filter of
 * its own, and read from the database: a search is not matched in memory as prices alone are).
 */
async function page(cents: number, from = app, clientAddress = '192.0.2.1') {
  const response = await from.fetch(
    'http://localhost/graphql',
    {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        query: `query ($min: Decimal) { packages(limit: 5, seed: 1, filter: { currency: "USD", priceMin: $min, search: "golden" }) { count } }`,
        variables: { min: (cents / 100).toFixed(2) },
      }),
    },
    { clientAddress },
  );
  const body = (await response.json()) as {
    data?: { packages: { count: number } | null } | null;
    errors?: { message: string; extensions?: { code?: string } }[];
  };
  return { status: response.status, retryAfter: response.headers.get('retry-after'), body };
}

describe(`first reads of new filters on ${engineName}`, () => {
  it('run a few at a time; a burst past that is refused at once with 429, and served once retried', async () => {
    const burst = Array.from({ length: 60 }, (_, i) => i + 1);
    const answers = await Promise.all(burst.map((cents) => page(cents)));
    const refused = answers.filter((a) => a.status === 429);
    const served = answers.filter((a) => a.status === 200);
    expect(served.length + refused.length).toBe(burst.length);
    // One client's share of the 2 at once and 2 waiting, at the least.
    expect(served.length).toBeGreaterThanOrEqual(READS_PER_CALLER);
    expect(refused.length).toBeGreaterThan(0);
    for (const answer of refused) {
      expect(answer.retryAfter).toBe('1');
      expect(answer.body.errors?.[0]?.extensions?.code).toBe('TOO_BUSY');
      expect(answer.body.errors?.[0]?.message).toMatch(
        /^Too many new filters (from this client )?are being read right now/,
      );
    }
    for (const answer of served) expect(answer.body.errors).toBeUndefined();

    // Retried one by one, each is served; a filter already read is served whatever else is going on.
    for (const cents of burst.filter((_, i) => answers[i]?.status === 429).slice(0, 5)) {
      const again = await page(cents);
      expect(again.status).toBe(200);
      expect(again.body.data?.packages?.count).toBeGreaterThan(0);
    }
  });

  it("leave a second client's new filter read while one client holds its share of the reads", async () => {
    // Every filter read waits until released, so that the reads are under way at once for certain.
    const held: (() => void)[] = [];
    const slow = createApp({ db: readingThrough(db, holdingFilterReads(db.read, held)), settings: {} });
    try {
      const first = [1, 2, 3, 4].map((n) => page(20_000 + n, slow, '192.0.2.10'));
      const settled = first.map(() => false);
      first.forEach((answer, i) => void answer.then(() => (settled[i] = true)));
      // Two reads under way, one waiting: the client's fourth filter is refused at once.
      await until(() => held.length === 2 && settled.filter(Boolean).length === 1);
      const refused = await first[settled.indexOf(true)];
      expect(refused?.status).toBe(429);
      expect(refused?.body.errors?.[0]?.message).toMatch(/^Too many new filters from this client are being read/);

      // A second client's new filter takes the last place, and is read once one of the first client's is done.
      const second = page(20_000, slow, '192.0.2.20');
      await new Promise((resolve) => setTimeout(resolve, 50));
      const releasing = setInterval(() => {
        for (const release of held.splice(0)) release();
      }, 5);
      try {
        const answer = await second;
        expect(answer.status).toBe(200);
        expect(answer.body.data?.packages?.count).toBeGreaterThan(0);
        const others = await Promise.all(first);
        expect(others.map((a) => a.status).sort()).toEqual([200, 200, 200, 429]);
      } finally {
        clearInterval(releasing);
      }
    } finally {
      await slow.dispose();
    }
  });
});

/** Resolves when `done` holds; throws after 5 s. */
async function until(done: () => boolean): Promise<void> {
  for (let waited = 0; !done(); waited += 10) {
    if (waited > 5000) throw new Error('the reads never got there');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** `read` with each filter's positions read held until a function pushed onto `held` is called. */
function holdingFilterReads(read: ReadPath, held: (() => void)[]): ReadPath {
  return {
    single: (statement, params) => read.single(statement, params),
    session(deadline, consistency) {
      const session = read.session(deadline, consistency);
      return new Proxy(session, {
        get(target, property) {
          if (property === 'query') {
            const query: ReadSession['query'] = async (statement, params) => {
              if (statement.text.includes('string_agg(int4send(e.position)')) {
                await new Promise<void>((resolve) => held.push(resolve));
              }
              return target.query(statement, params);
            };
            return query;
          }
          const value = Reflect.get(target, property, target);
          return typeof value === 'function' ? value.bind(target) : value;
        },
      });
    },
  };
}
