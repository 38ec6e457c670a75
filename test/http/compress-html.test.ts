// GraphiQL's page (all assets inlined) goes out gzipped to clients that accept it; JSON responses do not.
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../src/app.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';

let db: TestDatabase;
let app: ReturnType<typeof createApp>;
beforeAll(async () => {
  db = await createTestDatabase();
  app = createApp({ db });
});
afterAll(() => db?.destroy());

describe('compression of the GraphiQL page', () => {
  it('gzips the page for clients that accept gzip, and keeps it plain for the others', async () => {
    const zipped = await app.fetch('http://x/graphql', {
      headers: { accept: 'text/html', 'accept-encoding': 'gzip, br' },
    });
    expect(zipped.headers.get('content-encoding')).toBe('gzip');
    const html = gunzipSync(Buffer.from(await zipped.arrayBuffer())).toString('utf8');
    expect(html).toContain('<title>Package listing GraphQL</title>');
    const plain = await app.fetch('http://x/graphql', { headers: { accept: 'text/html' } });
    expect(plain.headers.get('content-encoding')).toBeNull();
    expect(await plain.text()).toBe(html);
    expect(zipped.headers.get('content-length')).not.toBeNull();
    expect(Number(zipped.headers.get('content-length'))).toBeLessThan(html.length / 2);
  });

  it('leaves the v2 JSON as it is', async () => {
    const response = await app.fetch('http://x/v2/local-package-list/?seed=1', {
      headers: { 'accept-encoding': 'gzip' },
    });
    expect(response.headers.get('content-encoding')).toBeNull();
    expect(await response.json()).toMatchObject({ count: 0, results: [] });
  });
});
