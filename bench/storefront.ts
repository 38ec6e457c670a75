// `npm run bench:storefront`: what a shopper's browser pays for the web storefront (examples/storefront/web) at
// 100,000 packages on PostgreSQL: requests, bytes on the wire and time until the first 24 cards are drawn, on a cold
// visit (an empty browser cache) and on warm ones (the same browser again, within the answers' max-age and past
// it), and the search's answer time per keystroke. Debian's Chromium (playwright-core) drives the page; the gateway
// (`node dist/server.js`) and the storefront's server run as processes of their own, on free ports. It reads the
// bench database and writes nothing to it; its figures go in their own section of bench/results.md
// (`## Storefront in Chromium`), which `npm run bench` leaves alone.
//   BENCH_DATABASE_URL     the database (default postgresql://postgres@127.0.0.1:5432/bench; 100,000 packages)
//   BENCH_VISITS           visits of each kind (default 5)
//   STOREFRONT_SCREENSHOTS a folder for screenshots of the pages at that size (none by default)
import { mkdirSync } from 'node:fs';
import type { Browser, CDPSession, Page } from 'playwright-core';
import { launchChromium } from '../test/helpers/chromium.js';
import { startStorefrontProcess } from '../test/helpers/storefront-process.js';
import { commit, machine } from './environment.js';
import { freePort, ROOT, runScript, sleep, startOptions, startProcess } from './harness.js';
import { STOREFRONT_HEADING, writeStorefrontResults } from './report.js';

const DATABASE_URL = process.env.BENCH_DATABASE_URL || 'postgresql://postgres@127.0.0.1:5432/bench';
const VISITS = Number(process.env.BENCH_VISITS ?? 5);
const SHOTS = process.env.STOREFRONT_SCREENSHOTS;
const SEARCH = 'golden hour';
/** Between keystrokes: longer than the storefront's pause before it searches (200 ms), so each one searches. */
const KEY_GAP_MS = 400;

interface Visit {
  /** The types of the requests, as Chromium names them (Document, Script, Fetch, EventSource, ...). */
  types: string[];
  requests: number;
  bytes: number;
  ms: number;
  images: number;
}

interface Seen {
  type: string;
  url: string;
  /** Answered by the browser's cache: no request went out. */
  cached: boolean;
  bytes: number;
  started: number;
  ended?: number;
}

/**
 * The page's network as Chromium reports it, from now until `stop()`: per request its type, whether a cache
 * answered, its bytes and times. (Stopped, its listeners stay attached but record nothing.)
 */
function network(cdp: CDPSession): { requests: Map<string, Seen>; stop(): void } {
  const requests = new Map<string, Seen>();
  let stopped = false;
  const seen = (id: string) => (stopped ? undefined : requests.get(id));
  cdp.on('Network.requestWillBeSent', (event) => {
    if (!stopped)
      requests.set(event.requestId, {
        type: event.type ?? 'Other',
        url: event.request.url,
        cached: false,
        bytes: 0,
        started: event.timestamp,
      });
  });
  cdp.on('Network.requestServedFromCache', (event) => {
    const request = seen(event.requestId);
    if (request) request.cached = true;
  });
  cdp.on('Network.responseReceived', (event) => {
    const request = seen(event.requestId);
    if (request && (event.response.fromDiskCache || event.response.fromPrefetchCache)) request.cached = true;
  });
  cdp.on('Network.dataReceived', (event) => {
    const request = seen(event.requestId);
    if (request) request.bytes += event.encodedDataLength;
  });
  cdp.on('Network.loadingFinished', (event) => {
    const request = seen(event.requestId);
    if (!request) return;
    request.bytes = event.encodedDataLength; // headers and body as they came over the wire
    request.ended = event.timestamp;
  });
  return {
    requests,
    stop: () => {
      stopped = true;
    },
  };
}

/**
 * Put in every page before its own script: the moment the cards are drawn, as the page's clock reads it (ms since
 * the navigation began), and how many times they have been. The page's Content-Security-Policy refuses string
 * evaluation (Playwright's waitForFunction), so the bench polls these with evaluate, which it does not refuse.
 */
const WATCH_CARDS = `addEventListener('DOMContentLoaded', () => {
  const cards = document.getElementById('cards');
  window.redraws = 0;
  new MutationObserver(() => {
    window.redraws++;
    window.drawnAt = performance.now();
    if (!window.cardsAt && cards.children.length >= 24 && !cards.hasAttribute('aria-busy')) window.cardsAt = window.drawnAt;
  }).observe(cards, { childList: true, attributes: true });
});`;

/** Polls `expression` in the page until it is truthy; resolves with its value. */
async function until<T>(page: Page, expression: string): Promise<T> {
  for (const started = Date.now(); Date.now() - started < 60_000; await sleep(20)) {
    const value = (await page.evaluate(expression)) as T;
    if (value) return value;
  }
  throw new Error(`not within 60 s: ${expression}`);
}

/** One visit of `url` in `page`: until 24 cards are drawn, what went over the network and how long it took. */
async function visit(page: Page, cdp: CDPSession, url: string): Promise<Visit> {
  const { requests, stop } = network(cdp);
  await page.goto(url, { waitUntil: 'commit' });
  const ms = await until<number>(page, 'window.cardsAt');
  stop(); // what the page asked for later (images aside) is not the cards'
  const all = [...requests.values()].filter((request) => !request.cached);
  const pageRequests = all.filter((request) => request.type !== 'Image');
  return {
    // Chromium's type, and for "Other" its path (the favicon, a CORS preflight, ...).
    types: pageRequests.map((r) => (r.type === 'Other' ? `Other ${new URL(r.url).pathname}` : r.type)),
    requests: pageRequests.length,
    bytes: pageRequests.reduce((sum, request) => sum + request.bytes, 0),
    ms,
    images: all.length - pageRequests.length,
  };
}

async function newPage(browser: Browser): Promise<{ page: Page; cdp: CDPSession; close(): Promise<void> }> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  await context.addInitScript(WATCH_CARDS);
  const page = await context.newPage();
  const cdp = await context.newCDPSession(page);
  await cdp.send('Network.enable');
  return { page, cdp, close: () => context.close() };
}

/** Per keystroke of SEARCH typed into the search box: from the key to the cards drawn, and the query's own time. */
async function searchKeystrokes(page: Page, cdp: CDPSession): Promise<{ toCards: number[]; answer: number[] }> {
  const { requests, stop } = network(cdp);
  await page.locator('#q').click();
  const toCards: number[] = [];
  for (const key of SEARCH) {
    const [redraws, pressed] = (await page.evaluate('[window.redraws, performance.now()]')) as [number, number];
    await page.keyboard.type(key);
    const drawn = await until<number>(
      page,
      `window.redraws > ${redraws} && !document.querySelector('#cards[aria-busy]') && window.drawnAt`,
    );
    toCards.push(drawn - pressed);
    await sleep(KEY_GAP_MS);
  }
  const answer = [...requests.values()]
    .filter((request) => request.type === 'Fetch' && !request.cached && request.ended !== undefined)
    .map((request) => ((request.ended as number) - request.started) * 1000);
  stop();
  return { toCards, answer };
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor((values.length - 1) / 2)] ?? 0;
const max = (values: number[]) => Math.max(...values);
const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} KB`;
const ms = (value: number) => `${Math.round(value)} ms`;

function row(label: string, visits: Visit[]): string {
  const pick = (key: Exclude<keyof Visit, 'types'>) => visits.map((v) => v[key]);
  return `| ${label} | ${median(pick('requests'))} | ${kb(median(pick('bytes')))} | ${ms(median(pick('ms')))} | ${ms(max(pick('ms')))} | ${median(pick('images'))} |`;
}

async function main(): Promise<void> {
  const startedAt = new Date();
  const env = { DATABASE_URL };
  const { listed } = JSON.parse(await runScript('bench/prepare.ts', ['count'], env)) as { listed: number };
  console.log(`bench database: ${listed.toLocaleString('en')} listed packages`);
  const port = await freePort();
  const gateway = await startProcess(
    'dist/server.js',
    { ...env, PORT: String(port), LOG_LEVEL: 'warn', RATE_LIMIT: '0' },
    `http://127.0.0.1:${port}`,
    startOptions(),
  );
  const storefront = await startStorefrontProcess(gateway.url);
  const browser = await launchChromium();
  try {
    // A shopper before them registers the storefront's documents (APQ), as on any gateway that has served it.
    const first = await newPage(browser);
    await first.page.goto(`${storefront.url}/`);
    await until(first.page, 'window.cardsAt');
    await first.page.locator('#more').click();
    await first.page.locator('#q').fill('a');
    await until(first.page, `new URLSearchParams(location.search).get('q') === 'a' && window.redraws > 2`);
    await first.close();

    const cold: Visit[] = [];
    const warm: Visit[] = [];
    const revalidated: Visit[] = [];
    let keystrokes = { toCards: [] as number[], answer: [] as number[] };
    for (let n = 0; n < VISITS; n++) {
      const shopper = await newPage(browser);
      // A first visit: no seed yet, so the gateway draws one of its pool's (what a CDN keeps for first visitors).
      cold.push(await visit(shopper.page, shopper.cdp, `${storefront.url}/`));
      const url = shopper.page.url();
      await sleep(1000);
      warm.push(await visit(shopper.page, shopper.cdp, url));
      await sleep(5500); // past the answers' max-age (CACHE_CONTROL's 5 s): the browser asks with their ETags
      revalidated.push(await visit(shopper.page, shopper.cdp, url));
      if (n === 0) {
        if (SHOTS) {
          mkdirSync(SHOTS, { recursive: true });
          await shopper.page.screenshot({ path: `${SHOTS}/listing-100k.png` });
        }
        keystrokes = await searchKeystrokes(shopper.page, shopper.cdp);
        if (SHOTS) await shopper.page.screenshot({ path: `${SHOTS}/search-100k.png` });
        if (SHOTS) {
          await shopper.page.locator('#cards .card a').first().click();
          await shopper.page.locator('#package .part').first().waitFor();
          await shopper.page.screenshot({ path: `${SHOTS}/package-100k.png`, fullPage: true });
        }
      }
      await shopper.close();
    }

    const section = [
      `${STOREFRONT_HEADING}, ${startedAt.toISOString().slice(0, 16).replace('T', ' ')} UTC, commit ${commit()}`,
      '',
      `Written by \`npm run bench:storefront\` (bench/storefront.ts). The web storefront (examples/storefront/web, docs/storefront.md) in Debian's Chromium, headless, 1280x900, against the gateway on PostgreSQL with ${listed.toLocaleString('en')} listed packages (\`node dist/server.js\`, its defaults but RATE_LIMIT=0, no CDN in front); ${VISITS} visits of each kind, each in a browser of its own after one shopper who registered the storefront's documents. Loopback: the times are the gateway's, the browser's and this machine's, not a network's.`,
      '',
      `Machine: ${machine()}.`,
      '',
      'Requests and bytes (headers and bodies as they went over the wire, compressed) are those before the 24 cards were drawn: the page, its script and stylesheet, the GraphQL query and the event stream; the images the cards then ask for are counted apart (the demo images are SVG placeholders the storefront draws). Medians, and the slowest of the visits.',
      '',
      '| visit | requests | bytes | time to 24 cards | slowest | then images |',
      '|---|--:|--:|--:|--:|--:|',
      row('cold: an empty browser cache, no seed yet', cold),
      row('warm: the same browser 1 s later (answers within max-age)', warm),
      row('warm: the same browser 5.5 s later (answers revalidated, 304)', revalidated),
      '',
      `The cold visit's requests: ${cold[0]?.types.join(', ')}; the warm ones': ${warm[0]?.types.join(', ')} (the script and stylesheet come from the browser's cache; a visit after the first asks its cards by the seed the first was given, a URL of its own).`,
      '',
      `Search as typed, "${SEARCH}" a key every ${KEY_GAP_MS} ms (each key a search, facets and relevance order included): from the key to the cards drawn, median ${ms(median(keystrokes.toCards))}, slowest ${ms(max(keystrokes.toCards))} (of which 200 ms is the storefront's pause before it searches); the query itself, request to last byte, median ${ms(median(keystrokes.answer))}, slowest ${ms(max(keystrokes.answer))} (${keystrokes.answer.length} queries). Key by key, to the cards: ${keystrokes.toCards.map((time, i) => `${JSON.stringify(SEARCH.slice(0, i + 1))} ${ms(time)}`).join(', ')}.`,
    ].join('\n');
    console.log(`\n${section}\n`);
    console.log(`written to ${writeStorefrontResults(`${ROOT}bench`, section)}`);
  } finally {
    await browser.close();
    await storefront.stop();
    await gateway.stop();
  }
}

await main();
