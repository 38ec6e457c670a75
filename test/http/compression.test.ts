// Accept-Encoding negotiated compression: JSON and HTML answers go out br or gzip to clients that accept them,
// and decode to exactly the bytes an uncompressing client gets (the v2 contract's byte checks hold through it).
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../src/app.js';
import { chooseEncoding } from '../../src/http/compression.js';
import { createListingTestDatabase, type TestDatabase } from '../helpers/database.js';

let db: TestDatabase;
let app: ReturnType<typeof createApp>;
beforeAll(async () => {
  db = await createListingTestDatabase(40);
  // The cache off: these are the answers as made, not as kept.
  app = createApp({ db, settings: { responseCacheBytes: 0 } });
});
afterAll(() => db?.destroy());

const V2 = 'http://x/v2/local-package-list/?limit=20&seed=4';
const decode = { br: brotliDecompressSync, gzip: gunzipSync } as const;

describe('chooseEncoding', () => {
  it.each([
    ['gzip, deflate, br', 'br'],
    ['gzip', 'gzip'],
    ['br;q=0, gzip', 'gzip'],
    ['gzip;q=1.0, br;q=0.5', 'gzip'],
    ['*', 'br'],
    ['identity', null],
    ['br;q=0, gzip;q=0', null],
    ['', null],
  ])('%j -> %s', (header, expected) => {
    expect(chooseEncoding(header)).toBe(expected);
  });
});

describe('compressed answers', () => {
  it.each(['br', 'gzip'] as const)('the v2 page in %s decodes to the exact uncompressed bytes', async (encoding) => {
    const plain = await app.fetch(V2);
    expect(plain.headers.get('content-encoding')).toBeNull();
    const bytes = Buffer.from(await plain.arrayBuffer());
    const packed = await app.fetch(V2, { headers: { 'accept-encoding': encoding } });
    expect(packed.headers.get('content-encoding')).toBe(encoding);
    expect(packed.headers.get('content-type')).toBe('application/json');
    const vary = (packed.headers.get('vary') ?? '').split(',').map((v) => v.trim());
    expect(vary).toEqual(expect.arrayContaining(['Accept', 'Accept-Encoding']));
    const compressed = Buffer.from(await packed.arrayBuffer());
    expect(Number(packed.headers.get('content-length'))).toBe(compressed.length);
    expect(compressed.length).toBeLessThan(bytes.length / 3);
    expect(decode[encoding](compressed).equals(bytes)).toBe(true);
  });

  it('GraphiQL, a GraphQL page: compressed; a short answer and HEAD: as they are', async () => {
    const page = await app.fetch('http://x/graphql', { headers: { accept: 'text/html', 'accept-encoding': 'gzip' } });
    expect(page.headers.get('content-encoding')).toBe('gzip');
    expect(gunzipSync(Buffer.from(await page.arrayBuffer())).toString()).toContain('<title>Package listing GraphQL');
    const query = JSON.stringify({ query: '{ packages(limit: 30, seed: 1) { results { id title description } } }' });
    const graphql = await app.fetch('http://x/graphql', {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'accept-encoding': 'br' },
      body: query,
    });
    expect(graphql.headers.get('content-encoding')).toBe('br');
    expect(JSON.parse(brotliDecompressSync(Buffer.from(await graphql.arrayBuffer())).toString()).data).toBeDefined();
    const short = await app.fetch(V2, { method: 'DELETE', headers: { 'accept-encoding': 'br' } });
    expect(short.status).toBe(405);
    expect(short.headers.get('content-encoding')).toBeNull();
    const head = await app.fetch(V2, { method: 'HEAD', headers: { 'accept-encoding': 'br' } });
    expect(head.headers.get('content-encoding')).toBeNull();
  });
});
