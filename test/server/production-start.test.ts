// The server as the image starts it (NODE_ENV=production): closed unless a setting opens it. A start that would
// serve invented data, any site's pages, or the v2 path's personal data to anyone without a setting saying so is
// refused in one line before it touches any data, and a misspelled variable is named beside it; a start that names
// them serves with introspection, GraphiQL and CORS closed and /metrics on a port of its own.
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { hashKey } from '../../src/api-keys.js';
import { runScript, type ServerProcess, startServer } from '../helpers/server-process.js';
import { copyOfTemplate } from '../helpers/templates.js';

const scratch = mkdtempSync(join(tmpdir(), 'listing-production-'));
const running: ServerProcess[] = [];
afterAll(async () => {
  await Promise.all(running.map((server) => server.stop('SIGKILL')));
  rmSync(scratch, { recursive: true, force: true });
});

const lines = (stdout: string) =>
  stdout
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as { level: string; msg: string });

const V2_KEY = 'lgw_production-start-v2-key';
const SHOP = 'https://shop.example.com';

describe('a production start that names nothing', () => {
  it('with a misspelled DATABASE_URL: says which, refuses in one line, and writes no data', async () => {
    const dataDir = join(scratch, 'never-made');
    const result = await runScript('src/server.ts', {
      NODE_ENV: 'production',
      DATABSE_URL: 'postgresql://listing@127.0.0.1:5432/listing',
      DATA_DIR: dataDir,
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toBe('');
    const [typo, refusal, ...rest] = lines(result.stdout);
    expect(rest).toEqual([]);
    expect(typo).toMatchObject({ level: 'warn', msg: 'DATABSE_URL is not a setting; did you mean DATABASE_URL?' });
    expect(refusal?.level).toBe('fatal');
    expect(refusal?.msg).toMatch(/^refusing to start in production \(NODE_ENV=production\): DATABASE_URL is not set/);
    for (const named of ['DEMO=true', 'CORS_ORIGINS', 'V2_API_KEYS', 'V2_PUBLIC=true']) {
      expect(refusal?.msg).toContain(named);
    }
    expect(result.stdout).not.toContain('demo packages:');
    expect(existsSync(dataDir)).toBe(false);
  });

  it('on PostgreSQL with demo seeding asked: refuses it, naming SEED_PACKAGES and DEMO', async () => {
    const result = await runScript('src/server.ts', {
      NODE_ENV: 'production',
      // Never reached: the start stops before it opens the database.
      DATABASE_URL: 'postgresql://listing@127.0.0.1:1/listing',
      SEED_PACKAGES: '2000',
      CORS_ORIGINS: SHOP,
      V2_PUBLIC: 'true',
      LOG_LEVEL: 'warn',
    });
    expect(result.code).toBe(1);
    expect(lines(result.stdout)).toEqual([
      expect.objectContaining({
        level: 'fatal',
        msg: 'refusing to start in production (NODE_ENV=production): SEED_PACKAGES=2000 would load invented demo packages (DEMO=true if this instance is a demo; npm run import loads the listing)',
      }),
    ]);
  });
});

describe('a production start that names what it opens', () => {
  it('serves with introspection, GraphiQL and foreign origins closed, /metrics on its own port, v2 behind keys', async () => {
    const server = await startServer({
      NODE_ENV: 'production',
      DEMO: 'true',
      DATA_DIR: copyOfTemplate(),
      SEED_PACKAGES: '3',
      CORS_ORIGINS: SHOP,
      V2_API_KEYS: `legacy:${hashKey(V2_KEY).toString('hex')}`,
      METRICS_PORT: '0',
    });
    running.push(server);
    const introspection = await fetch(`${server.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query: '{ __schema { queryType { name } } }' }),
    });
    const answer = (await introspection.json()) as { data?: unknown; errors?: { message: string }[] };
    expect(answer.data).toBeUndefined();
    expect(answer.errors?.[0]?.message).toMatch(/introspection has been disabled/);

    const page = await fetch(`${server.url}/graphql`, { headers: { accept: 'text/html' } });
    expect(page.headers.get('content-type') ?? '').not.toContain('text/html');

    const query = `${server.url}/graphql?query=${encodeURIComponent('{ __typename }')}`;
    const foreign = await fetch(query, { headers: { origin: 'https://elsewhere.example' } });
    expect(foreign.status).toBe(200);
    expect(foreign.headers.get('access-control-allow-origin')).toBeNull();
    const shop = await fetch(query, { headers: { origin: SHOP } });
    expect(shop.headers.get('access-control-allow-origin')).toBe(SHOP);

    const publicMetrics = await fetch(`${server.url}/metrics`);
    expect(publicMetrics.status).toBe(404);
    expect(await publicMetrics.text()).not.toContain('process_resident_memory_bytes');
    const metricsUrl = /metrics: +(http:\/\/\S+\/metrics) \(METRICS_PORT/.exec(server.output())?.[1];
    expect(metricsUrl).toBeDefined();
    expect(new URL(metricsUrl as string).port).not.toBe(new URL(server.url).port);
    const scraped = await fetch(metricsUrl as string);
    expect(scraped.status).toBe(200);
    expect(await scraped.text()).toMatch(/^process_resident_memory_bytes \d+/m);

    const anonymous = await fetch(`${server.url}/v2/local-package-list/?limit=1`);
    expect(anonymous.status).toBe(401);
    expect(await anonymous.text()).not.toContain('photographer_email');
    const legacy = await fetch(`${server.url}/v2/local-package-list/?limit=1`, {
      headers: { authorization: `Bearer ${V2_KEY}` },
    });
    expect(legacy.status).toBe(200);
    expect(await legacy.text()).toContain('"photographer_email"');

    expect(await server.stop('SIGTERM')).toBe(0);
    // The metrics port is closed with the rest.
    await expect(fetch(metricsUrl as string)).rejects.toThrow();
  });
});
