// PgBouncer (Debian's package) in transaction pooling mode, started by a test in a directory of its own on a free
// loopback port, in front of a PostgreSQL server; stopped by its PID, or restarted on the same port as an operator
// would. PgBouncer refuses to run as root: under root it runs as the postgres user. It ignores the startup
// parameters deploy/pgbouncer.ini tells it to, as a pooler set up from that file does, or none (`stock`:
// PgBouncer's default, which refuses them).
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { asPostgres, freePort } from './processes.js';

export const PGBOUNCER = '/usr/sbin/pgbouncer';

export const pgbouncerInstalled = () => existsSync(PGBOUNCER);

/** The `ignore_startup_parameters` line of the deployment's pgbouncer.ini. */
function deployedIgnoreLine(): string {
  const ini = readFileSync(fileURLToPath(new URL('../../deploy/pgbouncer.ini', import.meta.url)), 'utf8');
  const line = /^ignore_startup_parameters\s*=.*$/m.exec(ini)?.[0];
  if (!line) throw new Error('deploy/pgbouncer.ini sets no ignore_startup_parameters');
  return line;
}

export interface Bouncer {
  port: number;
  /** The URL of `database` through the pooler. */
  url(database: string): string;
  /** Stops it (every client connection dropped) and starts it again on the same port. */
  restart(): Promise<void>;
  stop(): Promise<void>;
}

const execFileAsync = promisify(execFile);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** PgBouncer in front of `host:port` in transaction mode, with `size` server connections per database. */
export async function startPgBouncer(
  target: { host: string; port: number },
  size = 4,
  { stock = false }: { stock?: boolean } = {},
): Promise<Bouncer> {
  const dir = mkdtempSync(join(tmpdir(), 'pgbouncer-'));
  chmodSync(dir, 0o777);
  const port = await freePort();
  const ini = join(dir, 'pgbouncer.ini');
  writeFileSync(join(dir, 'users.txt'), '"postgres" ""\n');
  writeFileSync(
    ini,
    [
      '[databases]',
      `* = host=${target.host} port=${target.port}`,
      '[pgbouncer]',
      'listen_addr = 127.0.0.1',
      `listen_port = ${port}`,
      'unix_socket_dir =',
      'auth_type = trust',
      `auth_file = ${join(dir, 'users.txt')}`,
      'pool_mode = transaction',
      `default_pool_size = ${size}`,
      'max_client_conn = 200',
      ...(stock ? [] : [deployedIgnoreLine()]),
      `logfile = ${join(dir, 'pgbouncer.log')}`,
      `pidfile = ${join(dir, 'pgbouncer.pid')}`,
      '',
    ].join('\n'),
  );
  chmodSync(ini, 0o644);
  const pidfile = join(dir, 'pgbouncer.pid');
  const launch = async (): Promise<ChildProcess> => {
    const [command, args] = asPostgres(PGBOUNCER, [ini]);
    const child = spawn(command, args, { stdio: 'ignore' });
    for (let i = 0; i < 100; i++) {
      try {
        await execFileAsync('pg_isready', ['-h', '127.0.0.1', '-p', String(port), '-q']);
        break;
      } catch {
        if (child.exitCode !== null) throw new Error(`pgbouncer exited with ${child.exitCode}`);
        await sleep(100);
      }
    }
    return child;
  };
  const halt = async (running: ChildProcess) => {
    // By its own PID (runuser may not pass the signal on), then the wrapper.
    if (existsSync(pidfile)) {
      try {
        process.kill(Number(readFileSync(pidfile, 'utf8').trim()), 'SIGTERM');
      } catch {
        // gone already
      }
    }
    if (running.exitCode === null && running.signalCode === null) {
      const exited = new Promise((resolve) => running.once('exit', resolve));
      const timer = setTimeout(() => running.kill('SIGKILL'), 5000);
      await exited;
      clearTimeout(timer);
    }
  };
  let child = await launch();
  return {
    port,
    url: (database) => `postgresql://postgres@127.0.0.1:${port}/${database}`,
    async restart() {
      await halt(child);
      child = await launch();
    },
    async stop() {
      await halt(child);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
