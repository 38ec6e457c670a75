// `npm start` as an operator meets it: one command serves /healthz on the embedded database with demo data,
// a restart keeps the data, and every configuration fault is one clear line and exit code 1.
import { mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runScript, type ServerProcess, startServer } from '../helpers/server-process.js';

const dataDir = mkdtempSync(join(tmpdir(), 'listing-data-'));
const running: ServerProcess[] = [];
afterAll(async () => {
  await Promise.all(running.map((server) => server.stop('SIGKILL')));
});

async function countListed(url: string): Promise<number> {
  const response = await fetch(`${url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ query: '{ packages(limit: 1) { count } }' }),
  });
  const body = (await response.json()) as { data: { packages: { count: number } } };
  return body.data.packages.count;
}

function expectOneLineError(result: { code: number | null; stderr: string }, pattern: RegExp) {
  expect(result.code).toBe(1);
  const lines = result.stderr.trim().split('\n');
  expect(lines).toHaveLength(1);
  expect(lines[0]).toMatch(pattern);
  expect(result.stderr).not.toMatch(/\n\s+at /);
}

describe('npm start on the embedded database', () => {
  it('migrates, seeds, serves /healthz, and shuts down cleanly on SIGTERM', async () => {
    const server = await startServer({ DATA_DIR: dataDir, SEED_PACKAGES: '60' });
    running.push(server);
    const health = await fetch(`${server.url}/healthz`);
    expect(health.status).toBe(200);
    expect(health.headers.get('content-type')).toBe('application/json');
    expect(await health.json()).toEqual({ status: 'ok' });
    expect(server.output()).toContain('loaded 60 demo packages');
    expect(await countListed(server.url)).toBe(60);
    expect(await server.stop('SIGTERM')).toBe(0);
    expect(readdirSync(dataDir)).not.toContain('gateway.lock');
  });

  it('keeps the data across a restart, without seeding again', async () => {
    const server = await startServer({ DATA_DIR: dataDir, SEED_PACKAGES: '5' });
    running.push(server);
    expect(server.output()).not.toContain('demo packages');
    expect(await countListed(server.url)).toBe(60);

    // The port is taken: one line, and the running instance is unharmed.
    const port = new URL(server.url).port;
    const taken = await runScript('src/server.ts', { DATA_DIR: 'memory://', SEED_PACKAGES: '0', PORT: port });
    expectOneLineError(taken, new RegExp(`^error: cannot listen on 127\\.0\\.0\\.1:${port} \\(EADDRINUSE\\)$`));

    // A second instance on the same directory is refused while the first runs.
    const second = await runScript('src/server.ts', { DATA_DIR: dataDir });
    expectOneLineError(second, /^error: data directory .* is in use by another running instance \(pid \d+\)$/);
    expect(await countListed(server.url)).toBe(60);
    expect(await server.stop('SIGINT')).toBe(0);
  });
});

describe('configuration faults stop the start with one line', () => {
  it.each([
    [
      { DATABASE_URL: 'mysql://localhost/x' },
      /^error: invalid configuration: DATABASE_URL="mysql:\/\/localhost\/x" must be a postgres/,
    ],
    [
      { DATABASE_URL: 'postgresql://postgres@127.0.0.1:1/none' },
      /^error: cannot reach PostgreSQL at 127\.0\.0\.1:1\/none: ECONNREFUSED/,
    ],
    [{ PORT: 'abc' }, /^error: invalid configuration: PORT="abc"/],
    [{ SEED_PACKAGES: 'many' }, /^error: invalid configuration: SEED_PACKAGES="many"/],
    [{ DATA_DIR: 'package.json/data' }, /^error: data directory package\.json\/data cannot be created \(ENOTDIR\)$/],
    [{ DATA_DIR: 'package.json' }, /^error: data directory package\.json is not a directory$/],
  ])('%j', async (env, pattern) => {
    expectOneLineError(await runScript('src/server.ts', env), pattern);
  });
});
