// podman for the container tests: commands, the image's name, containers' memory (cgroup v1 or v2), waiting for an
// address, the heaviest bench scenario as load, and the v2 contract checker beside the checkout.
import { execFile, execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import autocannon from 'autocannon';
import { BENCH_KEY_ENTRY, fullPageRequest } from '../../bench/scenarios.js';

export const ROOT = join(import.meta.dirname, '..', '..');
const { version } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string };
/**
 * The image the Kubernetes manifest and the compose fleet name (test/deploy.test.ts); the global setup builds it
 * from the Dockerfile.
 */
export const IMAGE = `localhost/package-listing-gateway:${version}`;
/** The Dockerfile's `demo` target: the production image with the demo database and its generator. */
export const DEMO_IMAGE = `localhost/package-listing-gateway:${version}-demo`;
/** The base both images are built on (a stand-in made by stand-ins/build.sh where no registry answers). */
export const NODE_BASE = 'docker.io/library/node:24-bookworm-slim';
/** Every container and volume a test makes carries it, so a run cleans up after an earlier one that died. */
export const LABEL = 'package-listing-gateway-test';
/** The project's own v2 contract checker (`npm run check:v2`), compiled. */
export const CONTRACT_CHECKER = join(ROOT, 'dist', 'cli', 'check-v2.js');

const run = promisify(execFile);

/**
 * The commit the images are built from (their SOURCE_COMMIT build argument, which build_info reports): the
 * environment's SOURCE_COMMIT, else the checkout's HEAD, else undefined (a copy of the sources without .git).
 */
export function sourceCommit(): string | undefined {
  if (process.env.SOURCE_COMMIT) return process.env.SOURCE_COMMIT;
  try {
    return execFileSync('git', ['rev-parse', 'HEAD'], {
      cwd: ROOT,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    }).trim();
  } catch {
    return undefined;
  }
}

/** An image's size in bytes, as podman counts it (every layer, the base's included). */
export function imageBytes(image: string): number {
  return Number(podman(['image', 'inspect', '--format', '{{.Size}}', image]));
}

/** An image's size above NODE_BASE, in MB (10^6 bytes), rounded. */
export function mbAboveBase(image: string): number {
  return Math.round((imageBytes(image) - imageBytes(NODE_BASE)) / 1e6);
}

/** Runs podman and returns its standard output, trimmed; throws with its standard error when it fails. */
export function podman(args: string[], timeoutMs = 120_000): string {
  return execFileSync('podman', args, {
    cwd: tmpdir(),
    encoding: 'utf8',
    timeout: timeoutMs,
    stdio: ['ignore', 'pipe', 'pipe'],
  }).trim();
}

export async function podmanAsync(args: string[], timeoutMs = 600_000): Promise<string> {
  // Not in the checkout: conmon leaves a file named `oom` in podman's working directory when the kernel kills.
  const { stdout } = await run('podman', args, {
    cwd: tmpdir(),
    encoding: 'utf8',
    timeout: timeoutMs,
    maxBuffer: 64 << 20,
  });
  return stdout.trim();
}

/** Removes the containers, pods and volumes of earlier runs (by label). */
export function removeLeftovers(): void {
  const containers = podman(['ps', '-aq', '--filter', `label=${LABEL}`])
    .split('\n')
    .filter(Boolean);
  if (containers.length > 0) podman(['rm', '-f', '-v', '-t', '0', ...containers]);
  const volumes = podman(['volume', 'ls', '-q', '--filter', `label=${LABEL}`])
    .split('\n')
    .filter(Boolean);
  if (volumes.length > 0) podman(['volume', 'rm', '-f', ...volumes]);
}

export function inspect(container: string, format: string): string {
  return podman(['inspect', '--format', format, container]);
}

/** A TCP port free on the loopback now. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

/**
 * Polls the URL until it answers `status`, or throws after `timeoutMs` with what it last saw; at once, with the end
 * of its output, when `container` has stopped.
 */
export async function waitForStatus(
  url: string,
  status = 200,
  timeoutMs = 240_000,
  container?: string,
): Promise<number> {
  const started = Date.now();
  let last = 'no answer';
  while (Date.now() - started < timeoutMs) {
    if (container && inspect(container, '{{.State.Running}}') !== 'true') {
      const output = execFileSync('sh', ['-c', 'podman logs --tail 20 "$0" 2>&1', container], { encoding: 'utf8' });
      throw new Error(`${container} stopped before ${url} answered ${status}:\n${output}`);
    }
    try {
      const response = await fetch(url, { signal: AbortSignal.timeout(3000) });
      await response.arrayBuffer();
      if (response.status === status) return Date.now() - started;
      last = `status ${response.status}`;
    } catch (error) {
      last = (error as Error).message;
    }
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  throw new Error(`${url} did not answer ${status} within ${timeoutMs / 1000} s (${last})`);
}

/** The container's memory: its cgroup's peak and current use, and whether the kernel killed a process in it. */
export interface Memory {
  peakMb: number;
  currentMb: number;
  oomKills: number;
}

function cgroupDir(container: string): string {
  const pid = inspect(container, '{{.State.Pid}}');
  const lines = readFileSync(`/proc/${pid}/cgroup`, 'utf8').split('\n');
  const v1 = lines.find((line) => /^\d+:[^:]*\bmemory\b[^:]*:/.test(line));
  if (v1) return join('/sys/fs/cgroup/memory', v1.split(':')[2] as string);
  return join('/sys/fs/cgroup', (lines.find((line) => line.startsWith('0::')) as string).slice(3));
}

/** Reads the container's memory from its cgroup; the container must be running. */
export function memoryOf(container: string): Memory {
  const dir = cgroupDir(container);
  const mb = (file: string) => Math.round(Number(readFileSync(join(dir, file), 'utf8')) / 1048576);
  if (existsSync(join(dir, 'memory.max_usage_in_bytes'))) {
    const oom = /oom_kill (\d+)/.exec(readFileSync(join(dir, 'memory.oom_control'), 'utf8'))?.[1];
    return {
      peakMb: mb('memory.max_usage_in_bytes'),
      currentMb: mb('memory.usage_in_bytes'),
      oomKills: Number(oom ?? 0),
    };
  }
  const events = readFileSync(join(dir, 'memory.events'), 'utf8');
  return {
    peakMb: existsSync(join(dir, 'memory.peak')) ? mb('memory.peak') : mb('memory.current'),
    currentMb: mb('memory.current'),
    oomKills: Number(/oom_kill (\d+)/.exec(events)?.[1] ?? 0),
  };
}

/** The server's own resident memory, from its /metrics. */
export async function residentMb(base: string): Promise<number> {
  const text = await (await fetch(`${base}/metrics`)).text();
  return Math.round(Number(/^process_resident_memory_bytes (\S+)$/m.exec(text)?.[1]) / 1048576);
}

/** The API_KEYS entry the heaviest scenario's key needs (it asks for the private fields). */
export const LOAD_KEYS = BENCH_KEY_ENTRY;

export interface LoadResult {
  requests: number;
  rps: number;
  non2xx: number;
  errors: number;
  timeouts: number;
  p99: number;
}

/** The bench's heaviest scenario (a GraphQL page of 50 with every field) at 16 connections, for `seconds`. */
export async function heaviestLoad(base: string, seconds: number): Promise<LoadResult> {
  const request = fullPageRequest();
  const result = await autocannon({
    url: base + request.path,
    method: request.method as 'POST',
    headers: request.headers,
    body: request.body,
    connections: 16,
    duration: seconds,
    timeout: 30,
  });
  return {
    requests: result.requests.total,
    rps: Math.round(result.requests.average * 10) / 10,
    non2xx: result.non2xx,
    errors: result.errors,
    timeouts: result.timeouts,
    p99: result.latency.p99,
  };
}

/** Runs the v2 contract checker over every page of `base`; returns its last line, throws with its output. */
export async function checkContract(base: string): Promise<string> {
  try {
    const { stdout } = await run(process.execPath, [CONTRACT_CHECKER, base, '--quiet'], {
      timeout: 600_000,
      maxBuffer: 64 << 20,
    });
    return stdout.trim().split('\n').at(-1) ?? '';
  } catch (error) {
    const { stdout, stderr } = error as { stdout?: string; stderr?: string };
    throw new Error(`the v2 contract checker failed against ${base}:\n${stdout ?? ''}${stderr ?? ''}`);
  }
}

/** One line of figures for the run's log (and the report). */
export function note(line: string): void {
  console.log(`[containers] ${line}`);
}
