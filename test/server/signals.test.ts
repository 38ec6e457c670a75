// What an operator sees of a started server, as `npm start` runs it: the build it runs (its version, the commit it
// was built from and Node's version, in the start line, /healthz and build_info), and a request to a path of none
// of ours, answered 404 by the Node edge, in one log line and the HTTP metric, as every other answer is.
import { cpSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rawRequest } from '../helpers/http.js';
import { runScript, type ServerProcess, startServer } from '../helpers/server-process.js';
import { copyOfTemplate } from '../helpers/templates.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const { version } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string };
const COMMIT = '0123456789abcdef0123456789abcdef01234567';

let root: string;
let server: ServerProcess;

/** A copy of the built project (its dist/, the rest linked), built from COMMIT as a CI would say it. */
async function builtFrom(commit: string): Promise<string> {
  const copy = mkdtempSync(join(tmpdir(), 'build-copy-'));
  cpSync(join(ROOT, 'dist'), join(copy, 'dist'), { recursive: true });
  for (const name of ['node_modules', 'prisma', 'package.json', 'package-lock.json']) {
    symlinkSync(join(ROOT, name), join(copy, name));
  }
  const done = await runScript('src/cli/fingerprint.ts', { SOURCE_COMMIT: commit }, [join(copy, 'dist')]);
  expect(done.code, done.stderr).toBe(0);
  return copy;
}

beforeAll(async () => {
  root = await builtFrom(COMMIT);
  server = await startServer({ DATA_DIR: copyOfTemplate(), SEED_PACKAGES: '3' }, root);
}, 120_000);
afterAll(async () => {
  await server?.stop('SIGKILL');
  if (root) rmSync(root, { recursive: true, force: true });
});

type Line = Record<string, unknown>;
const lines = (): Line[] =>
  server
    .output()
    .split('\n')
    .filter((text) => text.startsWith('{'))
    .map((text) => JSON.parse(text) as Line);

/** The request line of the answer with this id, once written. */
async function lineOf(requestId: string | undefined): Promise<Line | undefined> {
  for (let i = 0; i < 50; i++) {
    const line = lines().find((l) => l.msg === 'request' && l.requestId === requestId);
    if (line) return line;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return undefined;
}

const metrics = async () => (await fetch(`${server.url}/metrics`)).text();

describe('a started server', () => {
  it('names its version, commit and Node at start, in /healthz and in build_info', async () => {
    const start = lines().find((l) => typeof l.msg === 'string' && l.msg.startsWith('version '));
    expect(start).toMatchObject({ level: 'info', version, commit: COMMIT, node: process.version });
    expect(start?.msg).toContain(`version ${version} (commit ${COMMIT}, Node ${process.version}); database: `);
    expect(await (await fetch(`${server.url}/healthz`)).json()).toEqual({ status: 'ok', version });
    expect(await metrics()).toContain(
      `\nbuild_info{version="${version}",commit="${COMMIT}",node="${process.version}"} 1\n`,
    );
  });

  it('logs and counts a path of none of ours (404) as one line at info, its path without the query', async () => {
    const before = await metrics();
    const count = (text: string) =>
      Number(
        /^http_request_duration_seconds_count\{method="GET",route="other",status="404"\} (\d+)$/m.exec(text)?.[1] ?? 0,
      );
    const answer = await rawRequest(server.url, { path: '/wp-login.php?pwd=hunter2' });
    expect(answer.status).toBe(404);
    const line = await lineOf(answer.headers['x-request-id'] as string);
    expect(line).toMatchObject({ level: 'info', method: 'GET', path: '/wp-login.php', status: 404 });
    expect(line?.address).toBe('127.0.0.1');
    expect(typeof line?.durationMs).toBe('number');
    expect(server.output()).not.toContain('hunter2');
    const long = await rawRequest(server.url, { path: `/${'a'.repeat(5000)}` });
    expect(long.status).toBe(404);
    expect((await lineOf(long.headers['x-request-id'] as string))?.path).toBe(`/${'a'.repeat(199)}…`);
    expect(count(await metrics()) - count(before)).toBe(2);
  });

  it("logs and counts the edge's refusals too: a malformed Host is 400", async () => {
    const answer = await rawRequest(server.url, { path: '/v2/local-package-list/', headers: { host: 'a b' } });
    expect(answer.status).toBe(400);
    expect(await lineOf(answer.headers['x-request-id'] as string)).toMatchObject({
      level: 'info',
      path: '/v2/local-package-list/',
      status: 400,
    });
    expect(await metrics()).toMatch(
      /^http_request_duration_seconds_count\{method="GET",route="\/v2\/local-package-list\/",status="400"\} 1$/m,
    );
  });
});
