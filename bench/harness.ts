// The bench's moving parts: child processes (the product server, the floor, scripts), the counters it reads
// from /metrics, the server's memory from /proc, and one autocannon load run.
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { type AddressInfo, createServer } from 'node:net';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import pg from 'pg';

export const ROOT = fileURLToPath(new URL('..', import.meta.url));

/** The environment of a child: ours without the product's own settings, plus the given ones. */
export function childEnv(env: Record<string, string>): NodeJS.ProcessEnv {
  const own = ['DATABASE_URL', 'DATA_DIR', 'PORT', 'HOST', 'SEED_PACKAGES', 'LOG_LEVEL', 'PUBLIC_URL', 'TRUST_PROXY'];
  const clean = Object.fromEntries(Object.entries(process.env).filter(([key]) => !own.includes(key)));
  return { ...clean, ...env };
}

/** Runs a command to its end with its output on ours; rejects when it fails. */
export function runCommand(command: string, args: string[], env: Record<string, string>): Promise<void> {
  return runCommandIn(ROOT, command, args, env);
}

/** runCommand in another directory. */
export function runCommandIn(cwd: string, command: string, args: string[], env: Record<string, string>) {
  return new Promise<void>((resolve, reject) => {
    const child = spawn(command, args, { cwd, env: childEnv(env), stdio: ['ignore', 'inherit', 'inherit'] });
    child.on('error', reject);
    child.on('exit', (code) =>
      code === 0 ? resolve() : reject(new Error(`${command} ${args.join(' ')} exited with ${code}`)),
    );
  });
}

/** Runs a TypeScript script under tsx and returns its stdout; rejects with its stderr when it fails. */
export function runScript(script: string, args: string[], env: Record<string, string>): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', script, ...args], {
      cwd: ROOT,
      env: childEnv(env),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.on('error', reject);
    child.on('exit', (code) =>
      code === 0 ? resolve(stdout) : reject(new Error(`${script} ${args.join(' ')} exited with ${code}: ${stderr}`)),
    );
  });
}

export interface ServerProcess {
  /** http://127.0.0.1:port */
  url: string;
  pid: number;
  output(): string;
  stop(): Promise<void>;
}

/** A TCP port free on loopback right now. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as AddressInfo;
      probe.close(() => resolve(port));
    });
  });
}

/**
 * Starts `node [nodeArgs] <script>` (through tsx for a .ts script; one process: its pid is the server's, for
 * /proc) and resolves once it answers /healthz at `address`: a URL known beforehand (the product, given a
 * port: it logs its address at info level, which the bench turns off), or a pattern its output matches.
 */
export async function startProcess(
  script: string,
  env: Record<string, string>,
  address: RegExp | string,
  nodeArgs: string[] = [],
  cwd = ROOT,
): Promise<ServerProcess> {
  const loader = /\.m?ts$/.test(script) ? ['--import', 'tsx'] : [];
  const child: ChildProcess = spawn(process.execPath, [...nodeArgs, ...loader, script], {
    cwd,
    env: childEnv({ HOST: '127.0.0.1', PORT: '0', ...env }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk));
  const url = await new Promise<string>((resolve, reject) => {
    if (typeof address === 'string') return resolve(address);
    const timer = setTimeout(() => reject(new Error(`${script} did not start within 180 s:\n${output}`)), 180_000);
    child.stdout?.on('data', () => {
      const match = address.exec(output);
      if (match?.[1]) {
        clearTimeout(timer);
        resolve(match[1]);
      }
    });
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`${script} exited with ${code} before listening:\n${output}`));
    });
  });
  const server: ServerProcess = {
    url,
    pid: child.pid ?? 0,
    output: () => output,
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
      await exited;
      clearTimeout(timer);
    },
  };
  for (let attempt = 0; ; attempt++) {
    const ok = await fetch(`${url}/healthz`)
      .then((r) => r.ok)
      .catch(() => false);
    if (ok) return server;
    if (child.exitCode !== null) throw new Error(`${script} exited with ${child.exitCode}:\n${output}`);
    if (attempt === 1800) {
      await server.stop();
      throw new Error(`${script} does not answer ${url}/healthz:\n${output}`);
    }
    await sleep(100);
  }
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The node options `npm start` runs the server with (package.json's start script): the bench runs it alike. */
export function startOptions(dir = ROOT): string[] {
  const { scripts } = JSON.parse(readFileSync(`${dir}/package.json`, 'utf8')) as { scripts: { start: string } };
  const words = scripts.start.split(/\s+/);
  return words.slice(words.indexOf('node') + 1, words.indexOf('dist/server.js'));
}

/** `db_queries_total` from the server's /metrics. */
export async function statementsSoFar(url: string): Promise<number> {
  const text = await (await fetch(`${url}/metrics`)).text();
  const match = /^db_queries_total (\d+(?:\.\d+)?(?:e\+\d+)?)$/m.exec(text);
  if (!match?.[1]) throw new Error(`no db_queries_total in ${url}/metrics`);
  return Number(match[1]);
}

/** Waits until requests still running on the server (cut off by the end of a load run) have finished. */
export async function settled(url: string): Promise<number> {
  let last = await statementsSoFar(url);
  for (let i = 0; i < 40; i++) {
    await sleep(250);
    const now = await statementsSoFar(url);
    if (now === last) return now;
    last = now;
  }
  return last;
}

function statusKb(pid: number, field: 'VmRSS' | 'VmHWM'): number {
  const match = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return Number(match?.[1] ?? 0);
}

/** The process's resident memory now, in MB. */
export function rssMb(pid: number): number {
  return statusKb(pid, 'VmRSS') / 1024;
}

/** Samples the resident memory of a process every 100 ms; `stop` returns the peak seen, in MB. */
export function sampleRss(pid: number): { stop(): number } {
  let peakKb = 0;
  const sample = () => {
    try {
      peakKb = Math.max(peakKb, statusKb(pid, 'VmRSS'));
    } catch {
      // the process is gone; keep what was seen
    }
  };
  sample();
  const timer = setInterval(sample, 100);
  return {
    stop() {
      clearInterval(timer);
      sample();
      return peakKb / 1024;
    },
  };
}

const CLOCK_TICKS = (() => {
  try {
    return Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
  } catch {
    return 100;
  }
})();

/** CPU time (user + system) the process has used so far, in ms: robust where requests/s drift with the neighbours. */
export function cpuMs(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' '); // from field 3 (state) on
  return ((Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS) * 1000;
}

/**
 * CPU time used by the PostgreSQL backends serving one database (the bench's own probe connection aside): what
 * the database spends on the product's or the floor's requests. `stop` returns the ms used since `start`.
 */
export interface DatabaseCpu {
  start(): Promise<void>;
  stop(): Promise<number>;
  close(): Promise<void>;
}

export async function databaseCpu(url: string): Promise<DatabaseCpu> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  const backends = async () => {
    const { rows } = await client.query<{ pid: number }>(
      'SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()',
    );
    const used = new Map<number, number>();
    for (const { pid } of rows) {
      try {
        used.set(pid, cpuMs(pid));
      } catch {
        // gone meanwhile
      }
    }
    return used;
  };
  let before = new Map<number, number>();
  return {
    async start() {
      before = await backends();
    },
    async stop() {
      let total = 0;
      for (const [pid, ms] of await backends()) total += ms - (before.get(pid) ?? 0);
      return total;
    },
    close: () => client.end(),
  };
}

/** The process's lifetime peak resident memory (VmHWM), in MB. */
export function highWaterMb(pid: number): number {
  try {
    return statusKb(pid, 'VmHWM') / 1024;
  } catch {
    return 0;
  }
}

export interface Request {
  method: 'GET' | 'POST';
  path: string;
  headers: Record<string, string>;
  body?: string;
  /** Whether a 2xx body is the expected answer (a GraphQL error comes with status 200). */
  verify(body: string): boolean;
  /** The answer is a 304 (a conditional request), not a 2xx. */
  notModified?: boolean;
}

export interface LoadResult {
  requestsPerSecond: number;
  p50: number;
  p99: number;
  /** Connection errors, timeouts, non-2xx responses and bodies that fail `verify`. */
  errors: number;
  /** Requests sent, including those cut off at the end. */
  sent: number;
  completed: number;
}

/** Drives `request` at `url` with a fixed number of connections for `duration` seconds. */
export async function load(url: string, request: Request, connections: number, duration: number) {
  const result = await autocannon({
    url: `${url}${request.path}`,
    method: request.method,
    headers: request.headers,
    ...(request.body === undefined ? {} : { body: request.body }),
    connections,
    duration,
    timeout: 30,
    verifyBody: (body) => request.verify(String(body)),
  });
  return {
    requestsPerSecond: result.requests.total / result.duration,
    p50: result.latency.p50,
    p99: result.latency.p99,
    errors:
      result.errors +
      result.non2xx -
      (request.notModified ? (result.statusCodeStats?.['304']?.count ?? 0) : 0) +
      result.mismatches,
    sent: result.requests.sent,
    completed: result.requests.total,
  } satisfies LoadResult;
}
