// A filter's first read is shared by the requests that ask for it meanwhile, and runs on the session of the
// request that began it. When it fails for that request (its deadline spent, its replica gone, its listing
// moved), a request that joined it reads again on its own session: it hears of its own faults only.
import { describe, expect, it } from 'vitest';
import { DatabaseUnavailableError } from '../../src/db/faults.js';
import { DeadlinePassedError, ListingMovedError, type SqlReader } from '../../src/db/sql.js';
import { createMatchSets } from '../../src/listing/matches.js';

/** A session whose reads wait for `release` and then answer `positions`, or fail with `error`. */
function session(outcome: { positions: number[] } | { error: Error }) {
  let release = () => {};
  const released = new Promise<void>((resolve) => {
    release = resolve;
  });
  let reads = 0;
  const sql: SqlReader = {
    async query<Row>() {
      reads++;
      await released;
      if ('error' in outcome) throw outcome.error;
      // As the read answers: one value, the positions packed big-endian as int4send packs them.
      const packed = Buffer.alloc(outcome.positions.length * 4);
      for (const [i, position] of outcome.positions.entries()) packed.writeInt32BE(position, i * 4);
      return [{ positions: outcome.positions.length > 0 ? packed : null }] as Row[];
    },
  };
  return { sql, release, reads: () => reads };
}

// Not of the facet columns' parts alone (src/listing/column-matches.ts): a filter the database is asked for.
const filter = { priceMin: '10.00', photographerId: '3f2504e0-4f89-41d3-9a0c-0305e82c3301' };

describe('a shared first read of a filter', () => {
  for (const error of [new ListingMovedError(), new DeadlinePassedError(), new DatabaseUnavailableError('gone')]) {
    it(`failed for the request that began it (${error.constructor.name}): the one that joined reads on its own session`, async () => {
      const matchSets = createMatchSets(1024 * 1024);
      const first = session({ error });
      const second = session({ positions: [1, 4, 9] });
      const firstAnswer = matchSets.positions(first.sql, filter, '7');
      const secondAnswer = matchSets.positions(second.sql, filter, '7');
      await Promise.resolve();
      expect(second.reads()).toBe(0); // joined, not read twice
      first.release();
      second.release();
      await expect(firstAnswer).rejects.toBe(error);
      expect(Array.from(await secondAnswer)).toEqual([1, 4, 9]);
      expect(second.reads()).toBe(1);
      // Kept for the next request, which reads nothing.
      const third = session({ positions: [] });
      expect(Array.from(await matchSets.positions(third.sql, filter, '7'))).toEqual([1, 4, 9]);
      expect(third.reads()).toBe(0);
    });
  }

  it('answered: every request that joined it has its answer, read once', async () => {
    const matchSets = createMatchSets(1024 * 1024);
    const first = session({ positions: [2, 3] });
    const others = [session({ positions: [] }), session({ positions: [] })];
    const answers = [first, ...others].map((s) => matchSets.positions(s.sql, filter, '8'));
    first.release();
    for (const answer of await Promise.all(answers)) expect(Array.from(answer)).toEqual([2, 3]);
    expect(others.map((s) => s.reads())).toEqual([0, 0]);
  });
});
