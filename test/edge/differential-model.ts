// The requests of the edge differential test (differential.test.ts), as fast-check arbitraries: both doors, GET,
// HEAD and POST, the Accept and Accept-Encoding variants, with and without the private-scope key, pages that
// are kept and answers that are not (errors, withheld private fields, seedless pages, event streams), queries
// persisted by hash, and earlier requests sent again (with the ETag they got, or another Accept).
import { createHash } from 'node:crypto';
import fc from 'fast-check';

/** GraphQL documents by name: what each exercises at the edge is in its name. */
export const DOCUMENTS = {
  page: '{ packages(limit: 3, seed: 7) { count results { id title price } } }',
  nextPage: '{ packages(limit: 2, offset: 2, seed: 11) { count seed results { id urlSlug title } } }',
  // Over 1 kB: compressed when the request admits it.
  large: '{ packages(limit: 6, seed: 2) { results { id title description price } } }',
  privateField: '{ packages(limit: 2, seed: 5) { results { id title photographerEmail } } }',
  privateNested: '{ packages(limit: 2, seed: 4) { results { title photographer { name phone paymentsUserId } } } }',
  privateRecord: '{ packages(limit: 1, seed: 6) { results { title v2Record } } }',
  unknownField: '{ packages(limit: 2, seed: 5) { nope } }',
  badArgument: '{ packages(limit: 500, seed: 1) { count } }',
  partial: '{ packages(limit: 2, seed: 3) { results { id title } } package(id: "x", urlSlug: "y") { id } }',
  malformed: '{ packages(limit: 2',
  seedless: '{ packages(limit: 3) { seed count results { id title } } }',
  subscription: 'subscription { listingChanged { version count changedAt } }',
} as const;
export type DocumentName = keyof typeof DOCUMENTS;

/** v2 query strings: pages, a seedless page (random with SEED_POOL=0), a bad seed (400), a bad format (404). */
export const V2_QUERIES = [
  '?limit=4&seed=3',
  '?limit=4&offset=4&seed=3',
  '?limit=3',
  '?limit=2&seed=abc',
  '?format=xml',
];

export const ACCEPTS = [
  '*/*',
  'application/json',
  'application/graphql-response+json',
  'multipart/mixed',
  'text/event-stream',
  'application/graphql-response+json, application/json;q=0.9',
  // urql's: an event stream among others (a query gets JSON, a subscription a stream).
  'application/graphql-response+json, application/json, text/event-stream, multipart/mixed',
  // Odd ones: 406 on both doors.
  'application/xml',
  'image/png',
];

/** How a GraphQL request carries its document: as text, or persisted (APQ) by hash, registering it or not. */
export type Carrier = 'text' | 'hash' | 'register';

/** A request as plain data, so a failing sequence prints readably. */
export interface Ask {
  kind: 'ask';
  door: 'graphql' | 'v2';
  method: 'GET' | 'HEAD' | 'POST';
  /** GraphQL: a document's name (or a document); v2: the query string. */
  what: string;
  carrier: Carrier;
  /** APQ: `own` is a document only this sequence sends (its hash unknown until registered). */
  persisted: 'shared' | 'own';
  accept?: string;
  acceptEncoding?: 'gzip' | 'br';
  key: boolean;
}

/** An earlier request of the sequence sent again (`back` from the last), with its ETag, or with another Accept. */
export interface Again {
  kind: 'again';
  back: number;
  withEtag: boolean;
  accept?: string;
}

export type Step = Ask | Again;

/** A sequence: its steps, and where an import comes between them (in about 1 of 15 sequences). */
export interface Sequence {
  steps: Step[];
  importBefore: number | null;
}

const maybe = <T>(arbitrary: fc.Arbitrary<T>) => fc.option(arbitrary, { nil: undefined, freq: 4 });
/** Now and then: undefined three times in four. */
const seldom = <T>(arbitrary: fc.Arbitrary<T>) =>
  fc.oneof({ weight: 3, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary });
/** The caller: anonymous twice in three (the answers an edge may keep are anonymous). */
const key = fc.constantFrom(false, false, true);
/** Every document, the pages an edge keeps more often than the rest (their hits are where a stale page shows). */
const DOCUMENT_NAMES = [
  ...(Object.keys(DOCUMENTS) as DocumentName[]),
  ...(['page', 'page', 'nextPage', 'large'] as const),
];

const graphqlAsk: fc.Arbitrary<Ask> = fc
  .record({
    what: fc.constantFrom(...DOCUMENT_NAMES),
    method: fc.constantFrom('GET', 'GET', 'GET', 'HEAD', 'POST') as fc.Arbitrary<Ask['method']>,
    carrier: fc.constantFrom('text', 'text', 'text', 'hash', 'register') as fc.Arbitrary<Carrier>,
    persisted: fc.constantFrom('shared', 'own') as fc.Arbitrary<Ask['persisted']>,
    accept: maybe(fc.constantFrom(...ACCEPTS)),
    acceptEncoding: maybe(fc.constantFrom('gzip', 'br') as fc.Arbitrary<'gzip' | 'br'>),
    key,
  })
  .map((ask) => ({
    kind: 'ask' as const,
    door: 'graphql' as const,
    ...ask,
    // A subscription is asked for as a stream, mostly (as JSON alone it is a 406).
    accept: ask.what === 'subscription' && !ask.accept?.includes('json') ? 'text/event-stream' : ask.accept,
  }));

const v2Ask: fc.Arbitrary<Ask> = fc.record({
  kind: fc.constant('ask' as const),
  door: fc.constant('v2' as const),
  what: fc.constantFrom(...V2_QUERIES, V2_QUERIES[0] as string, V2_QUERIES[1] as string),
  method: fc.constantFrom('GET', 'GET', 'HEAD', 'POST') as fc.Arbitrary<Ask['method']>,
  carrier: fc.constant('text' as const),
  persisted: fc.constant('shared' as const),
  accept: maybe(fc.constantFrom(...ACCEPTS)),
  acceptEncoding: maybe(fc.constantFrom('gzip', 'br') as fc.Arbitrary<'gzip' | 'br'>),
  key,
});

const again: fc.Arbitrary<Again> = fc.record({
  kind: fc.constant('again' as const),
  back: fc.nat(3),
  withEtag: fc.boolean(),
  accept: seldom(fc.constantFrom(...ACCEPTS)),
});

const step: fc.Arbitrary<Step> = fc.oneof(
  { weight: 6, arbitrary: graphqlAsk },
  { weight: 3, arbitrary: v2Ask },
  { weight: 4, arbitrary: again },
);

/** 3 to 8 steps; an import before one of them in about 1 sequence of 15. */
export const sequence: fc.Arbitrary<Sequence> = fc
  .record({
    steps: fc.array(step, { minLength: 3, maxLength: 8 }),
    at: fc.oneof({ weight: 14, arbitrary: fc.constant(null) }, { weight: 1, arbitrary: fc.nat(7) }),
  })
  .map(({ steps, at }) => ({ steps, importBefore: at === null ? null : at % steps.length }));

/** The sequence with each `again` made the earlier request it names (dropped when none came before it). */
export function resolved(steps: Step[]): { ask: Ask; withEtagOf?: number }[] {
  const out: { ask: Ask; withEtagOf?: number }[] = [];
  for (const s of steps) {
    if (s.kind === 'ask') {
      out.push({ ask: s });
      continue;
    }
    const index = out.length - 1 - (s.back % Math.max(out.length, 1));
    const earlier = out[index];
    if (!earlier) continue;
    const ask = s.accept === undefined ? earlier.ask : { ...earlier.ask, accept: s.accept };
    out.push(s.withEtag ? { ask, withEtagOf: index } : { ask });
  }
  return out;
}

export const isSeedless = (ask: Ask) =>
  ask.door === 'graphql' ? ask.what === 'seedless' : !/[?&]seed=/.test(ask.what) && !ask.what.includes('format');
export const isSubscription = (ask: Ask) => ask.door === 'graphql' && ask.what === 'subscription';

export interface HttpRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: string;
}

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

/** The ask as an HTTP request; `nonce` makes an `own` persisted document this sequence's alone. */
export function requestOf(ask: Ask, privateKey: string, nonce: string, ifNoneMatch?: string): HttpRequest {
  const headers: Record<string, string> = {};
  if (ask.accept !== undefined) headers.accept = ask.accept;
  if (ask.acceptEncoding !== undefined) headers['accept-encoding'] = ask.acceptEncoding;
  if (ask.key) headers.authorization = `Bearer ${privateKey}`;
  if (ifNoneMatch !== undefined) headers['if-none-match'] = ifNoneMatch;
  if (ask.door === 'v2') return { method: ask.method, path: `/v2/local-package-list/${ask.what}`, headers };
  // A document of the model by its name, or (pages made up by the test) the document itself.
  let query: string = DOCUMENTS[ask.what as DocumentName] ?? ask.what;
  if (ask.carrier !== 'text' && ask.persisted === 'own') query = `# ${nonce}\n${query}`;
  const extensions = ask.carrier === 'text' ? undefined : { persistedQuery: { version: 1, sha256Hash: sha256(query) } };
  const fields = { ...(ask.carrier !== 'hash' && { query }), ...(extensions && { extensions }) };
  if (ask.method === 'POST') {
    headers['content-type'] = 'application/json';
    return { method: 'POST', path: '/graphql', headers, body: JSON.stringify(fields) };
  }
  const search = new URLSearchParams();
  if (fields.query !== undefined) search.set('query', fields.query);
  if (fields.extensions) search.set('extensions', JSON.stringify(fields.extensions));
  return { method: ask.method, path: `/graphql?${search}`, headers };
}
