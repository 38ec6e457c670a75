// A pool's statement names turned off by the first name a pooler in transaction mode refuses (26000, 42P05), told
// once; the refused statement sent again unnamed, or, inside a transaction its error ended, the operation made
// again. A pool that stands in for pg's answers as PgBouncer's would: no database needed.
import type pg from 'pg';
import { describe, expect, it } from 'vitest';
import { namedStatements } from '../../src/db/named-statements.js';
import { postgresReadPath } from '../../src/db/postgres-read.js';
import { ListingMovedError, type SqlStatement } from '../../src/db/sql.js';
import { StatementObserver } from '../../src/db/statements.js';

const PAGE: SqlStatement = { name: 'page', text: 'SELECT 1 AS one' };
const ROW = { __version: '7', __count: 3, __row: true, one: 1 };

/** A pool whose server refuses every statement sent by name with `code`; what was sent, in `sent`. */
function refusingPool(code: string) {
  const sent: { name?: string | undefined; text: string }[] = [];
  const answer = async (config: pg.QueryConfig) => {
    sent.push({ name: config.name, text: config.text });
    if (config.name) throw Object.assign(new Error(`prepared statement "${config.name}" does not exist`), { code });
    return { rows: /^BEGIN|^COMMIT/.test(config.text) ? [] : [ROW] } as unknown as pg.QueryResult;
  };
  const pool = {
    query: answer,
    connect: async () => ({ query: answer, release: () => {} }),
  } as unknown as pg.Pool;
  return { pool, sent };
}

function readPath(pool: pg.Pool, on = true) {
  const told: string[] = [];
  const names = namedStatements('primary', on, (line) => told.push(line));
  const settings = { statementTimeoutMs: 5000, queryTimeoutMs: 5000 };
  return { read: postgresReadPath(pool, new StatementObserver(), settings, { names }), names, told };
}

describe('statement names behind an undeclared pooler in transaction mode', () => {
  it.each(['26000', '42P05'])('%s: names off for good, said once, every read answered unnamed', async (code) => {
    const { pool, sent } = refusingPool(code);
    const { read, names, told } = readPath(pool);
    const session = read.session(Date.now() + 10_000);
    const pages = await Promise.all([1, 2, 3].map(() => session.withListing(PAGE)));
    expect(pages.map((page) => page.rows)).toEqual([[ROW], [ROW], [ROW]]);
    expect(await read.single(PAGE)).toEqual([ROW]);
    expect(names).toMatchObject({ on: false, detected: true });
    expect(told).toHaveLength(1);
    expect(told[0]).toMatch(new RegExp(`^primary: .*${code}.*transaction mode.*DATABASE_POOLER=transaction`));
    // Refused by name at most once per statement in flight, then never named again.
    expect(sent.filter((each) => each.name).length).toBeLessThanOrEqual(3);
    expect(sent.at(-1)?.name).toBeUndefined();
  });

  it('inside a transaction its error ended: the operation is made again (the session moved)', async () => {
    const { pool } = refusingPool('26000');
    const { read, names, told } = readPath(pool);
    const session = read.session(Date.now() + 10_000, 'transaction');
    await expect(session.query(PAGE)).rejects.toBeInstanceOf(ListingMovedError);
    expect(session.moved).toBe(true);
    expect(session.lost).toBe(false);
    await session.end();
    expect(names.on).toBe(false);
    expect(told).toHaveLength(1);
    const again = read.session(Date.now() + 10_000, 'transaction');
    expect(await again.query(PAGE)).toEqual([ROW]);
    await again.end();
  });

  it('another error leaves names on; a declared pooler never gets a name', async () => {
    const { pool } = refusingPool('42P01');
    const { read, names, told } = readPath(pool);
    await expect(read.single(PAGE)).rejects.toMatchObject({ code: '42P01' });
    expect(names).toMatchObject({ on: true, detected: false });
    expect(told).toEqual([]);

    const declared = refusingPool('26000');
    const off = readPath(declared.pool, false);
    expect(await off.read.single(PAGE)).toEqual([ROW]);
    expect(declared.sent.map((each) => each.name)).toEqual([undefined]);
    expect(off.names.detected).toBe(false);
  });
});
