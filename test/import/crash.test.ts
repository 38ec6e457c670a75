// An import killed with SIGKILL at any moment leaves the listing it found or the one it was importing, whole: 20
// kills of the real import process, at random times over its measured duration, in its first 100 ms and at its
// very end. After each, the listing served is exactly the old or the new one, ids and every record's content (on
// the embedded engine a real server starts on the data directory as the kill left it, with no repair by hand); the
// listing version is the old one or a new one to match, and the read model is the one built for it. The next
// import starts from whatever the kill left, importing the other dump.
import { describe, expect, it } from 'vitest';
import { engineName, onPostgres, scratchForProcesses } from '../helpers/database.js';
import {
  type Aim,
  type Dump,
  importKilled,
  importWhole,
  type Kill,
  type Listing,
  sameListing,
  servedListing,
  storedState,
  writeDumps,
} from './crash-helpers.js';

const KILLS = 20;
/** Steps after which the import has committed: a kill there must leave the new listing. */
const AFTER_COMMIT = new Set(['committed', 'closing the database', 'finished']);
/** Steps before the commit is sent: a kill there must leave the old listing. */
const BEFORE_COMMIT = new Set(['starting', 'opening the database', 'migrating', 'reading', 'writing rows']);
for (const step of ['read model', 'listing order']) BEFORE_COMMIT.add(step);

const { dir, env } = scratchForProcesses('crash-test-');

interface State {
  dump: Dump;
  version: string;
}

/**
 * Checks the database holds exactly one of the two listings, whole; which one. On the embedded engine a real
 * server starts on the data directory and serves the listing; PostgreSQL's is read through the app in this
 * process (a start does nothing more to a PostgreSQL database, and it saves seconds a kill).
 */
async function check(old: State, target: Dump): Promise<{ outcome: 'old' | 'new'; version: string; serverMs: number }> {
  const started = performance.now();
  const served = onPostgres ? null : await servedListing(env);
  const serverMs = performance.now() - started;
  expect(served?.output ?? '', 'the start found a read model not built for its listing').not.toMatch(
    /building the read model/,
  );
  const stored = await storedState(env, onPostgres);
  const listing = served?.listing ?? (stored.listing as Listing);
  const outcome = sameListing(listing, old.dump.listing)
    ? 'old'
    : sameListing(listing, target.listing)
      ? 'new'
      : describeMixture(listing, old.dump, target);
  const ids = [...listing.keys()].sort();
  expect([...stored.listed].sort()).toEqual(ids);
  expect([...stored.entries].sort()).toEqual(ids);
  expect(stored.readModelCurrent, 'the read model was built for this listing version').toBe(true);
  expect(stored.readModelAgrees, 'the read model is what the tables give').toBe(true);
  if (outcome === 'old') expect(stored.version).toBe(old.version);
  else expect(stored.version).not.toBe(old.version);
  return { outcome, version: stored.version, serverMs };
}

function describeMixture(served: Listing, old: Dump, target: Dump): never {
  const from = (dump: Dump) => [...served].filter(([id, hash]) => dump.listing.get(id) === hash).length;
  throw new Error(
    `a mixture: ${served.size} records served, ${from(old)} as ${old.name} has them, ${from(target)} as ${target.name} has them`,
  );
}

/** A share of the import's measured duration (0 to 1), or an aim of its own. */
type Plan = { share: number } | Aim;

/**
 * The kills: 3 in the first 100 ms, 3 at the very end, the rest uniform over the import's duration, one in each
 * of as many equal slices of it (so that a short step is not missed by chance), in random order.
 */
function plans(): Plan[] {
  const list: Plan[] = [
    { ms: Math.random() * 100 },
    { ms: Math.random() * 100 },
    { ms: Math.random() * 100 },
    { step: 'committing' },
    { step: 'committing' },
    { step: 'closing the database' },
  ];
  const slices = KILLS - list.length;
  for (let i = 0; i < slices; i++) list.push({ share: (i + Math.random()) / slices });
  for (let i = list.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1));
    [list[i], list[j]] = [list[j] as Plan, list[i] as Plan];
  }
  return list;
}

describe(`imports killed with SIGKILL on ${engineName}`, () => {
  it(`leave the old listing or the new one, whole, ${KILLS} times out of ${KILLS}`, async () => {
    const started = performance.now();
    const { a, b } = writeDumps(dir.path, 400, 100);
    const other = (dump: Dump) => (dump === a ? b : a);

    // The duration of each import, measured as the kills will run it: B over A, then A over B.
    await importWhole(env, a);
    const durations = new Map<Dump, number>([[b, await importWhole(env, b)]]);
    durations.set(a, await importWhole(env, a));
    const measured = [...durations].map(([d, ms]) => `${d.name} ${(ms / 1000).toFixed(2)} s`).join(', ');
    let state: State = { dump: a, version: (await storedState(env)).version };
    const first = await check({ dump: b, version: 'none' }, a);
    expect(first).toMatchObject({ outcome: 'new', version: state.version });

    const rows: (Kill & { into: string; outcome: string; checkMs: number; serverMs: number })[] = [];
    for (const plan of plans()) {
      const target = other(state.dump);
      const aim = 'share' in plan ? { ms: plan.share * (durations.get(target) as number) } : plan;
      const kill = await importKilled(env, target, aim);
      const checking = performance.now();
      // A failed check names the kill before it, and the kills before that: what a rerun would need to find it.
      const result = await check(state, target).catch((error: unknown) => {
        const before = rows.map((row) => `${row.into} ${row.step} at ${Math.round(row.atMs)} ms`).join('; ');
        throw new Error(
          `after kill ${rows.length + 1} (${state.dump.name}->${target.name}, ${JSON.stringify(kill)}; before it: ${before || 'none'}): ${(error as Error).message}`,
          { cause: error },
        );
      });
      rows.push({
        ...kill,
        into: `${state.dump.name}->${target.name}`,
        outcome: result.outcome,
        checkMs: performance.now() - checking,
        serverMs: result.serverMs,
      });
      if (AFTER_COMMIT.has(kill.step)) expect(result.outcome, JSON.stringify(kill)).toBe('new');
      if (BEFORE_COMMIT.has(kill.step)) expect(result.outcome, JSON.stringify(kill)).toBe('old');
      state = result.outcome === 'new' ? { dump: target, version: result.version } : state;
      // An import killed at its end, or one that ended first, measured its duration again (a machine's load moves).
      if (kill.step === 'committing' || AFTER_COMMIT.has(kill.step)) durations.set(target, kill.atMs);
    }

    const seconds = (ms: number) => (ms / 1000).toFixed(2);
    const byStep = new Map<string, number>();
    for (const row of rows) byStep.set(row.step, (byStep.get(row.step) ?? 0) + 1);
    console.log(
      [
        `${engineName}: imports measured at ${measured} (last seen: ${[...durations].map(([d, ms]) => `${d.name} ${seconds(ms)} s`).join(', ')})`,
        ...rows.map(
          (r, i) =>
            `kill ${String(i + 1).padStart(2)}: ${r.into}, aimed ${r.aim}, sent at ${seconds(r.atMs)} s during "${r.step}": ${r.outcome} listing (checked in ${seconds(r.checkMs)} s${onPostgres ? '' : `, server ${seconds(r.serverMs)} s`})`,
        ),
        `kills by step: ${[...byStep].map(([step, n]) => `${step} ${n}`).join(', ')}`,
        `${KILLS} kills in ${seconds(performance.now() - started)} s`,
      ].join('\n'),
    );
    expect(rows).toHaveLength(KILLS);
  }, 600_000);
});
