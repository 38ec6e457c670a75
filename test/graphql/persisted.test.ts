// Persisted operations: a hash from the manifest stands for its document, over POST and over GET (a short URL a
// CDN can cache); an unknown hash is an APQ miss (200), a 400 with PERSISTED_OPERATIONS_ONLY, where nothing else
// runs.
import { createHash } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../src/app.js';
import { createListingTestDatabase, type TestDatabase } from '../helpers/database.js';
import { tempDir } from '../import/helpers.js';

const DOCUMENT = 'query Cards($seed: Int) { packages(limit: 3, seed: $seed) { count results { id title } } }';
const HASH = createHash('sha256').update(DOCUMENT).digest('hex');

let db: TestDatabase;
const dir = tempDir('persisted-');
const manifest = join(dir.path, 'persisted-documents.json');

beforeAll(async () => {
  db = await createListingTestDatabase(20);
  // As the client preset writes it: "sha256:<hex>" -> document.
  writeFileSync(manifest, JSON.stringify({ [`sha256:${HASH}`]: DOCUMENT }));
});
afterAll(async () => {
  await db?.destroy();
  dir.remove();
});

const appWith = (only = false) =>
  createApp({
    db,
    settings: { persistedOperations: { file: manifest, only }, rateLimit: { requests: 0, windowMs: 1000 } },
  });

const persisted = (hash: string) => ({ persistedQuery: { version: 1, sha256Hash: hash } });

async function post(app: ReturnType<typeof createApp>, body: object) {
  const response = await app.fetch('http://x/graphql', {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json' },
    body: JSON.stringify(body),
  });
  return {
    status: response.status,
    body: (await response.json()) as { data?: unknown; errors?: { extensions?: { code?: string } }[] },
  };
}

describe('persisted operations', () => {
  it('run from their hash over POST, and over GET with a cacheable answer', async () => {
    const app = appWith();
    const byPost = await post(app, { extensions: persisted(HASH), variables: { seed: 2 } });
    expect(byPost.status).toBe(200);
    expect(byPost.body.errors).toBeUndefined();
    const text = await post(app, { query: DOCUMENT, variables: { seed: 2 } });
    expect(byPost.body.data).toEqual(text.body.data);

    const url = `http://x/graphql?extensions=${encodeURIComponent(JSON.stringify(persisted(HASH)))}&variables=${encodeURIComponent('{"seed":2}')}`;
    const first = await app.fetch(url, { headers: { accept: 'application/json' } });
    expect(first.status).toBe(200);
    expect(first.headers.get('x-cache')).toBe('miss');
    expect(await first.json()).toEqual(byPost.body);
    const second = await app.fetch(url, { headers: { accept: 'application/json' } });
    expect(second.headers.get('x-cache')).toBe('hit');
  });

  it('answer an unknown hash 200 (an APQ miss: it may be registered), 400 with only=true, which refuses text', async () => {
    const missed = await post(appWith(), { extensions: persisted('0'.repeat(64)) });
    expect(missed.status).toBe(200);
    expect(missed.body.errors?.[0]?.extensions?.code).toBe('PERSISTED_QUERY_NOT_FOUND');
    const strict = appWith(true);
    const unknown = await post(strict, { extensions: persisted('0'.repeat(64)) });
    expect(unknown.status).toBe(400);
    expect(unknown.body.errors?.[0]?.extensions?.code).toBe('PERSISTED_QUERY_NOT_FOUND');
    const refused = await post(strict, { query: DOCUMENT });
    expect(refused.status).toBe(400);
    expect(refused.body.errors?.[0]?.extensions?.code).toBe('PERSISTED_QUERY_ONLY');
    expect((await post(strict, { extensions: persisted(HASH) })).status).toBe(200);
  });

  it('refuse to start on a manifest that is not a JSON object of documents, in one line', () => {
    writeFileSync(join(dir.path, 'bad.json'), '[1, 2]');
    expect(() =>
      createApp({ db, settings: { persistedOperations: { file: join(dir.path, 'bad.json'), only: false } } }),
    ).toThrow(/^PERSISTED_OPERATIONS .*bad\.json: must be a JSON object of hash -> document$/);
  });
});
