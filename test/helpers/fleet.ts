// The parts of a fleet a test starts as real processes beside the gateway's: a private Redis and HAProxy running
// deploy/haproxy.cfg. Each listens on a free loopback port and is stopped by its PID.
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { connect } from 'node:net';
import { fileURLToPath } from 'node:url';
import { freePort } from './processes.js';

export const HAPROXY = '/usr/sbin/haproxy';
export const REDIS_SERVER = '/usr/bin/redis-server';
export const HAPROXY_CONFIG = fileURLToPath(new URL('../../deploy/haproxy.cfg', import.meta.url));

export const fleetToolsInstalled = () => existsSync(HAPROXY) && existsSync(REDIS_SERVER);

export interface Process {
  port: number;
  pid: number;
  stop(): Promise<void>;
}

function listening(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port }, () => {
      socket.destroy();
      resolve(true);
    });
    socket.on('error', () => resolve(false));
  });
}

/** The process once it listens on `port`, with a stop that sends SIGTERM (SIGKILL after 5 s). */
export async function started(child: ChildProcess, port: number, what: string, output: () => string): Promise<Process> {
  for (let i = 0; i < 100 && !(await listening(port)); i++) {
    if (child.exitCode !== null) throw new Error(`${what} exited with ${child.exitCode}: ${output()}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  if (!(await listening(port))) throw new Error(`${what} did not listen on ${port} within 10 s: ${output()}`);
  return {
    port,
    pid: child.pid as number,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
      await exited;
      clearTimeout(timer);
    },
  };
}

/** `command` started with its stdout and stderr collected. */
export function spawnCollecting(command: string, args: string[], env: Record<string, string> = {}) {
  const child = spawn(command, args, { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout?.on('data', (chunk) => (output += chunk));
  child.stderr?.on('data', (chunk) => (output += chunk));
  return { child, output: () => output };
}

/** A Redis that keeps nothing on disk; on `port` (a Redis started again where it was), else on a free one. */
export async function startRedis(port?: number): Promise<Process> {
  port ??= await freePort();
  const args = ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'];
  const { child, output } = spawnCollecting(REDIS_SERVER, args);
  return started(child, port, 'redis-server', output);
}

/** HAProxy on deploy/haproxy.cfg in front of the two gateway addresses (host:port). */
export async function startHaproxy(gateways: [string, string]): Promise<Process & { output(): string }> {
  const port = await freePort();
  const { child, output } = spawnCollecting(HAPROXY, ['-db', '-f', HAPROXY_CONFIG], {
    LISTEN_ADDR: `127.0.0.1:${port}`,
    GATEWAY_1: gateways[0],
    GATEWAY_2: gateways[1],
  });
  return { ...(await started(child, port, 'haproxy', output)), output };
}
