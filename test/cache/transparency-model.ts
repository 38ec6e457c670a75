// The requests of the cache's property test (transparency.test.ts), as fast-check arbitraries, and the rule they
// are held to: with the response cache on, every answer is the one the server gives with it off.
import { createHash, randomBytes } from 'node:crypto';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import fc from 'fast-check';
import type { Exchange } from '../helpers/http-server.js';
import { type HeaderDraws, type HeaderName, headerChange, headerFields, headerValue } from './transparency-headers.js';

/** A request as plain data, so a failing sequence prints readably; its headers as drawn (transparency-headers.ts). */
export interface Ask extends HeaderDraws {
  kind: 'ask';
  pair: 'A' | 'B';
  method: 'GET' | 'HEAD' | 'OPTIONS' | 'POST';
  path: string;
  body?: string;
  forwarded: 'none' | 'forwarded-host' | 'forwarded-proto' | 'host';
  /**
   * It registers a persisted query: sent to every server, since A and B share their registered documents through
   * Redis and the servers with the cache off must know the same ones.
   */
  registers?: boolean;
}

/**
 * A write between requests: a package's price changes (the listing version moves, earlier ETags go stale). With
 * `during`, the import runs while the next request is being answered.
 */
export interface Change {
  kind: 'change';
  index: number;
  cents: number;
  during: boolean;
}

/**
 * An earlier request of the sequence sent again (`back` counts back from the last, modulo their number), to either
 * instance, with an If-None-Match of its own and, at times, one other header changed: what makes hits, hits
 * across instances, stale tags and near misses common.
 */
export interface Again {
  kind: 'again';
  back: number;
  /** The instance it goes to: `same`, the one the earlier request went to. */
  pair: Ask['pair'] | 'same';
  ifNoneMatch: string | undefined;
  change: { header: HeaderName; value: string | undefined } | undefined;
}

/**
 * A GraphQL request of automatic persisted queries (Apollo's protocol), over GET or POST: `register` sends a
 * document with its hash; `registered` sends only the hash of a document registered earlier in the sequence
 * (`back` counts back from the last registration; with none yet, its own document is registered first, as an APQ
 * client does on its first PersistedQueryNotFound); `unknown` a hash never registered.
 */
export interface Persisted extends HeaderDraws {
  kind: 'persisted';
  how: 'register' | 'registered' | 'unknown';
  document: number;
  back: number;
  post: boolean;
  pair: Ask['pair'];
  forwarded: Ask['forwarded'];
}

export type Action = Ask | Change | Again | Persisted;

const INTEGERS = [
  '2',
  '1',
  '0',
  '-1',
  '100',
  `1${'0'.repeat(30)}`,
  'abc',
  '',
  '%205%20',
  '%1C5',
  '1_0',
  '%D9%A1%D9%A2',
];
const SEEDS = ['7', '0', '-3', '2147483648', 'abc', '', '%1C7', '7%23', '%205'];

const maybe = (values: string[]) => fc.option(fc.constantFrom(...values), { nil: undefined });

/** A v2 query string of every class the contract names: absent, valid, out of range, malformed, repeated. */
const v2Query = fc
  .record({
    limit: maybe(INTEGERS),
    offset: maybe(INTEGERS),
    seed: maybe(SEEDS),
    format: maybe(['json', 'api', '', 'xml']),
    extra: fc.boolean(),
    repeatLimit: fc.boolean(),
  })
  .map(({ limit, offset, seed, format, extra, repeatLimit }) => {
    const parts: string[] = [];
    if (limit !== undefined) parts.push(`limit=${limit}`);
    if (repeatLimit) parts.push('limit=3');
    if (offset !== undefined) parts.push(`offset=${offset}`);
    if (seed !== undefined) parts.push(`seed=${seed}`);
    if (format !== undefined) parts.push(`format=${format}`);
    if (extra) parts.push('x=a%20b');
    return parts.length > 0 ? `?${parts.join('&')}` : '';
  });

/** Pages a client asks for most: valid and seeded, so they are kept and their requests' parts remembered. */
const V2_PAGES = ['?limit=1&seed=901', '?limit=2&seed=7', '?limit=3&offset=2&seed=11', '?limit=5&seed=5'];

/** GraphQL documents that always fix the seed (an answer chosen at random differs between servers by nature). */
export const DOCUMENTS = [
  '{ packages(limit: 3, seed: 7) { count results { id title price } } }',
  '{ packages(limit: 2, offset: 2, seed: 11) { count seed results { id urlSlug } } }',
  '{ packages(limit: 2, seed: 5) { results { id photographerEmail } } }',
  '{ packagesConnection(first: 2, seed: 3) { totalCount edges { cursor node { id } } } }',
  '{ __typename }',
  '{ packages(limit: 2, seed: 1) { nope } }',
  'mutation { nope }',
  '{ packages(limit: 500, seed: 1) { count } }',
];

const graphqlGet = fc.constantFrom(...DOCUMENTS).map((query) => `/graphql?query=${encodeURIComponent(query)}`);

const pair = fc.constantFrom('A' as const, 'B' as const);
/** Two requests in three send their headers as a client does (each absent or valid), one draws every class. */
const style = fc.constantFrom('client' as const, 'client' as const, 'any' as const);
const forwarded = fc.constantFrom('none', 'none', 'forwarded-host', 'forwarded-proto', 'host') as fc.Arbitrary<
  Ask['forwarded']
>;

/** If-None-Match as clients send it: absent, or a tag they were given (the last, or one before a change), or `*`. */
const ifNoneMatchAsClients = headerFields('graphql', false, 'client').ifNoneMatch;

export const action: fc.Arbitrary<Action> = fc.oneof(
  { weight: 12, arbitrary: ask() },
  {
    weight: 14,
    arbitrary: fc.record({
      kind: fc.constant('again' as const),
      back: fc.nat(3),
      pair: fc.constantFrom('same' as const, 'same' as const, 'A' as const, 'B' as const),
      ifNoneMatch: fc.oneof({ withCrossShrink: true }, ifNoneMatchAsClients, headerValue('ifNoneMatch')),
      change: fc.option(headerChange, { nil: undefined, freq: 4 }),
    }),
  },
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant('change' as const),
      index: fc.nat(9),
      cents: fc.nat(99_999),
      during: fc.boolean(),
    }),
  },
  {
    weight: 6,
    arbitrary: fc.tuple(fc.boolean(), style).chain(([post, headers]) =>
      fc.record({
        kind: fc.constant('persisted' as const),
        how: fc.constantFrom('registered', 'register', 'registered', 'unknown') as fc.Arbitrary<Persisted['how']>,
        document: fc.nat(DOCUMENTS.length - 1),
        back: fc.nat(2),
        post: fc.constant(post),
        pair,
        forwarded,
        ...headerFields('graphql', post, headers),
      }),
    ),
  },
);

function ask(): fc.Arbitrary<Ask> {
  const common = { kind: fc.constant('ask' as const), pair, forwarded };
  const read = fc.constantFrom('GET' as const, 'GET' as const, 'HEAD' as const, 'OPTIONS' as const);
  const v2Path = fc.oneof(v2Query, fc.constantFrom(...V2_PAGES));
  const v2 = style.chain((headers) =>
    fc.record({
      ...common,
      ...headerFields('v2', false, headers),
      method: read,
      path: v2Path.map((q) => `/v2/local-package-list/${q}`),
    }),
  );
  const get = style.chain((headers) =>
    fc.record({ ...common, ...headerFields('graphql', false, headers), method: read, path: graphqlGet }),
  );
  const post = style.chain((headers) =>
    fc.record({
      ...common,
      ...headerFields('graphql', true, headers),
      method: fc.constant('POST' as const),
      path: fc.constant('/graphql'),
      body: fc.constantFrom(...DOCUMENTS).map((query) => JSON.stringify({ query })),
    }),
  );
  return fc.oneof({ weight: 5, arbitrary: v2 }, { weight: 3, arbitrary: get }, { weight: 1, arbitrary: post });
}

/**
 * Documents registered by this process carry its own mark: Redis keeps registrations across runs, and a document
 * A and B found there that the servers with the cache off never saw would differ for a reason of its own.
 */
const MARK = `# ${randomBytes(6).toString('hex')}`;
/** The document a persisted query registers: one of DOCUMENTS, marked. */
export const registeredDocument = (index: number) => `${DOCUMENTS[index % DOCUMENTS.length]}\n${MARK}`;

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
const hashed = (hash: string) => ({ persistedQuery: { version: 1, sha256Hash: hash } });

/** The request a persisted-query action makes, given the documents registered before it in the sequence. */
function persistedAsk(step: Persisted, registered: string[]): Ask {
  const { kind: _, how, document: index, back, post, ...rest } = step;
  const base = { ...rest, kind: 'ask' as const };
  const document =
    how === 'registered' ? registered[registered.length - 1 - (back % Math.max(registered.length, 1))] : undefined;
  const query = how === 'register' ? registeredDocument(index) : undefined;
  const hash = sha256(query ?? document ?? `# a document never registered, ${index}`);
  const params = { ...(query !== undefined && { query }), extensions: hashed(hash) };
  if (post) return { ...base, method: 'POST', path: '/graphql', body: JSON.stringify(params), registers: !!query };
  const search = new URLSearchParams({ ...params, extensions: JSON.stringify(params.extensions) });
  return { ...base, method: 'GET', path: `/graphql?${search}`, registers: !!query };
}

/** The sequence as requests and changes: `again` made the earlier request it names, persisted queries made. */
export function resolved(actions: Action[]): (Ask | Change)[] {
  const asks: Ask[] = [];
  const registered: string[] = [];
  const steps: (Ask | Change)[] = [];
  for (const step of actions) {
    if (step.kind === 'change') {
      steps.push(step);
      continue;
    }
    let made: Ask | undefined;
    if (step.kind === 'again') {
      const earlier = asks[asks.length - 1 - (step.back % Math.max(asks.length, 1))];
      const changed = step.change && { [step.change.header]: step.change.value };
      const pair = step.pair === 'same' ? earlier?.pair : step.pair;
      if (earlier && pair) made = { ...earlier, pair, ifNoneMatch: step.ifNoneMatch, ...changed };
    } else if (step.kind === 'persisted') {
      const registers = step.how === 'register' || (step.how === 'registered' && registered.length === 0);
      if (registers) {
        const registration = persistedAsk({ ...step, how: 'register' }, registered);
        registered.push(registeredDocument(step.document));
        if (step.how !== 'register') {
          asks.push(registration);
          steps.push(registration);
        }
      }
      made = persistedAsk(step, registered);
    } else made = step;
    if (!made) continue;
    asks.push(made);
    steps.push(made);
  }
  return steps;
}

/** The coding a body was sent in, decoded. */
export function decoded(exchange: Exchange): Buffer {
  const coding = exchange.headers['content-encoding'];
  if (!coding || exchange.body.length === 0) return exchange.body;
  if (coding === 'br') return brotliDecompressSync(exchange.body);
  if (coding === 'gzip') return gunzipSync(exchange.body);
  throw new Error(`unknown Content-Encoding ${coding}`);
}

const IGNORED = new Set([
  'date',
  'x-request-id',
  'etag',
  'cache-control',
  'x-cache',
  // What a CDN is told (src/cache/surrogate-keys.ts): only the cache knows the version an answer was made from.
  'surrogate-key',
  'cache-tag',
  'surrogate-control',
  'age',
  'content-length',
  'transfer-encoding',
  'connection',
  'keep-alive',
]);

const comparableHeaders = (exchange: Exchange) =>
  Object.fromEntries(
    Object.entries(exchange.headers)
      .filter(([name]) => !IGNORED.has(name))
      .sort(),
  );

/**
 * The body's bytes (one character each) with each server's own host:port and, for a seed chosen at random, that
 * seed made neutral.
 */
function comparableBody(body: Buffer, origin: string, randomSeed: boolean): string {
  let text = body.toString('latin1').replaceAll(new URL(origin).host, 'SERVER');
  if (!randomSeed) return text;
  const page = JSON.parse(Buffer.from(text, 'latin1').toString('utf8')) as {
    count: number;
    results: unknown[];
    next: string | null;
    previous: string | null;
  };
  const neutral = (link: string | null) => (link === null ? null : link.replace(/seed=-?\d+/, 'seed=S'));
  text = JSON.stringify({
    count: page.count,
    length: page.results.length,
    next: neutral(page.next),
    previous: neutral(page.previous),
  });
  return text;
}

const opaque = (tag: string) => tag.trim().replace(/^W\//, '');

/**
 * What is wrong with the cache-on answer `on` against the cache-off answer `off` to the same request, or null:
 * the same status, the same headers (Content-Encoding included) but the cache's own and the framing, the same
 * bytes once decoded; or a 304 that stands for the 200 the cache-off server gives. `ifNoneMatch` is the header
 * as sent (`staleTag`: it names only a tag made before the listing last changed); `origins` each server's own
 * address.
 */
export function difference(
  ask: Ask,
  sent: { ifNoneMatch: string | undefined; staleTag: boolean },
  on: Exchange,
  off: Exchange,
  origins: { on: string; off: string },
): string | null {
  if (on.status === 304) {
    if (sent.staleTag) return `304 for ${sent.ifNoneMatch}, a tag of an earlier version of the listing`;
    if (off.status !== 200) return `304 where the cache-off server answers ${off.status}`;
    if (ask.method !== 'GET' && ask.method !== 'HEAD') return `304 to ${ask.method}`;
    const etag = on.headers.etag;
    if (!etag || sent.ifNoneMatch === undefined) return '304 without an ETag, or to a request without If-None-Match';
    const tags = sent.ifNoneMatch.trim() === '*' ? ['*'] : sent.ifNoneMatch.split(',').map(opaque);
    if (!tags.includes('*') && !tags.includes(etag))
      return `304 for ETag ${etag}, which ${sent.ifNoneMatch} does not list`;
    return null;
  }
  if (on.status !== off.status) return `status ${on.status}, cache off ${off.status}`;
  const [a, b] = [comparableHeaders(on), comparableHeaders(off)];
  if (JSON.stringify(a) !== JSON.stringify(b)) return `headers ${JSON.stringify(a)}, cache off ${JSON.stringify(b)}`;
  const randomSeed =
    ask.path.startsWith('/v2/') && !/[?&]seed=/.test(ask.path) && on.status === 200 && ask.method === 'GET';
  const [x, y] = [
    comparableBody(decoded(on), origins.on, randomSeed),
    comparableBody(decoded(off), origins.off, randomSeed),
  ];
  if (x === y) return null;
  let at = 0;
  while (x[at] === y[at]) at++;
  const around = (text: string) => JSON.stringify(text.slice(Math.max(0, at - 60), at + 100));
  return `bodies differ from byte ${at} (of ${x.length} and ${y.length}): ${around(x)}, cache off ${around(y)}`;
}
