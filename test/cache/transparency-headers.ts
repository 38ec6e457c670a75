// The request headers the cache's property test draws (transparency-model.ts): for each header an answer or its
// key can depend on, every class a client, a proxy or a careless script sends: none, an empty value, the texts a
// missing value prints as in JavaScript (`null`, `undefined`), printable garbage, a value of about 4 kB, lists with
// commas, semicolons and q-values, and the valid values. A value may name what is only known when it is sent:
// `{seen}` the last ETag the sequence saw, `{stale}` one from before the listing last changed, `{private}` and
// `{v2}` the test's API keys.
import fc from 'fast-check';

/** The headers drawn, by the name an Ask gives them. */
export const HEADER_NAMES = [
  'accept',
  'acceptEncoding',
  'ifNoneMatch',
  'authorization',
  'origin',
  'contentType',
] as const;
export type HeaderName = (typeof HEADER_NAMES)[number];
/** Each header's value as drawn; undefined (or absent): the request does not send it. */
export type HeaderDraws = { [name in HeaderName]?: string | undefined };

/** The name each goes by on the wire. */
export const WIRE_NAMES: Readonly<Record<HeaderName, string>> = {
  accept: 'accept',
  acceptEncoding: 'accept-encoding',
  ifNoneMatch: 'if-none-match',
  authorization: 'authorization',
  origin: 'origin',
  contentType: 'content-type',
};

/** What HTTP allows in a field value (RFC 9110 5.5), printable ASCII: visible characters and the space. */
const printable = fc.string({
  unit: fc.integer({ min: 0x20, max: 0x7e }).map((code) => String.fromCharCode(code)),
  minLength: 1,
  maxLength: 40,
});

/** `item` repeated, comma-separated, to about 4 kB, then `last`. */
const long = (item: (i: number) => string, last: string) =>
  `${Array.from({ length: 4096 }, (_, i) => item(i))
    .join(', ')
    .slice(0, 4096 - last.length - 2)}, ${last}`;

/** What prints as the absence of a value in JavaScript, and the empty value. */
const SPELLED_ABSENT = ['', 'null', 'undefined'];

interface Classes {
  valid: string[];
  /** Lists, parameters and q-values: commas and semicolons where a parser may split. */
  listed: string[];
  long: string;
}

/** A header's value: absent first, so that a shrunk counterexample sends only the headers it needs. */
function value({ valid, listed, long: longValue }: Classes): fc.Arbitrary<string | undefined> {
  return fc.oneof(
    { withCrossShrink: true },
    { weight: 8, arbitrary: fc.constant(undefined) },
    { weight: 3, arbitrary: fc.constantFrom(...SPELLED_ABSENT) },
    { weight: 4, arbitrary: fc.constantFrom(...valid) },
    { weight: 2, arbitrary: fc.constantFrom(...listed) },
    { weight: 1, arbitrary: printable },
    { weight: 1, arbitrary: fc.constant(longValue) },
  );
}

const CLASSES: Record<HeaderName, Classes> = {
  accept: {
    valid: [
      '*/*',
      'application/json',
      'application/graphql-response+json',
      'application/json; indent=4',
      'text/html',
      'application/xml',
      'multipart/mixed',
    ],
    listed: [
      'text/html, application/json;q=0.5',
      'application/json;q=0, */*;q=0.1',
      'application/graphql-response+json, application/json;q=0.9',
      '*/*;q=0',
      'application/json;indent=4;q=0.9, text/html;q=0.1',
      'application/json,',
      ';;,,',
      'application/json, text/event-stream',
    ],
    long: long((i) => `application/x-type-${i};q=0.1`, 'application/json'),
  },
  acceptEncoding: {
    valid: ['identity', 'gzip', 'br', 'gzip, deflate, br', '*'],
    listed: ['br;q=0, gzip', '*;q=0', 'gzip;q=0', 'gzip;q=0.5, br;q=0.4', 'br;q=1.5, gzip', 'gzip;q=abc', ', ,gzip,'],
    long: long((i) => `x-coding-${i};q=0.5`, 'gzip'),
  },
  ifNoneMatch: {
    valid: ['{seen}', '{seen}', '{stale}', '{stale}', '*', '"made-up-tag"', 'W/{seen}'],
    listed: ['"other", {seen}', '"other";q=1, W/{seen}', ',,{seen},', '"a","b"'],
    long: long((i) => `"tag-${i}"`, '{seen}'),
  },
  authorization: {
    valid: ['Bearer {private}', 'Bearer {v2}'],
    listed: [
      'Bearer wrong',
      'Bearer {private}, Bearer {v2}',
      'Bearer {private};q=1',
      'Basic dXNlcjpwYXNz',
      'Bearer',
      'Bearer null',
    ],
    long: `Bearer ${'A'.repeat(4090)}`,
  },
  origin: {
    valid: ['https://shop.example', 'https://evil.example', 'http://localhost:3000'],
    listed: ['https://shop.example, https://evil.example', 'https://shop.example;q=1', 'HTTPS://SHOP.EXAMPLE'],
    long: `https://${'a'.repeat(4080)}.example`,
  },
  contentType: {
    valid: [
      'application/json',
      'application/json; charset=utf-8',
      'application/graphql-response+json',
      'text/plain',
      'application/x-www-form-urlencoded',
      'multipart/form-data; boundary=x',
    ],
    listed: ['application/json;;charset=', 'application/json, text/plain', 'application/json; charset=latin1; q=0.5'],
    long: `application/json; ${'x=y; '.repeat(815)}charset=utf-8`,
  },
};

/** What a client of each door sends where it differs from the valid values of both: its types, its key. */
const CLIENT: Record<'v2' | 'graphql', Partial<Record<HeaderName, string[]>>> = {
  v2: { accept: ['*/*', 'application/json', 'application/json; indent=4'], authorization: ['Bearer {v2}'] },
  graphql: {
    accept: ['*/*', 'application/json', 'application/graphql-response+json', 'multipart/mixed'],
    authorization: ['Bearer {private}'],
  },
};

/** The value of one header, of any class. */
export const headerValue = (name: HeaderName) => value(CLASSES[name]);

/**
 * The headers of a request to `door`, each drawn on its own (fields of fc.record): as a client of the door sends
 * them (each absent or valid), or of any class. A POST's Content-Type is mostly the one it needs.
 */
export function headerFields(
  door: 'v2' | 'graphql',
  post: boolean,
  style: 'client' | 'any',
): { [name in HeaderName]: fc.Arbitrary<string | undefined> } {
  const of = (name: HeaderName) =>
    style === 'any'
      ? value(CLASSES[name])
      : fc.option(fc.constantFrom(...(CLIENT[door][name] ?? CLASSES[name].valid)), { nil: undefined, freq: 2 });
  return {
    accept: of('accept'),
    acceptEncoding: of('acceptEncoding'),
    ifNoneMatch: of('ifNoneMatch'),
    authorization: of('authorization'),
    origin: of('origin'),
    contentType: post
      ? fc.oneof(
          { withCrossShrink: true },
          { weight: 3, arbitrary: fc.constant('application/json') },
          { weight: 2, arbitrary: of('contentType') },
        )
      : of('contentType'),
  };
}

/**
 * One header of a request sent again, changed: to absent, to a text spelling absence, or to another value. Near
 * misses of a request already answered are where a key that confuses two requests shows; the headers a key or a
 * kept variant is made of (Accept; Authorization, the caller's scope; Accept-Encoding) are changed most.
 */
export const headerChange: fc.Arbitrary<{ header: HeaderName; value: string | undefined }> = fc
  .oneof(
    { weight: 4, arbitrary: fc.constant('accept' as const) },
    { weight: 2, arbitrary: fc.constantFrom('authorization' as const, 'acceptEncoding' as const) },
    { weight: 1, arbitrary: fc.constantFrom('origin' as const, 'contentType' as const) },
  )
  .chain((header) =>
    fc.record({
      header: fc.constant(header),
      value: fc.oneof(
        { withCrossShrink: true },
        fc.constant(undefined),
        ...SPELLED_ABSENT.map((text) => fc.constant(text)),
        headerValue(header),
      ),
    }),
  );

/** What a drawn value names, as it is sent: `{seen}`, `{stale}`, `{private}` and `{v2}` filled in. */
export function filled(value: string, known: Readonly<Record<'seen' | 'stale' | 'private' | 'v2', string>>): string {
  return value.replace(/\{(seen|stale|private|v2)\}/g, (_, name: keyof typeof known) => known[name]);
}

/** A value as a failure prints it: long ones cut, with their length. */
export const shown = (value: string | undefined) =>
  value === undefined
    ? '(absent)'
    : value.length > 80
      ? `${JSON.stringify(value.slice(0, 60))}… (${value.length} chars)`
      : JSON.stringify(value);
