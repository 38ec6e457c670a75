// The fleet soak's load through HAProxy: a mix of v2 pages and GraphQL pages, with and without a seed, some from
// a small set of pages asked again and again (kept by the response cache), most new; each answer checked by the
// fleet test's `ask` (200, a whole page, one listing version). First a closed loop measures what the fleet
// serves; then an open loop sends at a set rate, whatever the answers do, as independent clients would.
import { type Ask, ask, type Outcome } from '../../test/fleet/load.js';

export type Kind = 'v2 cached' | 'v2 seeded' | 'v2 unseeded' | 'graphql cached' | 'graphql seeded' | 'graphql post';

export interface Sent extends Outcome {
  kind: Kind;
}

const LIMIT = 20;
/** Each client's turn through the kinds: half v2, half GraphQL; 4 of 10 from the small cached set. */
const ROTATION: Kind[] = [
  'v2 cached',
  'graphql seeded',
  'v2 seeded',
  'graphql cached',
  'v2 unseeded',
  'graphql post',
  'v2 cached',
  'graphql cached',
  'v2 seeded',
  'graphql seeded',
];

const graphqlPage = (offset: number, seed: number | undefined) =>
  `{ packages(limit: ${LIMIT}, offset: ${offset}${seed === undefined ? '' : `, seed: ${seed}`}) { count results { id title } } }`;

/** The n-th request of the mix, over a listing of `packages`. */
export function nthAsk(n: number, packages: number): Ask & { kind: Kind } {
  const kind = ROTATION[n % ROTATION.length] as Kind;
  // A cheap, repeatable spread (Knuth's multiplicative hash): the same run asks the same pages.
  const spread = (n * 2654435761) >>> 0;
  const pages = Math.max(1, Math.floor(packages / LIMIT));
  const cached = kind.endsWith('cached');
  const offset = LIMIT * (cached ? spread % 3 : spread % pages);
  const seed = cached ? 1 + (spread % 4) : 1 + (spread % 100_000);
  switch (kind) {
    case 'v2 cached':
    case 'v2 seeded':
      return { kind, path: `/v2/local-package-list/?limit=${LIMIT}&offset=${offset}&seed=${seed}` };
    case 'v2 unseeded':
      return { kind, path: `/v2/local-package-list/?limit=${LIMIT}&offset=${offset}` };
    case 'graphql cached':
    case 'graphql seeded':
      return { kind, path: `/graphql?query=${encodeURIComponent(graphqlPage(offset, seed))}` };
    case 'graphql post':
      return { kind, path: '/graphql', body: JSON.stringify({ query: graphqlPage(offset, undefined) }) };
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** `clients` asking one request after another for `ms`: the answers per second the fleet gives at most. */
export async function closedLoop(base: string, packages: number, mark: string, clients: number, ms: number) {
  let n = 0;
  let answered = 0;
  const until = Date.now() + ms;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: clients }, async () => {
      while (Date.now() < until) {
        const outcome = await ask(base, nthAsk(n++, packages), mark);
        if (outcome.ok) answered++;
      }
    }),
  );
  return { perSecond: answered / ((performance.now() - started) / 1000), requests: n };
}

export interface OpenLoop {
  /** Every request sent so far, answered or failed. */
  sent: Sent[];
  /** Stops sending and resolves once every request sent has its answer (or its timeout). */
  stop(): Promise<Sent[]>;
}

/** Requests sent at `perSecond`, each on its own; past `maxInFlight` unanswered, a request is counted failed unsent. */
export function openLoop(base: string, packages: number, mark: string, perSecond: number, maxInFlight = 256): OpenLoop {
  const sent: Sent[] = [];
  const pending = new Set<Promise<void>>();
  const started = Date.now();
  let n = 0;
  let running = true;
  const send = () => {
    const page = nthAsk(n++, packages);
    if (pending.size >= maxInFlight) {
      const problem = `not sent: ${maxInFlight} requests unanswered`;
      sent.push({ at: Date.now(), ms: 0, ok: false, mixed: false, version: undefined, problem, kind: page.kind });
      return;
    }
    const request = ask(base, page, mark).then((outcome) => {
      sent.push({ ...outcome, kind: page.kind });
      pending.delete(request);
    });
    pending.add(request);
  };
  const ticking = (async () => {
    while (running) {
      const due = Math.floor(((Date.now() - started) * perSecond) / 1000);
      while (n < due) send();
      await sleep(5);
    }
  })();
  return {
    sent,
    async stop() {
      running = false;
      await ticking;
      await Promise.all(pending);
      return sent;
    },
  };
}
