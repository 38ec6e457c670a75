// The requests of the settings matrix (settings-matrix.test.ts), the same under every profile, in one order: both
// doors (GET and POST /graphql, GET and HEAD on the v2 path), preflights, each of Accept, Accept-Encoding,
// If-None-Match, Authorization, Origin and Content-Type missing, empty, the text `null`, well-formed and garbage;
// introspection by GET and POST; persisted queries (the manifest's, and APQ's: unknown, registered, asked again by
// hash); bad JSON, batches, bodies past the bound; private fields, the GraphQL limits, a filter, subscriptions; a
// burst past the request budget and a request on a connection past the address's bound. Each is asked of both
// servers one to three times in a row, so that the response cache's miss and hits are compared, and a request
// without Accept comes before the same one with `Accept: null` (a door that finds the first one's kept answer by the
// header's text, where the other does not, shows). Every page names its seed, but those that test the seed pool, so
// bodies compare byte for byte.
import { createHash } from 'node:crypto';
import type { Ask } from '../helpers/edge-compare.js';
import { PRIVATE_KEY } from '../helpers/graphql.js';
import { MANIFEST_DOCUMENT, READER_KEY, SHOP, V2_KEY } from './settings-profiles.js';

export interface Step extends Ask {
  /** Asked this many times in a row, each time of both servers. */
  times: number;
  /** A subscription's event stream: the status and headers compare, then the stream is closed. */
  stream?: boolean;
  /** Connections the client holds open (idle) while it asks this one. */
  holding?: number;
  /** Names the step whose statuses the test checks, to know a profile's bound was met. */
  tag?: 'burst' | 'crowd' | 'stream' | 'third registration';
}

/** In an If-None-Match, stands for the ETag of the server's last answer that had one. */
export const LAST_ETAG = '"<the last ETag>"';
/** The address of the burst past the budget: behind a trusted proxy, a client of its own. */
export const BURST_ADDRESS = '192.0.2.77';

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
const json = (query: string, extra: Record<string, unknown> = {}) => JSON.stringify({ query, ...extra });
const persisted = (hash: string) => ({ persistedQuery: { version: 1, sha256Hash: hash } });
const graphqlGet = (params: Record<string, string>) => `/graphql?${new URLSearchParams(params)}`;

const post = (body: string, headers: Record<string, string> = {}, chunked = false): Ask => ({
  body,
  headers: {
    'content-type': 'application/json',
    ...(chunked ? {} : { 'content-length': String(Buffer.byteLength(body)) }),
    ...headers,
  },
});
const get = (path: string, headers: Record<string, string> = {}): Ask => ({ method: 'GET', path, headers });
const times = (count: number, ...asks: Ask[]): Step[] => asks.map((ask) => ({ ...ask, times: count }));

const CARDS = '{ packages(limit: 5, seed: 7) { count results { id title price } } }';
const V2 = '/v2/local-package-list/?limit=5&seed=5';
const PRIVATE = '{ packages(limit: 2, seed: 7) { results { id photographerEmail photographer { name phone } } } }';
const SEEDLESS = '{ packages(limit: 3) { results { id } } }';
const INTROSPECTION = [
  '{ __schema { queryType { name } } }',
  '{ __type(name: "Package") { name } }',
  '{ _service { sdl } }',
];
/** Each over one of the tight limits of a profile, and within the defaults. */
const OVER_LIMITS = [
  '{ packages(limit: 2, seed: 1) { results { photographer { packages(limit: 1) { id } } } } }',
  '{ a: categories { code } b: categories { name } }',
  '{ packages(limit: 2, seed: 1) { count @include(if: true) results @skip(if: false) { id } } }',
  '{ packages(limit: 2, seed: 1) { count limit offset seed results { id title price urlSlug currency slogan } } }',
  '{ packages(limit: 100, seed: 1) { results { id title images { thumbnail } } } }',
  `{ packages(limit: 1, seed: 1) { results { ${'id '.repeat(130)}} } }`,
];
const FILTERED =
  '{ packages(limit: 4, seed: 3, filter: { featured: true, currency: "USD", priceMax: "900.00" }) { count results { id } } }';
// Three documents registered by APQ (the third past APQ_REGISTRATIONS=2), and one past APQ_MAX_DOCUMENT_BYTES.
const APQ = [
  '{ categories { code name packageCount } }',
  '{ packages(limit: 2, seed: 9) { results { id urlSlug } } }',
  '{ packages(limit: 2, seed: 8) { count } }',
];
const LONG_DOCUMENT = `# ${'padding '.repeat(140)}\n{ categories { code } }`;

/** Each header missing, empty, `null`, well-formed and garbage, on the requests it can change. */
function headerVariants(): Step[] {
  const graphqlByGet = get(graphqlGet({ query: CARDS }));
  const graphqlByPost = post(json(CARDS));
  const v2 = get(V2);
  const values: [string, (string | undefined)[], Ask[]][] = [
    [
      'accept',
      [
        undefined,
        '',
        'null',
        '*/*',
        'application/json',
        'application/graphql-response+json',
        'text/html',
        'application/json;q=0',
        ';;,,q=',
        'text/event-stream, application/json;q=0.9',
      ],
      [graphqlByGet, graphqlByPost, v2],
    ],
    [
      'accept-encoding',
      [undefined, '', 'null', 'br', 'gzip', 'identity;q=0', 'br;q=x, *;q=0,,'],
      [graphqlByGet, graphqlByPost, v2],
    ],
    ['if-none-match', [undefined, '', 'null', LAST_ETAG, '*', 'W/"nope", ,garbage'], [graphqlByGet, v2]],
    [
      'authorization',
      [
        undefined,
        '',
        'null',
        'Bearer',
        'Basic Zm9vOmJhcg==',
        `Bearer ${PRIVATE_KEY}`,
        `Bearer ${READER_KEY}`,
        `Bearer ${V2_KEY}`,
        'Bearer lgw_not-ours',
      ],
      [graphqlByGet, graphqlByPost, v2],
    ],
    [
      'origin',
      [undefined, '', 'null', SHOP, 'https://elsewhere.example', 'not an origin'],
      [graphqlByGet, graphqlByPost, v2],
    ],
    [
      'content-type',
      [undefined, '', 'null', 'application/json; charset=utf-8', 'text/plain', 'multipart/form-data; boundary=x', ';;'],
      [graphqlByPost],
    ],
  ];
  return values.flatMap(([name, variants, bases]) =>
    bases.flatMap((base) =>
      variants.map((value) => {
        const { [name]: _, ...headers } = base.headers ?? {};
        return { ...base, headers: value === undefined ? headers : { ...headers, [name]: value }, times: 2 };
      }),
    ),
  );
}

/** Persisted queries: the manifest's by hash, then APQ's unknown, registered and asked again, kept close together. */
function persistedQueries(): Step[] {
  const manifestHash = sha256(MANIFEST_DOCUMENT);
  const [first, second, third] = APQ.map((document) => ({ document, hash: sha256(document) })) as [
    { document: string; hash: string },
    { document: string; hash: string },
    { document: string; hash: string },
  ];
  const byHash = (hash: string, extra: Record<string, string> = {}) =>
    graphqlGet({ extensions: JSON.stringify(persisted(hash)), ...extra });
  return [
    ...times(
      2,
      get(byHash(manifestHash, { variables: '{"seed":2}' })),
      post(JSON.stringify({ extensions: persisted(manifestHash), variables: { seed: 2 } })),
      post(JSON.stringify({ extensions: persisted(`sha256:${manifestHash}`), variables: { seed: 4 } })),
    ),
    ...times(1, get(byHash(first.hash)), get(byHash(first.hash, { query: first.document }))),
    // Without Accept, then the same with `Accept: null` and an empty one: the same answer as yoga's each time.
    ...times(2, get(byHash(first.hash)), get(byHash(first.hash), { accept: 'null' })),
    ...times(1, get(byHash(first.hash), { accept: '' })),
    ...times(1, post(JSON.stringify({ query: second.document, extensions: persisted(second.hash) }))),
    ...times(2, post(JSON.stringify({ extensions: persisted(second.hash) }))),
    { ...get(byHash(third.hash, { query: third.document })), times: 1, tag: 'third registration' },
    ...times(
      1,
      get(byHash(third.hash)),
      post(JSON.stringify({ query: first.document, extensions: persisted(second.hash) })),
      post(JSON.stringify({ query: LONG_DOCUMENT, extensions: persisted(sha256(LONG_DOCUMENT)) })),
      post(JSON.stringify({ extensions: persisted(sha256('{ nothing }')) })),
      post(JSON.stringify({ extensions: { persistedQuery: { version: 2, sha256Hash: first.hash } } })),
      post(JSON.stringify({ extensions: { persistedQuery: 'garbage' } })),
      get(graphqlGet({ extensions: '{not json' })),
    ),
  ];
}

/** Every request, in order. */
export function requests(): Step[] {
  const big = json(`# ${'x'.repeat(2000)}\n${CARDS}`);
  const steps: Step[] = [
    // A request without Accept, then the same with `Accept: null`, on the v2 path first (nothing asked before).
    ...times(2, get(V2), get(V2, { accept: 'null' })),
    // The same with the v2 path's key (where V2_API_KEYS is set, the only ones answered).
    ...times(
      2,
      get(V2, { authorization: `Bearer ${V2_KEY}` }),
      get(V2, { authorization: `Bearer ${V2_KEY}`, accept: 'null' }),
      get(V2, { authorization: `Bearer ${V2_KEY}`, 'accept-encoding': 'br' }),
      get(V2, { authorization: `Bearer ${V2_KEY}`, 'if-none-match': LAST_ETAG }),
    ),
    ...headerVariants(),
    ...times(2, ...INTROSPECTION.flatMap((query) => [get(graphqlGet({ query })), post(json(query))])),
    ...times(1, get('/graphql', { accept: 'text/html' }), get(graphqlGet({ query: CARDS }), { accept: 'text/html' })),
    ...persistedQueries(),
    ...times(
      1,
      post('{"query": '),
      post('null'),
      post('[]'),
      post(JSON.stringify({ query: 5 })),
      post(''),
      post('not json', { 'content-type': 'text/plain' }),
      post(JSON.stringify([{ query: CARDS }, { query: CARDS }])),
      post(big),
      post(big, {}, true),
      get(graphqlGet({})),
      get(graphqlGet({ query: CARDS, variables: '{not json' })),
    ),
    ...times(
      2,
      { method: 'HEAD', path: graphqlGet({ query: CARDS }) },
      { method: 'HEAD', path: V2 },
      { method: 'HEAD', path: '/graphql' },
    ),
    ...times(
      1,
      {
        method: 'OPTIONS',
        path: '/graphql',
        headers: {
          origin: SHOP,
          'access-control-request-method': 'POST',
          'access-control-request-headers': 'content-type, authorization',
        },
      },
      {
        method: 'OPTIONS',
        path: '/graphql',
        headers: { origin: 'https://elsewhere.example', 'access-control-request-method': 'GET' },
      },
      { method: 'OPTIONS', path: '/graphql', headers: { origin: 'null', 'access-control-request-method': 'POST' } },
      { method: 'OPTIONS', path: '/graphql', headers: {} },
      { method: 'OPTIONS', path: V2, headers: { origin: SHOP, 'access-control-request-method': 'GET' } },
    ),
    ...times(
      2,
      get('/v2/local-package-list/?limit=5&seed=5&offset=5'),
      get('/v2/local-package-list/?limit=abc&seed=5'),
      get('/v2/local-package-list/?limit=1000&seed=1'),
      get('/v2/local-package-list/?seed=5'),
      get('/v2/local-package-list?limit=5&seed=5'),
      get(V2, { 'x-forwarded-host': 'shop.example', 'x-forwarded-proto': 'https' }),
      get(graphqlGet({ query: CARDS }), { traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01' }),
      get(V2, { traceparent: 'garbage' }),
    ),
    // No seed: drawn from the pool (byte for byte with a pool of one), or a seed of its own.
    { ...post(json(SEEDLESS)), times: 2, drawn: true },
    { ...get('/v2/local-package-list/?limit=3'), times: 2, drawn: true },
    ...times(
      2,
      post(json(PRIVATE)),
      post(json(PRIVATE), { authorization: `Bearer ${PRIVATE_KEY}` }),
      post(json(PRIVATE), { authorization: `Bearer ${READER_KEY}` }),
      ...OVER_LIMITS.map((query) => post(json(query))),
      get(graphqlGet({ query: OVER_LIMITS[0] as string })),
      post(json(FILTERED)),
    ),
    ...times(
      1,
      post(json('mutation { packages }')),
      post(json('subscription { listingChanged { version } }'), { accept: 'application/json' }),
    ),
    {
      ...post(json('subscription { listingChanged { version } }'), { accept: 'text/event-stream' }),
      times: 1,
      stream: true,
      tag: 'stream',
    },
    // A burst past a budget of 4 from one client (behind a trusted proxy: a client of its own).
    ...Array.from({ length: 6 }, () => ({
      ...post(json(CARDS), { 'x-forwarded-for': BURST_ADDRESS }),
      times: 1,
      tag: 'burst' as const,
    })),
    { ...get(V2), times: 1, holding: 2, tag: 'crowd' },
  ];
  // Behind a trusted proxy each request comes from a client of its own, so only the burst meets a small budget.
  return steps.map((step, index) => ({
    ...step,
    headers: {
      host: 'gateway.example',
      'x-forwarded-for': `10.0.${Math.floor(index / 250)}.${(index % 250) + 1}`,
      ...step.headers,
    },
  }));
}
