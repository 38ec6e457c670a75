// The Dockerfile's demo target as an operator runs it, with its own settings (the production image is
// production-image.test.ts's). On the embedded database: as the node user, read-only but for /data and a tmpfs /tmp, within 512 MB from its first start on (the
// demo data the image build prepared, copied into the /data volume), healthy by its own HEALTHCHECK, through the
// heaviest bench scenario at 16 connections with no process killed, passing the v2 contract checker, stopping on
// SIGTERM with every request in flight answered, and keeping its data across a restart. A first start that makes
// its database (a demo listing of another size than the prepared one) given too little memory says which signal
// killed it and what to do.
//
// The containers use the host's network (the tests' clients are on its loopback), each on ports of its own: the
// public one, and /metrics' (the demo runs in production too, where /metrics is not on the public port).
import { execFileSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  checkContract,
  DEMO_IMAGE,
  freePort,
  heaviestLoad,
  inspect,
  LABEL,
  LOAD_KEYS,
  memoryOf,
  note,
  podman,
  podmanAsync,
  residentMb,
  waitForStatus,
} from './podman.js';

const LOAD_SECONDS = Number(process.env.CONTAINER_LOAD_SECONDS ?? 20);
const volume = `listing-data-${process.pid}`;
const names: string[] = [];

/**
 * Starts the demo image detached with the host's network on `port`, with no setting of the demo's own (the image
 * names them: DEMO, V2_PUBLIC, CORS_ORIGINS); each container gives METRICS_PORT a port of its own, or `off`.
 */
function start(name: string, port: number, options: string[], env: Record<string, string> = {}): string {
  const environment = { PORT: String(port), HOST: '127.0.0.1', ...env };
  podman([
    'run',
    '-d',
    '--name',
    name,
    '--label',
    LABEL,
    '--network',
    'host',
    ...Object.entries(environment).flatMap(([key, value]) => ['-e', `${key}=${value}`]),
    ...options,
    DEMO_IMAGE,
  ]);
  names.push(name);
  return name;
}

/** The container's output, both streams. */
const logs = (name: string) => execFileSync('sh', ['-c', 'podman logs "$0" 2>&1', name], { encoding: 'utf8' });

beforeAll(() => {
  podman(['volume', 'create', '--label', LABEL, volume]);
});

afterAll(() => {
  for (const name of names) podman(['rm', '-f', '-v', '-t', '0', name]);
  podman(['volume', 'rm', '-f', volume]);
});

describe('the demo image on the embedded database, within 512 MB', () => {
  const name = `listing-embedded-${process.pid}`;
  let base: string;
  let port: number;
  /** Where its /metrics is: a port of its own, not the public one. */
  let metricsBase: string;

  beforeAll(async () => {
    port = await freePort();
    base = `http://127.0.0.1:${port}`;
    const metricsPort = await freePort();
    metricsBase = `http://127.0.0.1:${metricsPort}`;
    const options = ['--memory=512m', '--memory-swap=512m', '--read-only', '--tmpfs', '/tmp', '-v', `${volume}:/data`];
    start(name, port, options, {
      API_KEYS: LOAD_KEYS,
      RATE_LIMIT: '0',
      RESPONSE_CACHE_BYTES: '0',
      METRICS_PORT: String(metricsPort),
    });
    const ready = await waitForStatus(`${base}/healthz`, 200, 240_000, name);
    note(
      `embedded first start under --memory=512m (read-only, demo data copied): ready in ${Math.round(ready / 1000)} s, ` +
        `container peak ${memoryOf(name).peakMb} MB, server ${await residentMb(metricsBase)} MB resident`,
    );
  });

  it('runs as the node user, the demo data in the /data volume', async () => {
    expect(podman(['exec', name, 'id', '-u'])).toBe('1000');
    expect(podman(['exec', name, 'ls', '/data'])).toContain('PG_VERSION');
    const page = (await (await fetch(`${base}/v2/local-package-list/?limit=1`)).json()) as { count: number };
    expect(page.count).toBe(2000);
    expect(logs(name)).toContain('loaded 2000 demo packages: the prepared database copied');
  });

  it('turns healthy by its HEALTHCHECK', () => {
    // podman runs the check on a timer only under systemd; run now, it records the container's health as well.
    podman(['healthcheck', 'run', name]);
    expect(inspect(name, '{{.State.Health.Status}}')).toBe('healthy');
  });

  it('serves the heaviest bench scenario at 16 connections with no process killed', async () => {
    const load = await heaviestLoad(base, LOAD_SECONDS);
    const memory = memoryOf(name);
    note(
      `embedded, 512m, GraphQL page of 50 with every field at 16 connections for ${LOAD_SECONDS} s: ` +
        `${load.rps} req/s, p99 ${load.p99} ms; container peak ${memory.peakMb} MB, now ${memory.currentMb} MB, ` +
        `server ${await residentMb(metricsBase)} MB resident`,
    );
    expect(load).toMatchObject({ non2xx: 0, errors: 0, timeouts: 0 });
    expect(load.requests).toBeGreaterThan(0);
    expect(memory.oomKills).toBe(0);
    expect(inspect(name, '{{.State.Running}}')).toBe('true');
  });

  it('passes the v2 contract checker over every page', async () => {
    note(`v2 contract, embedded image: ${await checkContract(base)}`);
  });

  it('answers the requests in flight on SIGTERM and exits 0 within its grace period', async () => {
    const inFlight = Array.from({ length: 8 }, () => heaviestLoadOnce(base));
    await new Promise((resolve) => setTimeout(resolve, 300));
    const started = Date.now();
    await podmanAsync(['stop', '-t', '30', name]);
    const stopped = Date.now() - started;
    const statuses = await Promise.all(inFlight);
    note(`SIGTERM with 8 requests in flight: stopped in ${stopped} ms, answers ${statuses.join(',')}`);
    expect(statuses.every((status) => status === 200)).toBe(true);
    expect(inspect(name, '{{.State.ExitCode}}')).toBe('0');
    expect(stopped).toBeLessThan(30_000);
  });

  it('keeps its data across a restart: the demo is loaded once', async () => {
    podman(['start', name]);
    const ready = await waitForStatus(`${base}/healthz`, 200, 240_000, name);
    note(`restart on the same volume: ready in ${Math.round(ready / 1000)} s`);
    const page = (await (await fetch(`${base}/v2/local-package-list/?limit=1`)).json()) as { count: number };
    expect(page.count).toBe(2000);
    expect(logs(name).match(/loaded 2000 demo packages/g)).toHaveLength(1);
  });
});

/** One request of the heaviest scenario; resolves with its status (0 when the connection failed). */
async function heaviestLoadOnce(base: string): Promise<number> {
  const { fullPageRequest } = await import('../../bench/scenarios.js');
  const request = fullPageRequest();
  try {
    const response = await fetch(base + request.path, {
      method: request.method,
      headers: request.headers,
      body: request.body,
    });
    await response.arrayBuffer();
    return response.status;
  } catch {
    return 0;
  }
}

describe('a first start given too little memory', () => {
  it('says which signal killed it and what to do', async () => {
    const port = await freePort();
    // 1,999 packages: not the prepared listing, so the database is made in a process of its own.
    const name = start(`listing-starved-${process.pid}`, port, ['--memory=160m', '--memory-swap=160m'], {
      SEED_PACKAGES: '1999',
      METRICS_PORT: 'off',
    });
    const code = await podmanAsync(['wait', name]);
    const output = logs(name);
    expect(code).toBe('1');
    expect(output).toContain('killed by SIGKILL');
    expect(output).toMatch(/memory limit/);
  });
});
