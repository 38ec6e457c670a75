// The Dockerfile's default target, the production image, as an operator runs it: without the demo database (96 MB)
// or the demo generator's faker, and with no volume (an anonymous one was made for every container, even those
// on PostgreSQL); its size above the base is the figure docs/operations.md states; with nothing set it refuses to
// start, naming each setting, and asked for a demo it says where the demo is; and on PostgreSQL, a demo listing loaded beforehand by the demo image run as a one-shot
// job (the demo generator is not in this image), it serves the heaviest bench scenario at 16 connections within
// 256 MB with no process killed, and reports on /metrics the commit it was built from.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  DEMO_IMAGE,
  freePort,
  heaviestLoad,
  IMAGE,
  inspect,
  LABEL,
  LOAD_KEYS,
  mbAboveBase,
  memoryOf,
  NODE_BASE,
  note,
  podman,
  podmanAsync,
  ROOT,
  residentMb,
  sourceCommit,
  waitForStatus,
} from './podman.js';

const PG_ADMIN = process.env.TEST_DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/postgres';
const LOAD_SECONDS = Number(process.env.CONTAINER_LOAD_SECONDS ?? 20);
const DATABASE = 'containers_256';
const names: string[] = [];

function psql(sql: string): void {
  execFileSync('psql', [PG_ADMIN, '-q', '-v', 'ON_ERROR_STOP=1', '-c', sql], { stdio: 'pipe' });
}

/** Runs `command` in a new container of `image` and returns its exit code and output (both streams). */
function runOnce(image: string, args: string[], command: string[] = []): { code: number; output: string } {
  try {
    const output = execFileSync('podman', ['run', '--rm', '--label', LABEL, ...args, image, ...command], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
      timeout: 300_000,
    });
    return { code: 0, output };
  } catch (error) {
    const { status, stdout, stderr } = error as { status: number; stdout: string; stderr: string };
    return { code: status, output: `${stdout}${stderr}` };
  }
}

afterAll(() => {
  for (const name of names) podman(['rm', '-f', '-v', '-t', '0', name]);
  psql(`DROP DATABASE IF EXISTS ${DATABASE} WITH (FORCE)`);
});

describe('the production image (the Dockerfile default)', () => {
  it('holds neither the demo database nor the demo generator, and declares no volume; the demo image both', () => {
    const has = (image: string, path: string) =>
      runOnce(image, ['--entrypoint', 'sh'], ['-c', `test -e ${path}`]).code === 0;
    expect(has(IMAGE, 'dist/server.js')).toBe(true);
    expect(has(IMAGE, 'dist/demo-data')).toBe(false);
    expect(has(IMAGE, 'node_modules/@faker-js/faker')).toBe(false);
    expect(podman(['image', 'inspect', '--format', '{{json .Config.Volumes}}', IMAGE])).toMatch(/^(null|\{\})$/);
    expect(has(DEMO_IMAGE, 'dist/demo-data/manifest')).toBe(true);
    expect(has(DEMO_IMAGE, 'node_modules/@faker-js/faker')).toBe(true);
    expect(
      Object.keys(JSON.parse(podman(['image', 'inspect', '--format', '{{json .Config.Volumes}}', DEMO_IMAGE]))),
    ).toEqual(['/data']);
  });

  it("is the size above its base that docs/operations.md states, as is the demo image's", () => {
    const measured = { production: mbAboveBase(IMAGE), demo: mbAboveBase(DEMO_IMAGE) };
    note(`above ${NODE_BASE}: production image ${measured.production} MB, demo image ${measured.demo} MB`);
    const docs = readFileSync(join(ROOT, 'docs/operations.md'), 'utf8').replace(/\s+/g, ' ');
    const stated = {
      production: Number(/production image's layers above the base come to about (\d+) MB/.exec(docs)?.[1]),
      demo: Number(/the demo image's to about (\d+) MB/.exec(docs)?.[1]),
    };
    // "About": within 5% or 3 MB of the measurement (a dependency's patch release moves it a little).
    for (const key of ['production', 'demo'] as const) {
      expect(
        Math.abs(stated[key] - measured[key]),
        `${key}: docs say ${stated[key]}, measured ${measured[key]}`,
      ).toBeLessThanOrEqual(Math.max(3, measured[key] * 0.05));
    }
    expect(measured.demo - measured.production).toBeGreaterThan(90);
  });

  it('refuses a start with nothing set, in one line naming each setting that opens what it would serve', () => {
    const { code, output } = runOnce(IMAGE, ['--read-only']);
    expect(code).toBe(1);
    expect(output).toContain('refusing to start in production (NODE_ENV=production)');
    for (const setting of ['DATABASE_URL', 'CORS_ORIGINS', 'V2_API_KEYS']) expect(output).toContain(setting);
  });

  it('asked for a demo (DEMO=true), says in one line that the demo generator is in the demo image', () => {
    const demo = ['DEMO=true', 'V2_PUBLIC=true', 'CORS_ORIGINS=*', 'METRICS_PORT=off', 'DATA_DIR=/tmp/data'];
    const { code, output } = runOnce(IMAGE, ['--read-only', '--tmpfs', '/tmp', ...demo.flatMap((e) => ['-e', e])]);
    expect(code).toBe(1);
    expect(output).toContain('the demo generator is not installed here (@faker-js/faker is missing)');
    expect(output).toContain('docker build --target demo');
  });

  it('serves a listing on PostgreSQL within 256 MB through the heaviest scenario, and names its commit', async () => {
    psql(`DROP DATABASE IF EXISTS ${DATABASE} WITH (FORCE)`);
    psql(`CREATE DATABASE ${DATABASE}`);
    const url = new URL(PG_ADMIN);
    url.pathname = `/${DATABASE}`;
    // The fixture: 2,000 demo packages written by the demo image's generator, run once as a job.
    const seed = runOnce(
      DEMO_IMAGE,
      ['--network', 'host', '-e', `DATABASE_URL=${url.href}`],
      ['node', 'dist/cli/seed.js', '--packages', '2000'],
    );
    expect(seed.code, seed.output).toBe(0);
    note(`fixture for the production image: ${seed.output.trim().split('\n').at(-1)}`);
    const port = await freePort();
    const metricsPort = await freePort();
    const base = `http://127.0.0.1:${port}`;
    const metricsBase = `http://127.0.0.1:${metricsPort}`;
    const name = `listing-postgres-${process.pid}`;
    const environment = {
      PORT: String(port),
      HOST: '127.0.0.1',
      METRICS_PORT: String(metricsPort),
      DATABASE_URL: url.href,
      CORS_ORIGINS: 'https://shop.example.com',
      V2_PUBLIC: 'true',
      API_KEYS: LOAD_KEYS,
      RATE_LIMIT: '0',
      RESPONSE_CACHE_BYTES: '0',
    };
    podman([
      'run',
      '-d',
      '--name',
      name,
      '--label',
      LABEL,
      '--network',
      'host',
      '--memory=256m',
      '--memory-swap=256m',
      '--read-only',
      ...Object.entries(environment).flatMap(([key, value]) => ['-e', `${key}=${value}`]),
      IMAGE,
    ]);
    names.push(name);
    const ready = await waitForStatus(`${base}/healthz`, 200, 240_000, name);
    expect(inspect(name, '{{range .Mounts}}{{.Type}} {{end}}').trim()).toBe('');
    const page = (await (await fetch(`${base}/v2/local-package-list/?limit=1`)).json()) as { count: number };
    expect(page.count).toBe(2000);
    const metrics = await (await fetch(`${metricsBase}/metrics`)).text();
    const commit = /^build_info\{[^}]*commit="([^"]*)"/m.exec(metrics)?.[1];
    expect(commit).toBe(sourceCommit() ?? 'unknown');
    const started = memoryOf(name);
    const load = await heaviestLoad(base, LOAD_SECONDS);
    const memory = memoryOf(name);
    note(
      `production image on PostgreSQL, 256m: ready in ${Math.round(ready / 1000)} s (peak ${started.peakMb} MB); ` +
        `heaviest scenario at 16 connections: ${load.rps} req/s, p99 ${load.p99} ms; container peak ` +
        `${memory.peakMb} MB, server ${await residentMb(metricsBase)} MB resident; commit ${commit}`,
    );
    expect(load).toMatchObject({ non2xx: 0, errors: 0, timeouts: 0 });
    expect(memory.oomKills).toBe(0);
    expect(inspect(name, '{{.State.Running}}')).toBe('true');
    await podmanAsync(['stop', '-t', '30', name]);
    expect(inspect(name, '{{.State.ExitCode}}')).toBe('0');
  });
});
