// A fault nothing handled, in the real server process (src/lifecycle.ts, watchFaults): a rejected promise is
// logged at error with its error (the password in its message redacted), counted on /metrics, and the server goes
// on serving; an uncaught exception is logged at fatal and stops the server as SIGTERM does, with exit code 1. The
// faults come from test/fixtures/process-faults.mjs, loaded with NODE_OPTIONS=--import and set off by SIGUSR2:
// no code path of the app can make one.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { type ServerProcess, startServer } from '../helpers/server-process.js';
import { copyOfTemplate } from '../helpers/templates.js';

const FAULTS = new URL('../fixtures/process-faults.mjs', import.meta.url).href;
const REJECTED = 'a promise was rejected and nothing handled it; the process goes on';

const start = (fault: 'rejection' | 'exception'): Promise<ServerProcess> =>
  startServer({
    DATA_DIR: copyOfTemplate(),
    SEED_PACKAGES: '20',
    RATE_LIMIT: '0',
    NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ''} --import=${FAULTS}`.trim(),
    TEST_FAULT: fault,
  });

let rejecting: ServerProcess;
let throwing: ServerProcess;
beforeAll(async () => {
  [rejecting, throwing] = await Promise.all([start('rejection'), start('exception')]);
});
afterAll(async () => {
  await Promise.all([rejecting, throwing].map((server) => server?.stop('SIGKILL')));
});

interface Line {
  level: string;
  msg: string;
  err?: { type: string; message: string; stack: string };
}

const lines = (server: ServerProcess): Line[] =>
  server
    .output()
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as Line);

async function counted(server: ServerProcess): Promise<string | undefined> {
  const text = await (await fetch(`${server.url}/metrics`)).text();
  return /^process_unhandled_rejections_total (\d+)$/m.exec(text)?.[1];
}

async function listed(server: ServerProcess): Promise<number> {
  const response = await fetch(`${server.url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ query: '{ packages(limit: 1) { count } }' }),
  });
  expect(response.status).toBe(200);
  return ((await response.json()) as { data: { packages: { count: number } } }).data.packages.count;
}

describe('a fault nothing handled, in the server process', () => {
  it('logs a rejected promise at error, counts it, and goes on serving', async () => {
    const server = rejecting;
    expect(await counted(server)).toBe('0');

    for (const n of [1, 2]) {
      process.kill(server.pid, 'SIGUSR2');
      await vi.waitFor(() => expect(lines(server).filter((line) => line.msg === REJECTED)).toHaveLength(n), {
        timeout: 10_000,
      });
      expect(await counted(server)).toBe(String(n));
      expect(await listed(server)).toBe(20);
    }
    const logged = lines(server).find((line) => line.msg === REJECTED);
    expect(logged?.level).toBe('error');
    expect(logged?.err?.type).toBe('Error');
    expect(logged?.err?.message).toBe('test: a rejection nothing handles, from postgresql://gateway:***@db/listing');
    expect(logged?.err?.stack).toMatch(/process-faults\.mjs/);
    expect(server.output()).not.toContain('s3cret');
    expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
    // Still the graceful stop, and a clean one: the rejections were the promises', not the process's.
    expect(await server.stop('SIGTERM')).toBe(0);
  });

  it('logs an uncaught exception at fatal, then stops as on SIGTERM and exits 1', async () => {
    const server = throwing;
    expect(await listed(server)).toBe(20);
    // SIGUSR2 sets off the throw; stop() resolves with the exit code that follows it.
    expect(await server.stop('SIGUSR2')).toBe(1);
    const said = lines(server);
    const fatal = said.findIndex((line) => line.level === 'fatal');
    expect(said[fatal]?.msg).toBe('uncaught exception: stopping, the process state is unknown');
    expect(said[fatal]?.err?.message).toBe('test: an exception nothing catches');
    const stopping = said.findIndex((line) => line.msg.startsWith('uncaught exception: stopping; finishing'));
    expect(stopping).toBeGreaterThan(fatal);
    expect(said.at(-1)?.msg).toBe('stopped');
  });
});
