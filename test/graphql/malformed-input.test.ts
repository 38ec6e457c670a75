// Every malformed variable or request parameter is the client's mistake: 400 with a code and a message naming
// it, the same answer on every run (graphql-jit compiles a document on its third), one log line per request and
// never one at error level.
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../src/app.js';
import { createLogger } from '../../src/logger.js';
import { createListingTestDatabase, engineName, type TestDatabase } from '../helpers/database.js';

const ORIGIN = 'http://localhost';
const RUNS = 5;

let db: TestDatabase;
let app: ReturnType<typeof createApp>;
const lines: { level: string; msg: string }[] = [];

beforeAll(async () => {
  db = await createListingTestDatabase(10);
  const destination = new Writable({
    write(chunk, _encoding, done) {
      lines.push(JSON.parse(String(chunk)));
      done();
    },
  });
  app = createApp({ db, logger: createLogger({ level: 'info', destination }), settings: { responseCacheBytes: 0 } });
});
afterAll(async () => {
  await app?.dispose();
  await db?.destroy();
});

const PRICE = 'query Price($p: Decimal) { packages(limit: 1, seed: 1, filter: { priceMin: $p }) { count } }';
const NEAR =
  'query Near($lat: Decimal!) { packages(limit: 1, seed: 1, filter: { near: { latitude: $lat, longitude: "2.35", radiusKm: 5 } }) { count } }';
const post = (query: string, variables: unknown) => async () =>
  app.fetch(`${ORIGIN}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ query, variables }),
  });
const get = (query: string) => async () =>
  app.fetch(`${ORIGIN}/graphql?query=${encodeURIComponent('{ __typename }')}&${query}`);

const cases: [string, () => Promise<Response>, string, RegExp][] = [
  ['Decimal "NaN"', post(PRICE, { p: 'NaN' }), 'BAD_USER_INPUT', /^Variable "\$p" got invalid value "NaN"; Decimal/],
  ['Decimal "-1e400"', post(PRICE, { p: '-1e400' }), 'BAD_USER_INPUT', /^Variable "\$p" got invalid value "-1e400"/],
  ['Decimal as a number', post(PRICE, { p: 12.5 }), 'BAD_USER_INPUT', /^Variable "\$p" got invalid value 12\.5/],
  ['Decimal as an object', post(PRICE, { p: { a: 1 } }), 'BAD_USER_INPUT', /^Variable "\$p" got invalid value/],
  ['latitude "1e308"', post(NEAR, { lat: '1e308' }), 'BAD_USER_INPUT', /^Variable "\$lat" got invalid value "1e308"/],
  ['latitude "Infinity"', post(NEAR, { lat: 'Infinity' }), 'BAD_USER_INPUT', /"\$lat" got invalid value "Infinity"/],
  ['latitude "0x10"', post(NEAR, { lat: '0x10' }), 'BAD_USER_INPUT', /"\$lat" got invalid value "0x10"/],
  ['latitude " 1 "', post(NEAR, { lat: ' 1 ' }), 'BAD_USER_INPUT', /"\$lat" got invalid value " 1 "/],
  ['latitude 91', post(NEAR, { lat: '91' }), 'BAD_USER_INPUT', /^filter\.near\.latitude must be a decimal from -90/],
  ['latitude missing', post(NEAR, {}), 'BAD_USER_INPUT', /^Variable "\$lat" of required type "Decimal!"/],
  ['GET variables={', get('variables=%7B'), 'BAD_USER_INPUT', /^variables must be a JSON object/],
  ['GET extensions={', get('extensions=%7B'), 'BAD_USER_INPUT', /^extensions must be a JSON object/],
  ['GET 5,000 [', get(`variables=${'['.repeat(5000)}`), 'BAD_USER_INPUT', /^variables must be a JSON object/],
  ['GET variables=1', get('variables=1'), 'BAD_REQUEST', /^Expected "variables" param to be empty or an object/],
  [
    'POST body not JSON',
    async () =>
      app.fetch(`${ORIGIN}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{"query":',
      }),
    'BAD_REQUEST',
    /^The request body is not valid JSON\.$/,
  ],
];

describe(`malformed input on ${engineName}`, () => {
  it.each(cases)(
    '%s: 400, the same on every run, logged once at most and never as an error',
    async (_, send, code, message) => {
      lines.length = 0;
      const bodies = new Set<string>();
      for (let run = 0; run < RUNS; run++) {
        const response = await send();
        const text = await response.text();
        expect(response.status, text).toBe(400);
        const body = JSON.parse(text) as { errors: { message: string; extensions: Record<string, unknown> }[] };
        expect(body.errors[0]?.extensions.code).toBe(code);
        expect(body.errors[0]?.message).toMatch(message);
        expect(body.errors[0]?.extensions.originalError).toBeUndefined();
        expect(text).not.toMatch(/SyntaxError|Unexpected error|\bat .*\(/);
        bodies.add(text);
      }
      expect(bodies.size).toBe(1);
      expect(lines.filter((line) => line.level === 'error' || line.level === 'fatal')).toEqual([]);
      expect(lines.length).toBeLessThanOrEqual(RUNS);
    },
  );
});

describe(`an error raised while an operation runs, on ${engineName}`, () => {
  it('reads the same before and after graphql-jit compiles its document (locations, key order)', async () => {
    const send = post('{ packages(limit: 500, seed: 1) { count } }', {});
    const bodies: string[] = [];
    for (let run = 0; run < RUNS; run++) bodies.push(await (await send()).text());
    const first = JSON.parse(bodies[0] as string) as {
      errors: { locations?: unknown; extensions: { code: string } }[];
    };
    expect(first.errors[0]?.extensions.code).toBe('BAD_USER_INPUT');
    expect(first.errors[0]?.locations).toEqual([{ line: 1, column: 3 }]);
    expect(bodies.slice(1)).toEqual(bodies.slice(0, -1));
  });
});
