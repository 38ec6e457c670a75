// The order of the request pipeline (src/app.ts), held by what each constraint is for: each test fails when the
// plugins it names are listed in the other order.
import { createHash } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { brotliDecompressSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AppSettings, createApp } from '../src/app.js';
import { createListingTestDatabase, type TestDatabase } from './helpers/database.js';
import { graphql, TEST_KEYS } from './helpers/graphql.js';
import { tempDir } from './import/helpers.js';

const ORIGIN = 'http://localhost';
const V2 = `${ORIGIN}/v2/local-package-list/?limit=20&seed=5`;

let db: TestDatabase;
const apps: ReturnType<typeof createApp>[] = [];

function appWith(settings: Partial<AppSettings> = {}) {
  const app = createApp({
    db,
    settings: { apiKeys: TEST_KEYS, rateLimit: { requests: 0, windowMs: 60_000 }, ...settings },
  });
  apps.push(app);
  return app;
}

beforeAll(async () => {
  db = await createListingTestDatabase(30);
});
afterAll(async () => {
  for (const app of apps) await app.dispose();
  await db?.destroy();
});

describe('the request pipeline', () => {
  it('keeps answers uncompressed in the cache and encodes its hits once (cache before compression)', async () => {
    const app = appWith();
    const decoded: string[] = [];
    for (const expected of ['miss', 'hit', 'hit']) {
      const answer = await app.fetch(V2, { headers: { 'accept-encoding': 'br' } });
      expect(answer.headers.get('x-cache')).toBe(expected);
      expect(answer.headers.get('content-encoding')).toBe('br');
      decoded.push(brotliDecompressSync(Buffer.from(await answer.arrayBuffer())).toString());
    }
    expect(decoded[0]).toMatch(/^\{"count":/);
    expect(new Set(decoded).size).toBe(1);
  });

  it('counts a cached answer against the rate limit (rate limits before the cache)', async () => {
    const app = appWith({ rateLimit: { requests: 2, windowMs: 60_000 } });
    expect((await app.fetch(V2)).headers.get('x-cache')).toBe('miss');
    expect((await app.fetch(V2)).headers.get('x-cache')).toBe('hit');
    expect((await app.fetch(V2)).status).toBe(429);
  });

  it('runs a registered hash beside a manifest (automatic persisted queries before persisted operations)', async () => {
    const dir = tempDir('pipeline-');
    try {
      const trusted = '{ packages(limit: 1, seed: 1) { count } }';
      const registered = '{ packages(limit: 2, seed: 2) { count } }';
      const hash = (text: string) => createHash('sha256').update(text).digest('hex');
      const manifest = join(dir.path, 'manifest.json');
      writeFileSync(manifest, JSON.stringify({ [hash(trusted)]: trusted }));
      const app = appWith({ persistedOperations: { file: manifest, only: false } });
      const send = (body: object) =>
        app.fetch(`${ORIGIN}/graphql`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(body),
        });
      const extensions = (text: string) => ({ persistedQuery: { version: 1, sha256Hash: hash(text) } });
      expect((await send({ query: registered, extensions: extensions(registered) })).status).toBe(200);
      // The persisted operations would answer a hash their manifest lacks as unknown.
      expect((await send({ extensions: extensions(registered) })).status).toBe(200);
      expect((await send({ extensions: extensions(trusted) })).status).toBe(200);
    } finally {
      dir.remove();
    }
  });

  it('answers on time once graphql-jit has compiled the document (jit before the deadline)', async () => {
    const app = appWith({ requestTimeoutMs: 300, responseCacheBytes: 0 });
    const query = '{ packages(limit: 1, seed: 4) { count results { id } } }';
    // The third run of a document is compiled (src/graphql/jit.ts); the fourth runs the compiled function.
    for (let i = 0; i < 3; i++) expect((await graphql(app, query)).status).toBe(200);
    let release = () => {};
    let locked = () => {};
    const held = new Promise<void>((resolve) => (release = resolve));
    const isLocked = new Promise<void>((resolve) => (locked = resolve));
    const locking = db.prisma.$transaction(
      async (tx) => {
        await tx.$executeRawUnsafe('LOCK TABLE listing_entry IN ACCESS EXCLUSIVE MODE');
        locked();
        await held;
      },
      { timeout: 20_000 },
    );
    await isLocked;
    try {
      const started = performance.now();
      const { status, body } = await graphql(app, query);
      expect(performance.now() - started).toBeLessThan(1500);
      expect(status).toBe(504);
      expect(body.errors?.[0]?.extensions?.code).toBe('TIMEOUT');
    } finally {
      release();
      await locking;
    }
  });
});
