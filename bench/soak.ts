// `npx tsx bench/soak.ts`: a soak test for operators. Starts the compiled server (`node dist/server.js`, so run
// `npm run build` first) on a PostgreSQL database that already holds listed packages, drives a mixed load over
// loopback with autocannon (40% REST v2 pages, 30% slim GraphQL pages, 20% GraphQL pages with nested records, 10%
// /healthz; offsets and seeds vary per request), checks every answer, and samples the server's RSS every 10 s.
// Prints a table per minute and the totals, then stops the server with SIGTERM. Verdict PASS (exit 0) when there
// was no error, RSS grew less than 2 MB/min after the first minute (least squares) and the server exited 0 within
// 30 s of SIGTERM; FAIL (exit 1) otherwise.
//
// Environment:
//   SOAK_DATABASE_URL  PostgreSQL database with listed packages (required), e.g.
//                      postgresql://postgres@127.0.0.1:5432/bench; prepare one with
//                      `DATABASE_URL=... npm run db:seed -- --packages 100000`
//   SOAK_CONNECTIONS   concurrent connections (default 8)
//   SOAK_MINUTES       duration in minutes (default 10)
//   SOAK_SECONDS       duration in seconds, overrides SOAK_MINUTES (quick checks; the RSS slope needs 80 s or more)
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import autocannon from 'autocannon';
import { childEnv, ROOT, sleep } from './harness.js';

type Kind = 'rest' | 'slim' | 'nested' | 'health';
type ErrorKind = 'connection' | 'timeout' | 'non2xx' | 'body';

const WARMUP_MINUTES = 1;
const SAMPLE_MS = 10_000;
const MAX_SLOPE = 2; // MB per minute
const STOP_TIMEOUT_MS = 30_000;

let running: Server | undefined;

function fail(line: string): never {
  running?.child.kill('SIGTERM');
  console.error(`soak: ${line}`);
  process.exit(1);
}

function envInt(name: string, fallback: number): number {
  const text = process.env[name];
  if (text === undefined || text === '') return fallback;
  const value = Number(text);
  if (!Number.isInteger(value) || value < 1) fail(`${name} must be a whole number >= 1, got ${text}`);
  return value;
}

const databaseUrl = process.env.SOAK_DATABASE_URL || fail('set SOAK_DATABASE_URL to a PostgreSQL database URL');
const connections = envInt('SOAK_CONNECTIONS', 8);
const seconds = envInt('SOAK_SECONDS', 0) || envInt('SOAK_MINUTES', 10) * 60;
const minuteCount = Math.ceil(seconds / 60);

/** The TCP port a process listens on, from /proc (its socket inodes matched to the LISTEN entries). */
function listeningPort(pid: number): number | undefined {
  try {
    const links = readdirSync(`/proc/${pid}/fd`).map((fd) => readlinkSync(`/proc/${pid}/fd/${fd}`));
    const inodes = new Set(links.map((link) => /^socket:\[(\d+)\]$/.exec(link)?.[1]));
    for (const line of readFileSync(`/proc/${pid}/net/tcp`, 'utf8').split('\n').slice(1)) {
      const [, local, , state, , , , , , inode] = line.trim().split(/\s+/);
      if (state === '0A' && inode && inodes.has(inode)) return Number.parseInt(local?.split(':')[1] ?? '', 16);
    }
  } catch {
    // not started yet, a descriptor closed meanwhile, or gone: the next poll tells
  }
  return undefined;
}

/** Starts `node dist/server.js`; resolves once it listens and answers /healthz. */
async function startServer() {
  const env = { DATABASE_URL: databaseUrl, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'warn', LOG_FORMAT: 'json' };
  const child = spawn(process.execPath, ['dist/server.js'], {
    cwd: ROOT,
    env: childEnv({ ...env, RATE_LIMIT: '0', SEED_PACKAGES: '0', MIGRATE: 'auto' }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = ''; // the last 4000 characters the server wrote
  const keep = (chunk: Buffer) => (output = (output + chunk).slice(-4000));
  child.stdout.on('data', keep);
  child.stderr.on('data', keep);
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const healthy = (url: string) =>
    fetch(`${url}/healthz`)
      .then((r) => r.ok)
      .catch(() => false);
  for (const deadline = Date.now() + 180_000; Date.now() < deadline; await sleep(250)) {
    const code = child.exitCode ?? child.signalCode;
    if (code !== null) throw new Error(`the server exited (${code}) before listening:\n${output}`);
    // The address is in a JSON line's msg, logged at info, which LOG_LEVEL=warn hides: then /proc has the port.
    const port = listeningPort(child.pid ?? 0);
    const url = /"msg":"GraphQL and GraphiQL: (http:\/\/[^\s"]+)\/graphql"/.exec(output)?.[1];
    const address = url ?? (port ? `http://127.0.0.1:${port}` : undefined);
    if (address && (await healthy(address)))
      return { url: address, pid: child.pid ?? 0, child, exited, tail: () => output };
  }
  child.kill('SIGTERM');
  throw new Error(`the server did not answer /healthz within 180 s:\n${output}`);
}

type Server = Awaited<ReturnType<typeof startServer>>;

/** SIGTERM, then the exit code within STOP_TIMEOUT_MS; a problem comes back as a reason for FAIL. */
async function stopServer(server: Server): Promise<string | undefined> {
  const early = server.child.exitCode ?? server.child.signalCode;
  if (early !== null) return `the server exited during the soak (${early})`;
  const started = performance.now();
  const took = () => ((performance.now() - started) / 1000).toFixed(1);
  server.child.kill('SIGTERM');
  const code = await Promise.race([server.exited, sleep(STOP_TIMEOUT_MS).then(() => 'timeout' as const)]);
  if (code === 'timeout') {
    server.child.kill('SIGKILL');
    return `the server did not exit within ${STOP_TIMEOUT_MS / 1000} s of SIGTERM (killed)`;
  }
  console.log(`server stopped by SIGTERM: exit code ${code} after ${took()} s`);
  return code === 0 ? undefined : `the server exited with code ${code} after SIGTERM`;
}

function rssMb(pid: number): number | undefined {
  try {
    const kb = /^VmRSS:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
    return kb === undefined ? undefined : Number(kb) / 1024;
  } catch {
    return undefined;
  }
}

async function listedCount(url: string): Promise<number> {
  const response = await fetch(`${url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ query: '{ packages(limit: 1) { count } }' }),
  });
  const text = await response.text();
  const count = (JSON.parse(text) as { data?: { packages?: { count?: number } } }).data?.packages?.count;
  if (!response.ok || typeof count !== 'number') throw new Error(`unexpected answer ${response.status} ${text}`);
  return count;
}

const EXPECTED: Record<Kind, (body: string) => boolean> = {
  rest: (body) => body.startsWith('{"count":'),
  slim: (body) => body.startsWith('{"data":{'),
  nested: (body) => body.startsWith('{"data":{'),
  health: (body) => body === '{"status":"ok"}',
};
const page = (name: string, limit: number, nested: string) =>
  `query ${name}($offset: Int!, $seed: Int!) { packages(limit: ${limit}, offset: $offset, seed: $seed) ` +
  `{ count results { id title price${nested} } } }`;
const SLIM = page('SoakSlim', 50, '');
const NESTED = page('SoakNested', 20, ' photographer { name } images { thumbnail } priorityTags { tag }');
// Each connection walks this rotation: 4 REST, 3 slim, 2 nested, 1 healthz.
const ROTATION: Kind[] = ['rest', 'slim', 'rest', 'nested', 'slim', 'rest', 'health', 'slim', 'rest', 'nested'];

/** The autocannon requests; offsets within `count`, a new offset and seed for each request. */
function requests(count: number, badBody: (kind: Kind, body: string) => void): autocannon.Request[] {
  const random = (below: number) => Math.floor(Math.random() * below);
  const offset = (limit: number) => random(Math.max(1, count - limit + 1));
  const seed = () => 1 + random(1_000_000);
  return ROTATION.map((kind): autocannon.Request => {
    const onResponse = (status: number, body: string) => {
      if (status >= 200 && status < 300 && !EXPECTED[kind](body)) badBody(kind, body);
    };
    if (kind === 'health') return { method: 'GET', path: '/healthz', onResponse };
    if (kind === 'rest') {
      const path = () => `/v2/local-package-list/?limit=50&offset=${offset(50)}&seed=${seed()}`;
      return { method: 'GET', setupRequest: (r) => ({ ...r, path: path() }), onResponse };
    }
    const [query, limit] = kind === 'slim' ? [SLIM, 50] : [NESTED, 20];
    const body = () => JSON.stringify({ query, variables: { offset: offset(limit), seed: seed() } });
    const headers = { 'content-type': 'application/json', accept: 'application/json' };
    return { method: 'POST', path: '/graphql', headers, setupRequest: (r) => ({ ...r, body: body() }), onResponse };
  });
}

type Minute = { requests: number; errors: number; latencies: number[]; p50?: number; p99?: number };

/** Replaces a finished minute's latencies by their p50 and p99 (a long soak keeps no more than a minute's). */
function summarize(minute: Minute): void {
  if (minute.latencies.length === 0) return;
  const sorted = Float64Array.from(minute.latencies).sort();
  const at = (q: number) => sorted[Math.max(0, Math.ceil(q * sorted.length) - 1)];
  Object.assign(minute, { p50: at(0.5), p99: at(0.99), latencies: [] });
}

/** Least-squares slope of y over x. */
function slope(points: { x: number; y: number }[]): number {
  const mx = points.reduce((sum, p) => sum + p.x, 0) / points.length;
  const my = points.reduce((sum, p) => sum + p.y, 0) / points.length;
  const num = points.reduce((sum, p) => sum + (p.x - mx) * (p.y - my), 0);
  return num / points.reduce((sum, p) => sum + (p.x - mx) ** 2, 0);
}

async function main(): Promise<void> {
  const server = await startServer();
  running = server;
  const count = await listedCount(server.url).catch((error: Error) =>
    fail(`cannot read the listing: ${error.message}`),
  );
  if (count === 0) fail('the database lists no packages: seed it with `npm run db:seed -- --packages 100000`');
  console.log(`soak: ${connections} connections for ${seconds} s against ${server.url} (${count} listed packages)`);

  const started = performance.now();
  const elapsedMinutes = () => (performance.now() - started) / 60_000;
  const minutes: Minute[] = [];
  const errors: Record<ErrorKind, number> = { connection: 0, timeout: 0, non2xx: 0, body: 0 };
  const errorTotal = () => Object.values(errors).reduce((a, b) => a + b, 0);
  const statuses = new Map<number, number>();
  const examples = new Map<ErrorKind, string>(); // the first of each kind
  const current = (): Minute => {
    const index = Math.min(minuteCount - 1, Math.floor(elapsedMinutes()));
    if (!minutes[index]) minutes.forEach(summarize);
    minutes[index] ??= { requests: 0, errors: 0, latencies: [] };
    return minutes[index];
  };
  const error = (kind: ErrorKind, example: string) => {
    errors[kind]++;
    current().errors++;
    if (!examples.has(kind)) examples.set(kind, example.slice(0, 200));
  };

  const samples: { x: number; y: number }[] = []; // minutes since the start, RSS in MB
  const sample = () => {
    const mb = rssMb(server.pid);
    if (mb !== undefined) samples.push({ x: elapsedMinutes(), y: mb });
  };
  sample();
  const sampler = setInterval(() => {
    sample();
    const done = Math.round(elapsedMinutes() * 60);
    if (done % 60 === 0 && done < seconds) {
      const total = minutes.reduce((sum, m) => sum + m.requests, 0);
      console.log(`  ${done} s: ${total} requests, ${errorTotal()} errors, RSS ${samples.at(-1)?.y.toFixed(1)} MB`);
    }
  }, SAMPLE_MS);

  const result = await new Promise<autocannon.Result>((resolve, reject) => {
    const options = { url: server.url, connections, duration: seconds, timeout: 30 };
    const instance = autocannon(
      { ...options, requests: requests(count, (kind, body) => error('body', `${kind} ${body}`)) },
      (err, result) => (err ? reject(err) : resolve(result)),
    );
    instance.on('response', (_client, status, _bytes, latency) => {
      const minute = current();
      minute.requests++;
      minute.latencies.push(latency);
      if (status >= 200 && status < 300) return;
      statuses.set(status, (statuses.get(status) ?? 0) + 1);
      error('non2xx', `status ${status}`);
    });
    instance.on('reqError', (err: Error) =>
      error(err.message === 'request timed out' ? 'timeout' : 'connection', err.message),
    );
  });
  clearInterval(sampler);
  sample();
  const runSeconds = elapsedMinutes() * 60;
  minutes.forEach(summarize);
  const shutdownProblem = await stopServer(server);

  const fixed = (value: number | undefined) => (value === undefined ? '-' : value.toFixed(1));
  // The last sample taken by the end of the minute (the sampler's ticks land a little after it).
  const rssAt = (end: number) => samples.filter((s) => s.x <= end + 5 / 60).at(-1)?.y;
  console.log('\nminute  requests  errors  p50 ms  p99 ms  RSS MB');
  for (let i = 0; i < minuteCount; i++) {
    const m = minutes[i] ?? { requests: 0, errors: 0, latencies: [] };
    const rss = rssAt(Math.min(i + 1, seconds / 60));
    const cells = [String(i + 1).padStart(6), String(m.requests).padStart(8), String(m.errors).padStart(6)];
    console.log([...cells, fixed(m.p50).padStart(6), fixed(m.p99).padStart(6), fixed(rss).padStart(6)].join('  '));
  }

  const total = result.requests.total;
  const codes = [...statuses].map(([status, n]) => `${status} x${n}`).join(', ');
  const mbs = samples.map((s) => s.y);
  const afterWarmup = samples.filter((s) => s.x >= WARMUP_MINUTES - 1 / 60);
  const rssSlope = afterWarmup.length >= 3 ? slope(afterWarmup) : undefined;
  console.log(`\nrequests: ${total} in ${runSeconds.toFixed(0)} s, ${(total / runSeconds).toFixed(1)} req/s`);
  console.log(`latency (2xx): p50 ${result.latency.p50} ms, p99 ${result.latency.p99} ms`);
  const kinds = `connection ${errors.connection}, timeout ${errors.timeout}, non-2xx ${errors.non2xx}`;
  console.log(`errors: ${errorTotal()} (${kinds}${codes ? ` [${codes}]` : ''}, bad body ${errors.body})`);
  for (const [kind, example] of examples) console.log(`  first ${kind}: ${example}`);
  const range = `first ${fixed(mbs[0])}, last ${fixed(mbs.at(-1))}, min ${fixed(Math.min(...mbs))}`;
  const slopeText =
    rssSlope === undefined
      ? 'slope n/a (needs 3 samples after the first minute: run 80 s or more)'
      : `slope ${rssSlope.toFixed(2)} MB/min (least squares over ${afterWarmup.length} samples after the first minute)`;
  console.log(`RSS MB: ${range}, max ${fixed(Math.max(...mbs))}; ${slopeText}`);

  const reasons: string[] = [];
  if (errorTotal() > 0) reasons.push(`${errorTotal()} errors`);
  if (rssSlope !== undefined && rssSlope >= MAX_SLOPE)
    reasons.push(`RSS grows ${rssSlope.toFixed(2)} MB/min (limit ${MAX_SLOPE})`);
  if (shutdownProblem) reasons.push(shutdownProblem);
  if (server.tail())
    console.log(`server output (tail; at LOG_LEVEL=warn only warnings and errors):\n${server.tail().trimEnd()}`);
  const judged =
    rssSlope === undefined ? 'RSS slope not judged (too short)' : `RSS slope ${rssSlope.toFixed(2)} MB/min`;
  console.log(reasons.length ? `FAIL: ${reasons.join('; ')}` : `PASS: 0 errors, ${judged}, server exited 0 on SIGTERM`);
  process.exit(reasons.length > 0 ? 1 : 0);
}

await main().catch((error: Error) => fail(error.message));
