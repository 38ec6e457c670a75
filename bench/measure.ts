// One scenario measured: its answer checked, a warm-up, then a load run with the server's CPU, the database's CPU,
// statements per request and peak memory.
import {
  cpuMs,
  type DatabaseCpu,
  load,
  type Request,
  rssMb,
  type ServerProcess,
  sampleRss,
  settled,
  sleep,
  statementsSoFar,
} from './harness.js';
import type { Row } from './report.js';

export async function get(url: string, request: Request): Promise<string> {
  const response = await fetch(url + request.path, {
    method: request.method,
    // As autocannon sends it: fetch would otherwise ask for gzip, and get another representation (and ETag).
    headers: { 'accept-encoding': 'identity', ...request.headers },
    ...(request.body === undefined ? {} : { body: request.body }),
  });
  const body = await response.text();
  const expected = request.notModified ? response.status === 304 : response.ok;
  if (!expected || !request.verify(body)) {
    throw new Error(`${request.method} ${request.path}: unexpected answer ${response.status} ${body.slice(0, 300)}`);
  }
  return body;
}

/** The v2 page with the links' origin removed: the floor and the product listen on different ports. */
export function comparablePage(body: string): string {
  const page = JSON.parse(body) as { next: string | null; previous: string | null };
  const path = (link: string | null) => (link === null ? null : link.replace(/^https?:\/\/[^/]+/, ''));
  return JSON.stringify({ ...page, next: path(page.next), previous: path(page.previous) });
}

export function firstDifference(a: string, b: string): string {
  let i = 0;
  while (i < a.length && a[i] === b[i]) i++;
  return `at ${i}:\n  product: ${a.slice(Math.max(0, i - 80), i + 80)}\n  floor:   ${b.slice(Math.max(0, i - 80), i + 80)}`;
}

export interface LoadSettings {
  connections: number;
  duration: number;
  warmup: number;
}

/** Warm-up, then one measured run, with statements per request and the server's peak memory. */
export async function measure(
  settings: LoadSettings,
  log: (line: string) => void,
  target: ServerProcess,
  { id, label, request }: { id: Row['id']; label: string; request: Request },
  database: DatabaseCpu | undefined,
): Promise<Row> {
  await get(target.url, request);
  await load(target.url, request, settings.connections, settings.warmup);
  // The limits (bench/limits.ts) count no statements: each of their requests runs one, by construction.
  const counted = await statementsSoFar(target.url).then(
    () => true,
    () => false,
  );
  const statements = async () => {
    if (counted) return settled(target.url);
    await sleep(1000);
    return 0;
  };
  const before = await statements();
  const rssAfterWarmupMb = rssMb(target.pid);
  const cpuBefore = cpuMs(target.pid);
  await database?.start();
  const memory = sampleRss(target.pid);
  const result = await load(target.url, request, settings.connections, settings.duration);
  const peakRssMb = memory.stop();
  const after = await statements();
  const cpu = cpuMs(target.pid) - cpuBefore;
  const databaseMs = await database?.stop();
  const row: Row = {
    id,
    label,
    requestsPerSecond: result.requestsPerSecond,
    p50: result.p50,
    p99: result.p99,
    errors: result.errors,
    // A limit runs one statement a request by construction; the hit limit none.
    statementsPerRequest: !counted
      ? id.startsWith('limit-hit-')
        ? 0
        : 1
      : result.sent > 0
        ? (after - before) / result.sent
        : 0,
    cpuMsPerRequest: result.sent > 0 ? cpu / result.sent : 0,
    databaseCpuMsPerRequest: databaseMs === undefined || result.sent === 0 ? undefined : databaseMs / result.sent,
    peakRssMb,
    rssAfterWarmupMb,
  };
  log(
    `  ${label.padEnd(40)} ${row.requestsPerSecond.toFixed(1).padStart(8)} req/s  p50 ${row.p50.toFixed(0).padStart(5)} ms  p99 ${row.p99.toFixed(0).padStart(5)} ms  errors ${row.errors}  SQL/req ${row.statementsPerRequest.toFixed(2)}  CPU/req ${row.cpuMsPerRequest.toFixed(1)} ms${row.databaseCpuMsPerRequest === undefined ? '' : ` + DB ${row.databaseCpuMsPerRequest.toFixed(1)} ms`}  RSS ${row.peakRssMb.toFixed(0)} MB`,
  );
  return row;
}

/** SQL statements of one request, nothing else running. */
export async function statementsOf(server: ServerProcess, request: Request): Promise<number> {
  const before = await statementsSoFar(server.url);
  await get(server.url, request);
  return (await statementsSoFar(server.url)) - before;
}
