// /metrics, the per-request log line, and masking of unexpected errors.
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../src/app.js';
import { seedDemoData } from '../../src/demo/seed.js';
import { FullPageDocument } from '../../src/generated/graphql/graphql.js';
import { createLogger, redactCredentials, requestContext } from '../../src/logger.js';
import {
  createTestDatabase,
  engineName,
  failingReads,
  readingThrough,
  type TestDatabase,
} from '../helpers/database.js';
import { graphql } from '../helpers/graphql.js';

let db: TestDatabase;
const logLines: Record<string, unknown>[] = [];
const logger = createLogger({
  level: 'info',
  destination: new Writable({
    write(chunk, _encoding, done) {
      logLines.push(JSON.parse(String(chunk)));
      done();
    },
  }),
});
let app: ReturnType<typeof createApp>;

beforeAll(async () => {
  db = await createTestDatabase();
  await seedDemoData(db, { packages: 40 });
  // The statement counter is compared with one request's statements: the version watch (every second) is slowed.
  app = createApp({ db, logger, settings: { listingWatchMs: 3_600_000 } });
});
afterAll(() => db?.destroy());

async function metric(name: string, labels = ''): Promise<number> {
  const text = await (await app.fetch('http://localhost/metrics')).text();
  const line = text.split('\n').find((l) => l.startsWith(`${name}${labels}`) && !l.startsWith('#'));
  return line ? Number(line.split(' ').pop()) : Number.NaN;
}

describe(`observability on ${engineName}`, () => {
  it('serves Prometheus text with the SQL statement counter and request duration histograms', async () => {
    const response = await app.fetch('http://localhost/metrics');
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toContain('text/plain');
    const text = await response.text();
    expect(text).toContain('# TYPE db_queries_total counter');
    expect(text).toContain('# TYPE http_request_duration_seconds histogram');
    expect(text).toContain('# TYPE graphql_request_duration_seconds histogram');
  });

  it('counts every SQL statement a request runs', async () => {
    const before = await metric('db_queries_total');
    const { statements } = await db.statements.record(() => graphql(app, FullPageDocument, { limit: 5, seed: 1 }));
    expect(statements.length).toBeGreaterThan(2);
    expect(await metric('db_queries_total')).toBe(before + statements.length);
    expect(
      await metric('graphql_request_duration_seconds_count', '{operation="FullPage",outcome="ok"}'),
    ).toBeGreaterThanOrEqual(1);
    expect(
      await metric('http_request_duration_seconds_count', '{method="POST",route="/graphql",status="200"}'),
    ).toBeGreaterThanOrEqual(1);
  });

  it("counts the response cache's misses and hits by route", async () => {
    const page = 'http://localhost/v2/local-package-list/?limit=3&seed=4242';
    const labels = (result: string) => `{route="/v2/local-package-list/",result="${result}"}`;
    const count = async (result: string) => (await metric('response_cache_answers_total', labels(result))) || 0;
    const [misses, hits] = [await count('miss'), await count('hit')];
    expect((await app.fetch(page)).headers.get('x-cache')).toBe('miss');
    expect((await app.fetch(page)).headers.get('x-cache')).toBe('hit');
    expect((await app.fetch(page)).headers.get('x-cache')).toBe('hit');
    expect([await count('miss'), await count('hit')]).toEqual([misses + 1, hits + 2]);
  });

  it('logs one structured line per request (the probes at debug: none at info)', async () => {
    logLines.length = 0;
    await app.fetch('http://localhost/healthz');
    await app.fetch('http://localhost/v2/openapi.json');
    const requests = logLines.filter((l) => l.msg === 'request');
    expect(requests).toHaveLength(1);
    expect(requests[0]).toMatchObject({ level: 'info', method: 'GET', path: '/v2/openapi.json', status: 200 });
    expect(typeof requests[0]?.durationMs).toBe('number');
  });

  /** An app whose every read fails with a bug (not a database fault), naming a file as stack traces do. */
  function appWithBug() {
    return createApp({
      db: readingThrough(
        db,
        failingReads(new TypeError('cannot read x of undefined at /srv/app/src/listing/store.ts:12')),
      ),
      logger,
    });
  }

  it('masks unexpected errors for clients and logs them in full, once', async () => {
    logLines.length = 0;
    const { status, body } = await graphql(appWithBug(), '{ packages { count } }');
    expect(status).toBe(200);
    expect(body.errors).toEqual([expect.objectContaining({ message: 'Unexpected error.' })]);
    expect(JSON.stringify(body)).not.toMatch(/stack|store\.ts|srv|undefined/i);
    expect(logLines.filter((l) => l.level === 'error')).toHaveLength(1);
  });

  it('ties every line of a request, its error included, to the request id', async () => {
    logLines.length = 0;
    await requestContext.run({ requestId: 'req-7f3a' }, () => graphql(appWithBug(), '{ packages { count } }'));
    const errors = logLines.filter((l) => l.level === 'error');
    expect(errors.length).toBeGreaterThan(0);
    for (const line of [...errors, ...logLines.filter((l) => l.msg === 'request')]) {
      expect(line.requestId).toBe('req-7f3a');
    }
  });

  it('answers 503 SERVICE_UNAVAILABLE, once, when the database is gone, and warns without an error line', async () => {
    const gone = await createTestDatabase();
    const goneApp = createApp({ db: gone, logger });
    await gone.destroy();
    logLines.length = 0;
    const { status, body } = await graphql(goneApp, '{ packages { count } }');
    expect(status).toBe(503);
    expect(body.errors).toEqual([expect.objectContaining({ extensions: { code: 'SERVICE_UNAVAILABLE' } })]);
    expect(logLines.filter((l) => l.level === 'error')).toEqual([]);
  });

  it('never writes the password of a connection string', () => {
    expect(redactCredentials('cannot use postgresql://app:s3cr3t@db:5432/listing now')).toBe(
      'cannot use postgresql://app:***@db:5432/listing now',
    );
    logLines.length = 0;
    logger.warn({ err: new Error('connect to redis://:hunter2@cache:6379 failed') }, 'postgres://u:p@h/d is down');
    expect(JSON.stringify(logLines)).not.toMatch(/hunter2|u:p@/);
  });

  it("exports pool gauges (PostgreSQL) and the read path's statement durations", async () => {
    const text = await (await app.fetch('http://localhost/metrics')).text();
    expect(text).toContain('# TYPE db_query_duration_seconds histogram');
    if (db.kind === 'postgresql') {
      for (const gauge of ['db_pool_connections', 'db_pool_idle_connections', 'db_pool_waiting_requests']) {
        expect(text).toMatch(new RegExp(`^${gauge}\\{role="primary"\\} \\d+$`, 'm'));
      }
      // No pooler in front: statement names stay on (test/db/pgbouncer.test.ts finds one).
      expect(text).toMatch(/^db_pooler_detected_total\{role="primary"\} 0$/m);
    }
    expect(text).toContain('process_cpu_seconds_total');
  });
});
