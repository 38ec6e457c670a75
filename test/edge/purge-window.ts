// An import and its purge window, for the edge differential test (differential.test.ts). The import retitles every
// package (so a page kept past its version shows); the window lasts until both instances answer with the new
// titles and one of them has purged the old version, and then as long as the second purge may take. Inside it,
// requests keep going through the edge over a slow link back from the instances, to provoke the purge race; after
// it, each of them is held to the test's rule.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { generatePackages } from '../../src/demo/generate.js';
import { runScript } from '../helpers/server-process.js';
import { type Ask, type HttpRequest, isSubscription, requestOf } from './differential-model.js';
import { decoded, type Exchange, type StreamRead } from './differential-oracle.js';
import type { EdgeFleet } from './edge-fleet.js';

export interface WindowFigures {
  imports: number;
  windowRequests: number;
  /** Pages of the old version through the edge after its first purge: on their way (the slow link), or kept. */
  oldAnswersAfterFirstPurge: number;
  oldHitsAfterFirstPurge: number;
  newVersionMs: number[];
  firstPurgeMs: number[];
  /** Time inside imports and their purge windows, with the checks after them. */
  importsMs: number;
}

/** What the window needs of the test. */
export interface WindowContext {
  fleet: EdgeFleet;
  /** A directory for the import files. */
  work: string;
  packages: number;
  /** How long after the first purge the window lasts. */
  windowMs: number;
  /** How long answers take from the instances to Varnish inside the window. */
  linkDelayMs: number;
  figures: WindowFigures;
  send(base: string, request: HttpRequest, read: StreamRead): Promise<Exchange>;
  /** Holds an answer to the private values' rule. */
  checkPrivate(ask: Ask, answer: Exchange, context: string): void;
  describeAsk(ask: Ask): string;
  /** Asks through the edge and directly, and holds the answers to the rule. */
  askBoth(ask: Ask, request: HttpRequest, where: string, input: string): Promise<unknown>;
  /** After the import (the private values are read again). */
  afterImport(): Promise<void>;
}

const TITLE_QUERY = '{ packages(limit: 1, seed: 1) { results { title } } }';
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const graphqlGet = (query: string): HttpRequest => ({
  method: 'GET',
  path: `/graphql?query=${encodeURIComponent(query)}`,
  headers: {},
});

/** The ok purges both instances have sent, from their /metrics. */
async function purgesSent(fleet: EdgeFleet): Promise<number> {
  let total = 0;
  for (const origin of fleet.origins) {
    const text = await (await fetch(`${origin}/metrics`)).text();
    total += Number(/^cdn_purges_total\{outcome="ok"\} (\d+)/m.exec(text)?.[1] ?? 0);
  }
  return total;
}

async function waitFor(what: string, ms: number, done: () => Promise<boolean>): Promise<number> {
  const started = Date.now();
  while (!(await done())) {
    if (Date.now() - started > ms) throw new Error(`${what}: not within ${ms} ms`);
    await sleep(50);
  }
  return Date.now() - started;
}

/**
 * An import with every title changed, then its purge window: until both instances answer with the new titles
 * and one has purged the old version, then `windowMs`. Meanwhile requests keep going through the edge,
 * held only to the private values' rule: the sequence's requests so far, and pages no one asked before (misses),
 * with every answer held `linkDelayMs` on its way back to Varnish, so that one made from the old version just
 * before the commit reaches Varnish after the first purge (the race). After the window each of them must be
 * answered as an instance answers it.
 */
export async function importAndWait(c: WindowContext, earlier: Ask[]): Promise<void> {
  const { fleet, figures } = c;
  const started = Date.now();
  figures.imports++;
  const mark = `Imported ${figures.imports} `;
  const records = [...generatePackages({ count: c.packages })].map((r) => ({ ...r, title: `${mark}${r.title}` }));
  const file = join(c.work, `import-${figures.imports}.json`);
  writeFileSync(file, JSON.stringify(records));
  const purgedBefore = await purgesSent(fleet);
  const window = { open: true, firstPurgeAt: Number.POSITIVE_INFINITY, mark, fresh: [] as Ask[] };
  const asks = earlier.filter((ask) => !isSubscription(ask));
  for (const link of fleet.links) link.setDelay(c.linkDelayMs);
  const probes = [0, 1, 2].map((first) => probe(c, asks, first, window));
  try {
    const result = await runScript('src/cli/import.ts', { DATABASE_URL: fleet.databaseUrl }, [file]);
    if (result.code !== 0) throw new Error(`import failed: ${result.stderr}`);
    const committed = Date.now();
    for (const origin of fleet.origins) {
      await waitFor(`${origin} answering with the new titles`, 10_000, async () =>
        decoded(await c.send(origin, graphqlGet(TITLE_QUERY), 'first-event')).includes(mark),
      );
    }
    figures.newVersionMs.push(Date.now() - committed);
    await waitFor('a purge of the old version', 10_000, async () => (await purgesSent(fleet)) > purgedBefore);
    window.firstPurgeAt = Date.now();
    figures.firstPurgeMs.push(window.firstPurgeAt - committed);
    await sleep(c.windowMs);
  } finally {
    window.open = false;
    for (const link of fleet.links) link.setDelay(0);
    await Promise.all(probes);
  }
  await c.afterImport();
  const seen = new Set<string>();
  for (const ask of [...asks, ...window.fresh]) {
    const request = requestOf(ask, fleet.privateKey, 'window');
    if (seen.has(JSON.stringify(request))) continue;
    seen.add(JSON.stringify(request));
    await c.askBoth(ask, request, `after purge window ${figures.imports}`, JSON.stringify(ask));
  }
  figures.importsMs += Date.now() - started;
}

interface Window {
  open: boolean;
  firstPurgeAt: number;
  mark: string;
  /** The pages first asked inside the window. */
  fresh: Ask[];
}

let freshPages = 0;
/** A page of either door that no one has asked for before: a miss at the edge, kept once answered. */
function freshPage(): Ask {
  freshPages++;
  const [door, what] =
    freshPages % 2 === 0
      ? (['v2', `?limit=2&seed=${freshPages}`] as const)
      : (['graphql', `{ packages(limit: 2, seed: ${freshPages}) { results { id title } } }`] as const);
  return { kind: 'ask', door, method: 'GET', what, carrier: 'text', persisted: 'shared', key: false };
}

/** One of the window's request loops: an earlier request, then a fresh page, and so on. */
async function probe(c: WindowContext, asks: Ask[], first: number, window: Window): Promise<void> {
  const { fleet, figures } = c;
  for (let i = first; window.open; i++) {
    const earlier = i % 2 === 0 ? asks[(i / 2) % asks.length] : undefined;
    const ask = earlier ?? freshPage();
    if (!earlier) window.fresh.push(ask);
    const answer = await c.send(fleet.edge, requestOf(ask, fleet.privateKey, 'window'), 'first-event');
    figures.windowRequests++;
    c.checkPrivate(ask, answer, `inside purge window ${figures.imports}: ${c.describeAsk(ask)}`);
    const text = answer.status === 200 ? decoded(answer) : '';
    if (Date.now() > window.firstPurgeAt && text.includes('"title"') && !text.includes(window.mark)) {
      if (answer.headers['x-edge-cache'] === 'hit') figures.oldHitsAfterFirstPurge++;
      else figures.oldAnswersAfterFirstPurge++;
    }
    await sleep(20);
  }
}
