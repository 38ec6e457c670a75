// `npm start` as an operator meets it: one command serves /healthz on the embedded database with demo data,
// a restart keeps the data, and every configuration fault is one clear line and exit code 1.
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runScript, type ServerProcess, startServer } from '../helpers/server-process.js';
import { copyOfTemplate } from '../helpers/templates.js';

const dataDir = mkdtempSync(join(tmpdir(), 'listing-data-'));
const { version } = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
  version: string;
};
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

/** The start failed with exit code 1 and one JSON log line, level fatal, whose message matches. */
function expectOneLineError(result: { code: number | null; stdout: string; stderr: string }, pattern: RegExp) {
  expect(result.code).toBe(1);
  expect(result.stderr).toBe('');
  const lines = result.stdout.trim().split('\n');
  expect(lines).toHaveLength(1);
  const line = JSON.parse(lines[0] as string) as { level: string; msg: string };
  expect(line.level).toBe('fatal');
  expect(line.msg).toMatch(pattern);
  expect(result.stdout).not.toMatch(/\\n\s+at /);
}

describe('npm start on the embedded database', () => {
  it('migrates, seeds, serves /healthz, and shuts down cleanly on SIGTERM', async () => {
    const server = await startServer({ DATA_DIR: dataDir, SEED_PACKAGES: '60' });
    running.push(server);
    const health = await fetch(`${server.url}/healthz`);
    expect(health.status).toBe(200);
    expect(health.headers.get('content-type')).toBe('application/json');
    expect(await health.json()).toEqual({ status: 'ok', version });
    expect(server.output()).toContain('loaded 60 demo packages');
    expect(await countListed(server.url)).toBe(60);
    expect(await server.stop('SIGTERM')).toBe(0);
    // The lock is the kernel's, not the file's: the file stays, and the next start takes the lock at once.
    expect(readdirSync(dataDir)).toContain('PG_VERSION');
  });

  it('keeps the data across a restart, without seeding again', async () => {
    const server = await startServer({ DATA_DIR: dataDir, SEED_PACKAGES: '5' });
    running.push(server);
    expect(server.output()).not.toContain('demo packages');
    expect(await countListed(server.url)).toBe(60);

    // The port is taken: one line, and the running instance is unharmed.
    const port = new URL(server.url).port;
    const taken = await runScript('src/server.ts', {
      DATA_DIR: copyOfTemplate(),
      SEED_PACKAGES: '0',
      PORT: port,
      LOG_LEVEL: 'warn',
    });
    expectOneLineError(taken, new RegExp(`^cannot listen on 127\\.0\\.0\\.1:${port} \\(EADDRINUSE\\)$`));

    // A second instance on the same directory is refused while the first runs.
    const second = await runScript('src/server.ts', { DATA_DIR: dataDir, LOG_LEVEL: 'warn' });
    expectOneLineError(second, /^data directory .* is in use by another running instance$/);
    expect(await countListed(server.url)).toBe(60);
    expect(await server.stop('SIGINT')).toBe(0);
  });
});

describe('the embedded data directory', () => {
  it('is never blocked by a lock file left behind, whatever process id it names', async () => {
    const dir = copyOfTemplate();
    writeFileSync(join(dir, 'gateway.lock'), '1'); // pid 1 is always alive
    const server = await startServer({ DATA_DIR: dir, SEED_PACKAGES: '3' });
    running.push(server);
    expect(await countListed(server.url)).toBe(3);
    expect(await server.stop('SIGTERM')).toBe(0);
  });

  it('health notices when the directory is deleted or replaced, and a stop stays one clean line', async () => {
    const dir = copyOfTemplate();
    const server = await startServer({ DATA_DIR: dir, SEED_PACKAGES: '3' });
    running.push(server);
    expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
    rmSync(dir, { recursive: true, force: true });
    const gone = await fetch(`${server.url}/healthz`);
    expect(gone.status).toBe(503);
    expect(await gone.json()).toEqual({ status: 'unavailable', reason: `data directory ${dir} is missing`, version });
    writeFileSync(dir, 'not a directory');
    const replaced = await fetch(`${server.url}/healthz`);
    expect(((await replaced.json()) as { reason: string }).reason).toBe(
      `data directory ${dir} was replaced while the server ran`,
    );
    expect([0, 1]).toContain(await server.stop('SIGTERM'));
    expect(server.output()).not.toMatch(/\\n\s+at |"stack"/);
    rmSync(dir, { force: true });
  });
});

describe('a data directory PostgreSQL cannot start on', () => {
  it("stops the start with one line that says PostgreSQL's reason", async () => {
    const dir = copyOfTemplate();
    const wal = join(dir, 'pg_wal');
    for (const segment of readdirSync(wal).filter((name) => /^[0-9A-F]{24}$/.test(name))) {
      writeFileSync(join(wal, segment), ''); // the checkpoint record gone with it
    }
    const result = await runScript('src/server.ts', { DATA_DIR: dir, LOG_LEVEL: 'warn' });
    expectOneLineError(
      result,
      /^embedded database in \S+ cannot be opened: .*\(PostgreSQL: could not locate a valid checkpoint record/,
    );
    rmSync(dir, { recursive: true, force: true });
  });
});

describe('configuration faults stop the start with one line', () => {
  it.each([
    [
      { DATABASE_URL: 'mysql://localhost/x' },
      /^invalid configuration: DATABASE_URL="mysql:\/\/localhost\/x" must be a postgres/,
    ],
    [
      { DATABASE_URL: 'postgresql://postgres:s3cret@127.0.0.1:1/none', DATABASE_WAIT: '0' },
      /^cannot reach PostgreSQL at 127\.0\.0\.1:1\/none: connect ECONNREFUSED/,
    ],
    [{ PORT: 'abc' }, /^invalid configuration: PORT="abc"/],
    [{ SEED_PACKAGES: 'many' }, /^invalid configuration: SEED_PACKAGES="many"/],
    [{ DATA_DIR: 'package.json/data' }, /^data directory package\.json\/data cannot be created \(ENOTDIR\)$/],
    [{ DATA_DIR: 'package.json' }, /^data directory package\.json is not a directory$/],
    [{ DATA_DIR: 'prisma' }, /^data directory prisma holds files but no database \(no PG_VERSION\); refusing to write/],
  ])('%j', async (env, pattern) => {
    const result = await runScript('src/server.ts', { ...env, LOG_LEVEL: 'warn' });
    expectOneLineError(result, pattern);
    expect(result.stdout).not.toContain('s3cret');
  });
});
