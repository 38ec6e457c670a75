// /metrics, the per-request log line, and masking of unexpected errors.
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedDemoData } from '../../src/db/seed/seed.js';
import { FullPageDocument } from '../../src/generated/graphql/graphql.js';
import { createApp } from '../../src/graphql/yoga.js';
import { createTestDatabase, engineName, type TestDatabase } from '../helpers/database.js';
import { graphql } from '../helpers/graphql.js';

let db: TestDatabase;
const logLines: Record<string, unknown>[] = [];
const logger = pino(
  { level: 'info' },
  new Writable({
    write(chunk, _encoding, done) {
      logLines.push(JSON.parse(String(chunk)));
      done();
    },
  }),
);
let app: ReturnType<typeof createApp>;

beforeAll(async () => {
  db = await createTestDatabase();
  await seedDemoData(db, { packages: 40 });
  app = createApp({ db, logger });
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

  it('logs one structured line per request', async () => {
    logLines.length = 0;
    await app.fetch('http://localhost/healthz');
    const requests = logLines.filter((l) => l.msg === 'request');
    expect(requests).toHaveLength(1);
    expect(requests[0]).toMatchObject({ level: 30, method: 'GET', path: '/healthz', status: 200 });
    expect(typeof requests[0]?.durationMs).toBe('number');
  });

  it('masks unexpected errors for clients and logs them in full', async () => {
    const broken = await createTestDatabase();
    const brokenApp = createApp({ db: broken, logger });
    await broken.destroy();
    logLines.length = 0;
    const { status, body } = await graphql(brokenApp, '{ packages { count } }');
    expect(status).toBe(200);
    expect(body.errors).toEqual([expect.objectContaining({ message: 'Unexpected error.' })]);
    expect(JSON.stringify(body)).not.toMatch(/stack|prisma|pglite|postgres|closed|terminat/i);
    expect(logLines.some((l) => l.level === 50)).toBe(true);
  });
});
