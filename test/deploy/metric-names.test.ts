// Every metric the rules (deploy/prometheus) and the dashboard (deploy/grafana) query is one the app exposes:
// an app on the test database, with Redis, after a few requests, and the names of its /metrics (a metric with
// its # TYPE line counts, with or without samples yet). The database gauges of src/http/metrics.ts are
// registered only on PostgreSQL (the embedded engine has no pool): on PGlite they must be exactly what is
// missing, on PostgreSQL nothing is. Without read replicas db_up and db_serving have the primary's sample (asked
// at scrape time), db_replica_lag_seconds and db_routed_requests_total none.
import { totalmem } from 'node:os';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type App, createApp } from '../../src/app.js';
import { FullPageDocument } from '../../src/generated/graphql/graphql.js';
import { createTestDatabase, engineName, onPostgres, type TestDatabase } from '../helpers/database.js';
import { graphql } from '../helpers/graphql.js';
import { dashboardQueries, exposedName, metricNames, recorded, rules } from '../helpers/prometheus.js';

const REDIS = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
/** The series Prometheus makes itself for each target it scrapes: no app exposes them. */
const PROMETHEUS_OWN = new Set(['up']);
const REPLICAS_ONLY = ['db_replica_lag_seconds', 'db_routed_requests_total'];
const POSTGRES_ONLY = [
  'db_pool_connections',
  'db_pool_idle_connections',
  'db_pool_waiting_requests',
  'db_up',
  'db_serving',
  ...REPLICAS_ONLY,
];

let db: TestDatabase;
let app: App;
let text: string;

beforeAll(async () => {
  db = await createTestDatabase();
  app = createApp({ db, settings: { redisUrl: REDIS } });
  await app.fetch('http://localhost/healthz');
  await app.fetch('http://localhost/v2/local-package-list/?limit=2&seed=1');
  await graphql(app, FullPageDocument, { limit: 2, seed: 1 });
  text = await (await app.fetch('http://localhost/metrics')).text();
});
afterAll(async () => {
  await app?.dispose();
  await db?.destroy();
});

function queried(): Map<string, string> {
  const where = new Map<string, string>();
  for (const rule of rules) {
    for (const name of metricNames(rule.expr)) where.set(name, rule.record ?? (rule.alert as string));
  }
  for (const query of dashboardQueries()) for (const name of metricNames(query.expr)) where.set(name, query.where);
  return where;
}

describe(`the metrics the rules and the dashboard query, on ${engineName}`, () => {
  it('finds the metric names in PromQL', () => {
    expect([
      ...metricNames('sum by (le) (rate(a_bucket{route!~"/x|y",le="0.5"}[5m])) / on () group_left () b:c'),
    ]).toEqual(['a_bucket', 'b:c']);
    expect([...metricNames('histogram_quantile(0.99, sum(rate(x_seconds_bucket[1h]))) > 14.4 and bool y')]).toEqual([
      'x_seconds_bucket',
      'y',
    ]);
  });

  it('are exposed by the app, recording rules aside', () => {
    const typed = new Map([...text.matchAll(/^# TYPE (\S+) (\S+)$/gm)].map((m) => [m[1] as string, m[2] as string]));
    const histograms = new Set([...typed].filter(([, type]) => type === 'histogram').map(([name]) => name));
    const where = queried();
    expect([...where.keys()].filter((name) => name.includes(':') && !recorded.has(name))).toEqual([]);
    const missing = [...where.keys()].filter(
      (name) => !recorded.has(name) && !PROMETHEUS_OWN.has(name) && !typed.has(exposedName(name, histograms)),
    );
    if (onPostgres) expect(missing.map((name) => `${name} (${where.get(name)})`)).toEqual([]);
    else expect(missing.sort()).toEqual(POSTGRES_ONLY.filter((name) => where.has(name)).sort());
  });

  it.runIf(onPostgres)("says the primary is up without replicas, and registers the replicas' gauges empty", () => {
    expect(text).toMatch(/^db_up\{role="primary"\} 1$/m);
    expect(text).toMatch(/^db_serving\{role="primary"\} 1$/m);
    for (const name of REPLICAS_ONLY) {
      expect(text).toMatch(new RegExp(`^# TYPE ${name} `, 'm'));
      expect(text).not.toMatch(new RegExp(`^${name}[ {]`, 'm'));
    }
  });

  it('have the series the SLO rules select: the 0.5 s bucket, and the routes the rules leave out', () => {
    expect(text).toMatch(
      /^http_request_duration_seconds_bucket\{le="0\.5",method="GET",route="\/v2\/local-package-list\/",status="200"\}/m,
    );
    expect(text).toMatch(/^http_request_duration_seconds_count\{method="GET",route="\/healthz",status="200"\}/m);
    expect(text).toMatch(/^redis_up [01]$/m);
    expect(text).toMatch(/^nodejs_eventloop_lag_p99_seconds \S+$/m);
    expect(text).toMatch(/^process_resident_memory_bytes \d+$/m);
    // The container's limit where there is one, the machine's memory otherwise: never more, never none.
    const limit = Number(/^process_memory_limit_bytes (\d+)$/m.exec(text)?.[1]);
    expect(limit).toBeGreaterThan(0);
    expect(limit).toBeLessThanOrEqual(totalmem());
  });
});
