// deploy/compose.yaml brought up as a user brings it up, under podman (Debian's podman-compose): the primary and
// its streaming standby, PgBouncer, Redis, two gateway instances of the production image, and HAProxy on port
// 8080. The listing starts empty (no demo packages in a production image); the test then loads its fixture, demo
// packages written by the demo image run once on the project's network. Through HAProxy: both instances answer, the
// v2 contract checker passes, a gateway container killed under load costs no request, and an import run as a
// one-off container of the gateway's service reaches both instances. No container has an anonymous volume, and
// `down -v` leaves no container, volume or network of the project behind.
//
// The secrets are made for the run in deploy/secrets/ (a random password) and removed after; a deploy/secrets/ that
// is already there is used as it is and left alone.
import { execFile, execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { promisify } from 'node:util';
import autocannon from 'autocannon';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkContract, DEMO_IMAGE, LABEL, note, podman, ROOT, waitForStatus } from './podman.js';

const PROJECT = 'package-listing'; // compose.yaml's `name:` (podman-compose 1.0 takes it from -p only)
// `podman rm -v` on down: podman-compose 1.0 otherwise leaves the containers' anonymous volumes (the images'
// VOLUMEs), which `docker compose down -v` removes.
const COMPOSE = ['-p', PROJECT, '--podman-rm-args=-v', '-f', join(ROOT, 'deploy/compose.yaml')];
const BASE = 'http://localhost:8080';
/**
 * The fixture's size: the demo listing. A smaller one (500) has fewer photographers per page of 100, so that
 * page's surrogate keys stay under their bound and its two headers (Surrogate-Key, Cache-Tag) of some 8 kB each
 * pass HAProxy's 16 kB buffer, which answers 502: left to the cache's owners.
 */
const FIXTURE_PACKAGES = 2000;
const SECRETS = join(ROOT, 'deploy/secrets');
const run = promisify(execFile);
let madeSecrets = false;

async function compose(args: string[], timeoutMs = 1_200_000): Promise<string> {
  const { stdout, stderr } = await run('podman-compose', [...COMPOSE, ...args], {
    cwd: ROOT,
    timeout: timeoutMs,
    maxBuffer: 64 << 20,
  }).catch((error) => {
    throw new Error(`podman-compose ${args.join(' ')} failed:\n${error.stdout ?? ''}${error.stderr ?? ''}`);
  });
  return stdout + stderr;
}

const projectFilter = `label=io.podman.compose.project=${PROJECT}`;
const containers = () =>
  podman(['ps', '-a', '--format', '{{.Names}}', '--filter', projectFilter]).split('\n').filter(Boolean);
/** Every volume of the project: its named ones, and those its containers mount (the images' anonymous VOLUMEs). */
const projectVolumes = new Set<string>();
function noteVolumes(): void {
  for (const name of containers()) {
    const mounts = podman(['inspect', '--format', '{{range .Mounts}}{{.Name}} {{end}}', name]);
    for (const volume of mounts.split(' ').filter(Boolean)) projectVolumes.add(volume);
  }
}
const leftovers = () => ({
  containers: containers(),
  volumes: podman(['volume', 'ls', '--format', '{{.Name}}'])
    .split('\n')
    .filter((v) => v.startsWith(`${PROJECT}_`) || projectVolumes.has(v)),
  networks: podman(['network', 'ls', '--format', '{{.Name}}'])
    .split('\n')
    .filter((n) => n.startsWith(`${PROJECT}_`)),
});

/** Each container of the project: its state and the end of its log (health checks left out), for a failed start. */
function projectState(): string {
  return containers()
    .map((name) => {
      const state = podman([
        'inspect',
        '--format',
        '{{.State.Status}}, exit {{.State.ExitCode}}, {{.RestartCount}} restarts',
        name,
      ]);
      const log = execFileSync('sh', ['-c', 'podman logs --tail 200 "$0" 2>&1', name], { encoding: 'utf8' })
        .split('\n')
        .filter((line) => line && !line.includes('"/healthz"'))
        .slice(-15);
      return [`== ${name}: ${state}`, ...log].join('\n');
    })
    .join('\n');
}

function portFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, () => server.close(() => resolve(true)));
  });
}

/** GETs through HAProxy; returns the status, the instance that answered and the body. */
async function get(path: string) {
  const response = await fetch(BASE + path, { signal: AbortSignal.timeout(10_000) });
  return { status: response.status, servedBy: response.headers.get('x-served-by'), body: await response.text() };
}

/**
 * The listing's size as each instance answers it through HAProxy, polled until both have answered. A connection
 * closed under a poll is polled again: a kept-alive one may be closed by HAProxy just as it is reused.
 */
async function countsByInstance(): Promise<Map<string | null, number>> {
  const counts = new Map<string | null, number>();
  for (let i = 0; i < 240 && counts.size < 2; i++) {
    const answer = await get(`/v2/local-package-list/?limit=1&probe=${i}`).catch(() => undefined);
    if (answer?.status === 200) counts.set(answer.servedBy, (JSON.parse(answer.body) as { count: number }).count);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  return counts;
}

/**
 * The test's fixture, not the fleet's: demo packages written by the demo image's generator (the production image
 * has none), run once on the project's network as the owner, through the primary's direct URL.
 */
function loadFixture(): string {
  const settings = readFileSync(join(SECRETS, 'gateway.env'), 'utf8');
  const owner = /^DATABASE_DIRECT_URL=(.+)$/m.exec(settings)?.[1] as string;
  const args = ['run', '--rm', '--label', LABEL, '--network', `${PROJECT}_default`, '-e', `DATABASE_URL=${owner}`];
  const command = ['node', 'dist/cli/seed.js', '--packages', String(FIXTURE_PACKAGES)];
  return podman([...args, DEMO_IMAGE, ...command], 300_000);
}

beforeAll(async () => {
  // Nothing of an earlier run, and port 8080 free (compose.yaml publishes it).
  await compose(['down', '-v'], 120_000).catch(() => '');
  for (const network of leftovers().networks) podman(['network', 'rm', '-f', network]);
  if (!(await portFree(8080))) throw new Error('port 8080 is taken: compose.yaml publishes HAProxy there');
  if (!existsSync(SECRETS)) {
    const password = randomBytes(12).toString('hex');
    mkdirSync(SECRETS);
    madeSecrets = true;
    writeFileSync(join(SECRETS, 'postgres-password'), password);
    // The serving role, which the instances read as through PgBouncer (deploy/postgres/roles.sql).
    writeFileSync(join(SECRETS, 'pgbouncer-userlist.txt'), `"listing_serving" "${password}"\n`);
    const example = readFileSync(join(ROOT, 'deploy/gateway.env.example'), 'utf8');
    writeFileSync(join(SECRETS, 'gateway.env'), example.replaceAll('change-me', password));
  }
  const started = Date.now();
  await compose(['up', '-d']);
  await waitForStatus(`${BASE}/v2/local-package-list/?limit=1`, 200, 600_000).catch((error: Error) => {
    throw new Error(`${error.message}\n${projectState()}`);
  });
  note(
    `compose up (images built or cached, primary, standby, PgBouncer, Redis, 2 gateways, HAProxy): ` +
      `${Math.round((Date.now() - started) / 1000)} s to the first answer through HAProxy`,
  );
});

afterAll(async () => {
  await compose(['down', '-v'], 300_000).catch((error) => console.error(error.message));
  for (const network of leftovers().networks) podman(['network', 'rm', '-f', network]);
  if (madeSecrets) rmSync(SECRETS, { recursive: true, force: true });
});

describe('deploy/compose.yaml under podman', () => {
  it('serves an empty listing from both instances until one is loaded: no demo packages in production', async () => {
    // The instance that migrated second starts once the first is done (it waits on the start-up lock), so HAProxy
    // may send everything to the first for a while: 10 s was not always enough under CI's load.
    const started = Date.now();
    const empty = await countsByInstance();
    expect(Object.fromEntries(empty)).toEqual({ 'gateway-1': 0, 'gateway-2': 0 });
    note(`both instances answering through HAProxy ${Math.round((Date.now() - started) / 1000)} s after the first`);
    expect((await get('/metrics')).status).toBe(404);
  });

  it('serves the fixture from both instances once loaded', async () => {
    const started = Date.now();
    const output = loadFixture();
    note(`fixture (demo image, one-shot): ${output.trim().split('\n').at(-1)} in ${Date.now() - started} ms`);
    let counts = new Map<string | null, number>();
    while (Date.now() - started < 60_000) {
      counts = await countsByInstance();
      if ([...counts.values()].every((count) => count === FIXTURE_PACKAGES) && counts.size === 2) break;
    }
    expect(Object.fromEntries(counts)).toEqual({ 'gateway-1': FIXTURE_PACKAGES, 'gateway-2': FIXTURE_PACKAGES });
  });

  it('leaves no anonymous volume: the named data volumes of PostgreSQL are the only ones', () => {
    const mounts = containers().flatMap((name) =>
      podman(['inspect', '--format', '{{range .Mounts}}{{.Type}}:{{.Name}}:{{.Destination}} {{end}}', name])
        .split(' ')
        .filter((mount) => mount.startsWith('volume:'))
        .map((mount) => `${name} ${mount}`),
    );
    note(`volumes mounted in the project: ${mounts.join(', ')}`);
    expect(mounts.map((mount) => mount.split(':')[1]).sort()).toEqual([
      `${PROJECT}_primary-data`,
      `${PROJECT}_replica-data`,
    ]);
  });

  it('passes the v2 contract checker through HAProxy', async () => {
    note(`v2 contract through HAProxy: ${await checkContract(BASE)}`);
  });

  it('loses no request when a gateway container is killed under load', async () => {
    // 5 requests a second: within RATE_LIMIT (600 a minute per client, shared through Redis), as every request
    // through HAProxy comes from one client here.
    const load = autocannon({
      url: `${BASE}/v2/local-package-list/?limit=50&seed=7`,
      connections: 4,
      overallRate: 5,
      duration: 20,
    });
    await new Promise((resolve) => setTimeout(resolve, 6000));
    podman(['kill', '-s', 'KILL', `${PROJECT}_gateway-1_1`]);
    const result = await load;
    note(
      `fleet through HAProxy, v2 page of 50 at 5 requests/s for 20 s, gateway-1 killed at 6 s: ` +
        `${Math.round(result.requests.average)} req/s, p99 ${result.latency.p99} ms, ` +
        `${result.non2xx} non-2xx, ${result.errors} errors, ${result.timeouts} timeouts`,
    );
    expect({ non2xx: result.non2xx, errors: result.errors, timeouts: result.timeouts }).toEqual({
      non2xx: 0,
      errors: 0,
      timeouts: 0,
    });
    // It comes back by its restart policy, or by hand where podman restarts nothing, and HAProxy sends it
    // requests again once its /healthz answers.
    if (podman(['inspect', '--format', '{{.State.Running}}', `${PROJECT}_gateway-1_1`]) !== 'true') {
      podman(['start', `${PROJECT}_gateway-1_1`]);
    }
    const restarted = Date.now();
    let rejoined = false;
    while (!rejoined && Date.now() - restarted < 180_000) {
      rejoined = (await get('/v2/local-package-list/?limit=1')).servedBy === 'gateway-1';
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    note(`gateway-1 back in HAProxy's rotation ${Math.round((Date.now() - restarted) / 1000)} s after its start`);
    expect(rejoined).toBe(true);
  });

  it('imports as a one-off container of the gateway service, and both instances serve what it wrote', async () => {
    const page = JSON.parse((await get('/v2/local-package-list/?limit=1&seed=7')).body);
    // The v2 page shows no status (a private field): an imported record is listed only with status 1.
    const title = `Imported through compose ${randomBytes(4).toString('hex')}`;
    const record = { ...page.results[0], status: 1, title };
    // podman-compose 1.0 mounts no volume into a one-off container: the dump travels in its environment.
    const dump = Buffer.from(JSON.stringify([record]))
      .toString('base64')
      .replaceAll('=', '');
    const write = `require('fs').writeFileSync('/tmp/dump.json', Buffer.from(process.env.DUMP, 'base64'))`;
    const output = await compose([
      'run',
      '--rm',
      '--no-deps',
      '-T',
      '-e',
      `DUMP=${dump}`,
      'gateway-1',
      'sh',
      '-c',
      // As the owner: the instances' DATABASE_URL is the serving role's, which can write nothing.
      `node -e "${write}" && DATABASE_URL="$DATABASE_DIRECT_URL" exec node dist/cli/import.js /tmp/dump.json`,
    ]);
    note(`one-off import: ${output.trim().split('\n').slice(-4).join(' | ')}`);
    const seen = new Set<string | null>();
    for (let i = 0; i < 80 && seen.size < 2; i++) {
      const answer = await get(`/v2/local-package-list/?limit=1&seed=7&probe=${i}`);
      if (answer.status === 200 && answer.body.includes(record.title)) seen.add(answer.servedBy);
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    expect([...seen].sort()).toEqual(['gateway-1', 'gateway-2']);
  });

  it('down -v leaves nothing of the project behind', async () => {
    noteVolumes();
    await compose(['down', '-v'], 300_000);
    const left = leftovers();
    // podman-compose 1.0 removes no network on down (docker compose does): the project's is removed after.
    note(`after down -v: ${JSON.stringify(left)} (volumes of the run: ${projectVolumes.size})`);
    expect(left.containers).toEqual([]);
    expect(left.volumes).toEqual([]);
  });
});
