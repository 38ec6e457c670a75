// The requests of the cache's property test (transparency.test.ts), as fast-check arbitraries, and the rule they
// are held to: with the response cache on, every answer is the one the server gives with it off.
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import fc from 'fast-check';
import type { Exchange } from '../helpers/http-server.js';

/** A request as plain data, so a failing sequence prints readably. */
export interface Ask {
  kind: 'ask';
  pair: 'A' | 'B';
  method: 'GET' | 'HEAD' | 'OPTIONS' | 'POST';
  path: string;
  body?: string;
  accept?: string;
  acceptEncoding?: string;
  ifNoneMatch: 'none' | '*' | 'seen' | 'stale' | 'made-up' | 'weak-seen' | 'list';
  forwarded: 'none' | 'forwarded-host' | 'forwarded-proto' | 'host';
  auth: 'none' | 'private' | 'v2' | 'wrong';
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
 * instance, with an If-None-Match of its own: what makes hits, hits across instances and stale tags common.
 */
export interface Again {
  kind: 'again';
  back: number;
  pair: Ask['pair'];
  ifNoneMatch: Ask['ifNoneMatch'];
}

export type Action = Ask | Change | Again;

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

/** GraphQL documents that always fix the seed (an answer chosen at random differs between servers by nature). */
const DOCUMENTS = [
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

const ifNoneMatch = fc.constantFrom(
  'none',
  'none',
  '*',
  'seen',
  'stale',
  'made-up',
  'weak-seen',
  'list',
) as fc.Arbitrary<Ask['ifNoneMatch']>;
const pair = fc.constantFrom('A' as const, 'B' as const);

export const action: fc.Arbitrary<Action> = fc.oneof(
  { weight: 12, arbitrary: ask() },
  { weight: 10, arbitrary: fc.record({ kind: fc.constant('again' as const), back: fc.nat(3), pair, ifNoneMatch }) },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('change' as const),
      index: fc.nat(9),
      cents: fc.nat(99_999),
      during: fc.boolean(),
    }),
  },
);

function ask(): fc.Arbitrary<Ask> {
  const common = {
    kind: fc.constant('ask' as const),
    pair,
    accept: maybe([
      '',
      '*/*',
      'application/json',
      'application/json; indent=4',
      'text/html',
      'text/html, application/json;q=0.5',
      'application/xml',
    ]),
    acceptEncoding: maybe(['identity', 'gzip', 'br', 'gzip, deflate, br', 'br;q=0, gzip', '*', '*;q=0', 'gzip;q=0']),
    ifNoneMatch,
    forwarded: fc.constantFrom('none', 'none', 'forwarded-host', 'forwarded-proto', 'host') as fc.Arbitrary<
      Ask['forwarded']
    >,
    auth: fc.constantFrom('none', 'none', 'private', 'v2', 'wrong') as fc.Arbitrary<Ask['auth']>,
  };
  const read = fc.constantFrom('GET' as const, 'GET' as const, 'HEAD' as const, 'OPTIONS' as const);
  const v2 = fc.record({ ...common, method: read, path: v2Query.map((q) => `/v2/local-package-list/${q}`) });
  const get = fc.record({ ...common, method: read, path: graphqlGet });
  const post = fc.record({
    ...common,
    method: fc.constant('POST' as const),
    path: fc.constant('/graphql'),
    body: fc.constantFrom(...DOCUMENTS).map((query) => JSON.stringify({ query })),
  });
  return fc.oneof({ weight: 5, arbitrary: v2 }, { weight: 3, arbitrary: get }, { weight: 1, arbitrary: post });
}

/** The coding a body was sent in, decoded. */
export function decoded(exchange: Exchange): Buffer {
  const coding = exchange.headers['content-encoding'];
  if (!coding || exchange.body.length === 0) return exchange.body;
  if (coding === 'br') return brotliDecompressSync(exchange.body);
  if (coding === 'gzip') return gunzipSync(exchange.body);
  throw new Error(`unknown Content-Encoding ${coding}`);
}

/** Whether Accept-Encoding admits a coding (RFC 9110 12.5.3: q=0 refuses; `*` stands for codings not listed). */
export function admits(acceptEncoding: string | undefined, coding: string): boolean {
  if (!acceptEncoding) return false;
  const weights = new Map<string, number>();
  for (const part of acceptEncoding.split(',')) {
    const [name = '', ...params] = part.trim().toLowerCase().split(';');
    const q = params.map((p) => /^\s*q=([\d.]+)\s*$/.exec(p)?.[1]).find((v) => v !== undefined);
    weights.set(name.trim(), q === undefined ? 1 : Number(q));
  }
  return (weights.get(coding) ?? weights.get('*') ?? 0) > 0;
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
  'content-encoding', // checked apart: the bytes are compared decoded
]);

const comparableHeaders = (exchange: Exchange) =>
  Object.fromEntries(
    Object.entries(exchange.headers)
      .filter(([name]) => !IGNORED.has(name))
      .sort(),
  );

/** The body with each server's own host:port and, for a seed chosen at random, that seed made neutral. */
function comparableBody(body: Buffer, origin: string, randomSeed: boolean): string {
  let text = body.toString('utf8').replaceAll(new URL(origin).host, 'SERVER');
  if (!randomSeed) return text;
  const page = JSON.parse(text) as { count: number; results: unknown[]; next: string | null; previous: string | null };
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
 * What is wrong with the cache-on answer `on` against the cache-off answer `off` to the same request, or null.
 * `ifNoneMatch` is the header as sent (`staleTag`: it names only a tag made before the listing last changed);
 * `origins` each server's own address.
 */
export function difference(
  ask: Ask,
  sent: { ifNoneMatch: string | undefined; staleTag: boolean },
  on: Exchange,
  off: Exchange,
  origins: { on: string; off: string },
): string | null {
  const coding = on.headers['content-encoding'];
  if (coding && !admits(ask.acceptEncoding, coding)) {
    return `Content-Encoding ${coding} the request did not admit (Accept-Encoding ${JSON.stringify(ask.acceptEncoding)})`;
  }
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
  if (x !== y) return `bodies differ: ${x.slice(0, 200)} / cache off: ${y.slice(0, 200)}`;
  return null;
}
