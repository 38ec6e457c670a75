// The response cache changes nothing but speed, held as a property over random sequences of requests: with the
// cache on, every answer is the one the same server gives with it off (same status and headers but for Date,
// X-Request-Id, the caching headers and the framing, the same bytes once decoded, in the same coding), and a 304
// stands only for a 200 whose representation If-None-Match names (RFC 9110), never for a tag of an earlier version
// of the listing. An answer made while an import commits is one version's or the other's, and is kept under its
// own (the requests after it compare).
//
// Requests on both doors: v2 pages (GET, HEAD, OPTIONS) and GraphQL over GET and POST, by document and by the
// hash of automatic persisted queries (one registered earlier in the sequence, one never registered). Each
// request draws its Accept, Accept-Encoding, If-None-Match, Authorization, Origin and Content-Type: absent, empty,
// `null`, `undefined`, garbage, 4 kB long, lists with parameters, valid (transparency-headers.ts); a request sent
// again may change one of them, so that two requests a key confuses meet.
//
// Four servers over real HTTP with the Node edge in front (transparency-servers.ts): sequences mix both pairs, so
// answers are shared through Redis between differently configured instances, and now and then change a price (the
// listing version moves; earlier ETags go stale), at times while a request is answered. The run counts its cache
// hits, its hits on one instance of answers the other made, its hits on persisted queries, its stale tags and
// imports during a request, and requires each often enough. Seeded and reproducible: PROPERTY_SEED and
// PROPERTY_RUNS (default 800, about a minute on a 2-core machine; CI and `npm run test:long` run 2,000); a
// failure prints the seed, the shortest failing sequence and each of its requests as sent, with both answers.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { importSource } from '../../src/import/importer.js';
import type { V2Package } from '../../src/v2/records.js';
import { engineName } from '../helpers/database.js';
import { PRIVATE_KEY } from '../helpers/graphql.js';
import { type Exchange, send } from '../helpers/http-server.js';
import { memorySource } from '../import/helpers.js';
import { filled, HEADER_NAMES, shown, WIRE_NAMES } from './transparency-headers.js';
import { type Action, type Ask, action, type Change, difference, resolved } from './transparency-model.js';
import { transparencyServers, V2_KEY } from './transparency-servers.js';

const RUNS = Number(process.env.PROPERTY_RUNS ?? 800);
const SEED = Number(process.env.PROPERTY_SEED ?? Date.now() % 2 ** 31);

const { db, records, servers } = transparencyServers();

/** What a sequence has seen: the ETags of cache-on answers, and those seen before the last change (stale). */
interface Seen {
  etags: string[];
  stale: string[];
}

/**
 * Over every sequence: answers from the cache, and those one instance found in Redis for a key only the other had
 * answered (its own memory cannot have held it). The property means little unless both happen often enough.
 */
const tally = { asks: 0, hits: 0, crossHits: 0, persistedHits: 0, staleTagsSent: 0, during: 0 };
/** Which instances have answered each key (an ETag without its coding's suffix names the key). */
const answeredBy = new Map<string, Set<'A' | 'B'>>();

function count(pair: 'A' | 'B', ask: Ask, on: Exchange): void {
  tally.asks++;
  const key = on.headers.etag?.replace(/-(br|gzip)"$/, '"');
  if (on.headers['x-cache'] === 'hit') {
    tally.hits++;
    if ((ask.body ?? ask.path).includes('persistedQuery') && !ask.registers) tally.persistedHits++;
    const by = key ? answeredBy.get(key) : undefined;
    if (by && !by.has(pair)) tally.crossHits++;
  }
  if (key) answeredBy.set(key, (answeredBy.get(key) ?? new Set()).add(pair));
}

/**
 * The number of the sequence, in the query string of each request that has one: the parts of requests a server
 * remembers and the answers it keeps for them are then the sequence's own, so that a failure is the sequence's
 * doing and its shortest form tells the whole story (a POST's answer may still be one kept before).
 */
let sequences = 0;

function requestOf(ask: Ask, seen: Seen, sequence: number) {
  const last = seen.etags.at(-1) ?? '"none"';
  const known = { seen: last, stale: seen.stale.at(-1) ?? last, private: PRIVATE_KEY, v2: V2_KEY };
  const headers: Record<string, string> = {};
  for (const name of HEADER_NAMES) {
    const value = ask[name];
    if (value !== undefined) headers[WIRE_NAMES[name]] = filled(value, known);
  }
  if (ask.forwarded === 'forwarded-host') headers['x-forwarded-host'] = 'evil.example';
  if (ask.forwarded === 'forwarded-proto') headers['x-forwarded-proto'] = 'https';
  if (ask.forwarded === 'host') headers.host = 'evil.example';
  const path = ask.path.includes('?') ? `${ask.path}&sequence=${sequence}` : ask.path;
  return { method: ask.method, path, headers, ...(ask.body !== undefined && { body: ask.body }) };
}

function importChange(step: Change): Promise<unknown> {
  const record = structuredClone(records[step.index] as V2Package);
  const price = `${Math.floor(step.cents / 100)}.${String(step.cents % 100).padStart(2, '0')}`;
  return importSource(db(), memorySource([{ ...record, price }]));
}

/** A request as a failure prints it, with the answers with the cache on and off. */
function line(pair: 'A' | 'B', ask: Ask, path: string, on: Exchange, off: Exchange): string {
  const target = path.length > 160 ? `${path.slice(0, 160)}…` : path;
  const headers = HEADER_NAMES.filter((name) => ask[name] !== undefined).map(
    (name) => `${WIRE_NAMES[name]}: ${shown(ask[name])}`,
  );
  if (ask.forwarded !== 'none') headers.push(`(${ask.forwarded})`);
  const body = ask.body === undefined ? '' : ` body ${shown(ask.body)}`;
  const answer = (e: Exchange) => `${e.status}${e.headers['x-cache'] ? ` (x-cache: ${e.headers['x-cache']})` : ''}`;
  return `${pair} ${ask.method} ${target} {${headers.join('; ')}}${body} → cache on ${answer(on)}, cache off ${answer(off)}`;
}

async function run(actions: Action[]): Promise<void> {
  const seen: Seen = { etags: [], stale: [] };
  const sequence = ++sequences;
  const steps = resolved(actions);
  const sent: string[] = [];
  const fail = (what: string) => {
    throw new Error(`${what}\nthe requests as sent, in order:\n  ${sent.join('\n  ')}`);
  };
  for (let i = 0; i < steps.length; i++) {
    const step = steps[i] as Ask | Change;
    const next = steps[i + 1];
    if (step.kind === 'change' && step.during && next?.kind === 'ask' && !next.registers) {
      // The import runs while the next request is answered: the answer is either version's, never a mix, and
      // whichever it is, it is kept under its own version (the requests after it check that).
      i++;
      tally.during++;
      const request = requestOf(next, seen, sequence);
      const before = await send(servers[`${next.pair}0`].url, request);
      const importing = importChange(step);
      const on = await send(servers[next.pair].url, request);
      await importing;
      const after = await send(servers[`${next.pair}0`].url, request);
      sent.push(
        `(price of package ${step.index} changes during the next) ${line(next.pair, next, request.path, on, after)}`,
      );
      const origins = { on: servers[next.pair].url, off: servers[`${next.pair}0`].url };
      const condition = { ifNoneMatch: request.headers['if-none-match'], staleTag: false };
      const wrong = [before, after].map((off) => difference(next, condition, on, off, origins));
      if (wrong.every(Boolean)) fail(`${next.method} ${next.path} on ${next.pair} during an import: ${wrong[1]}`);
      seen.stale = [...seen.etags];
      continue;
    }
    if (step.kind === 'change') {
      await importChange(step);
      sent.push(`(price of package ${step.index} changes)`);
      seen.stale = [...seen.etags];
      continue;
    }
    const request = requestOf(step, seen, sequence);
    // A registration reaches every server: each must know the documents the others know.
    for (const pair of step.registers ? (['A', 'B'] as const) : [step.pair]) {
      const on = servers[pair];
      const off = servers[`${pair}0`];
      const answers: [Exchange, Exchange] = [await send(on.url, request), await send(off.url, request)];
      sent.push(line(pair, step, request.path, ...answers));
      count(pair, step, answers[0]);
      const etag = answers[0].headers.etag;
      if (etag) seen.etags.push(etag);
      const ifNoneMatch = request.headers['if-none-match'];
      // A tag from before the last change names an answer of another version: it never earns a 304.
      const staleTag = step.ifNoneMatch === '{stale}' && ifNoneMatch !== undefined && seen.stale.includes(ifNoneMatch);
      if (staleTag) tally.staleTagsSent++;
      const wrong = difference(step, { ifNoneMatch, staleTag }, ...answers, { on: on.url, off: off.url });
      if (wrong) fail(`${step.method} ${step.path.slice(0, 160)} on ${pair}: ${wrong}`);
    }
  }
}

describe(`the response cache is transparent, on ${engineName}`, () => {
  it(`holds for ${RUNS} random sequences of requests (seed ${SEED})`, { timeout: 600_000 }, async () => {
    console.log(`cache transparency: ${RUNS} sequences, seed ${SEED} (PROPERTY_SEED=${SEED} reproduces them)`);
    await fc.assert(
      fc.asyncProperty(fc.array(action, { minLength: 1, maxLength: 10 }), (actions) => run(actions)),
      { numRuns: RUNS, seed: SEED },
    );
    // Requests the Node edge answered: kept answers, and on the GraphQL door plain queries it runs itself.
    const edge = servers.A.edgeAnswered() + servers.B.edgeAnswered();
    console.log(`cache transparency: ${JSON.stringify({ ...tally, edge })}`);
    // Hits, hits across instances and on persisted queries, stale tags and imports during a request: each often
    // enough to have been held.
    expect(tally.hits).toBeGreaterThanOrEqual(RUNS / 20);
    expect(tally.crossHits).toBeGreaterThanOrEqual(RUNS / 400);
    expect(tally.persistedHits).toBeGreaterThanOrEqual(RUNS / 400);
    expect(tally.staleTagsSent).toBeGreaterThanOrEqual(RUNS / 400);
    expect(tally.during).toBeGreaterThanOrEqual(RUNS / 100);
  });
});
