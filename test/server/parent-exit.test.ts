// A server whose parent exits after it listens. One npm started stops with it, as on SIGTERM: npm killed by SIGKILL
// must leave no server running unseen. One started otherwise (`nohup node dist/server.js &` and a logout, a
// supervisor that double-forks) keeps serving, as a daemon does; STOP_WITH_PARENT decides either way.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { environment } from '../../src/config.js';
import { tempDir } from '../helpers/temp-dir.js';
import { copyOfTemplate } from '../helpers/templates.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const logs = tempDir('parent-exit-');
const started: number[] = [];
afterAll(() => {
  for (const pid of started) alive(pid) && process.kill(pid, 'SIGKILL');
  logs.remove();
});

/**
 * The launcher: starts dist/server.js detached (a session of its own, as a double fork leaves it), its output to
 * `log`, waits until it listens, prints its process id and exits, so that the server's parent is gone.
 */
const LAUNCHER = `
import { spawn } from 'node:child_process';
import { openSync, readFileSync } from 'node:fs';
const [log] = process.argv.slice(1);
const out = openSync(log, 'w');
const child = spawn(process.execPath, ['dist/server.js'], { detached: true, stdio: ['ignore', out, out] });
child.unref();
child.on('exit', (code) => { console.error('the server exited with ' + code); process.exit(1); });
setInterval(() => {
  if (!readFileSync(log, 'utf8').includes('GraphQL and GraphiQL')) return;
  console.log(child.pid);
  process.exit(0);
}, 50);
`;

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Launches a detached server with `env` (no npm variables, none of the configuration's but these); its pid, url. */
async function launchDetached(name: string, env: Record<string, string>) {
  const log = join(logs.path, `${name}.log`);
  const configuration = new Set(Object.keys(environment.shape));
  const inherited = Object.entries(process.env).filter(([key]) => !key.startsWith('npm_') && !configuration.has(key));
  const launcher = spawn(process.execPath, ['--input-type=module', '-e', LAUNCHER, log], {
    cwd: ROOT,
    env: {
      ...Object.fromEntries(inherited),
      HOST: '127.0.0.1',
      PORT: '0',
      LOG_FORMAT: 'json',
      DATA_DIR: copyOfTemplate(),
      SEED_PACKAGES: '0',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let said = '';
  launcher.stdout.on('data', (chunk) => (said += chunk));
  launcher.stderr.on('data', (chunk) => (said += chunk));
  const code = await new Promise<number | null>((resolve) => launcher.on('exit', resolve));
  const output = () => readFileSync(log, 'utf8');
  expect(code, `${said}\n${output()}`).toBe(0);
  const pid = Number(said.trim());
  started.push(pid);
  const url = /GraphQL and GraphiQL: (http:\/\/\S+)\/graphql/.exec(output())?.[1] as string;
  return { pid, url, output };
}

/** Past the parent watch's period (1 s), with room for a busy machine. */
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const WATCH_SETTLES_MS = 3000;

async function stopped(pid: number, timeoutMs = 15_000): Promise<boolean> {
  for (const end = Date.now() + timeoutMs; Date.now() < end; await sleep(100)) if (!alive(pid)) return true;
  return false;
}

describe('a server whose parent exits', () => {
  it.each([
    ['started detached, not by npm', {}],
    ['started by npm, with STOP_WITH_PARENT=false', { npm_lifecycle_event: 'start', STOP_WITH_PARENT: 'false' }],
  ])('%s: keeps serving', async (name, env) => {
    const server = await launchDetached(name, env);
    await sleep(WATCH_SETTLES_MS);
    expect(alive(server.pid), server.output()).toBe(true);
    expect((await fetch(`${server.url}/livez`)).status).toBe(200);
    expect(server.output()).not.toContain('parent exited');
    process.kill(server.pid, 'SIGTERM');
    expect(await stopped(server.pid)).toBe(true);
    expect(server.output()).toContain('SIGTERM: stopping');
  });

  it.each([
    ['started by npm', { npm_lifecycle_event: 'start', npm_execpath: '/usr/lib/node_modules/npm/bin/npm-cli.js' }],
    ['told STOP_WITH_PARENT=true', { STOP_WITH_PARENT: 'true' }],
  ])('%s: stops as on SIGTERM', async (name, env) => {
    const server = await launchDetached(name, env);
    expect(await stopped(server.pid)).toBe(true);
    expect(server.output()).toContain('parent exited: stopping; finishing the requests in flight');
    expect(server.output()).toContain('"msg":"stopped"');
  });
});
