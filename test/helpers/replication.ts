// A private PostgreSQL primary and a streaming standby of it, made by a test in a temporary directory with
// Debian's server binaries (initdb, pg_basebackup -R, pg_ctl), run as the postgres user; never the machine's own
// cluster. Each server listens on a free loopback port and is stopped by the PID in its postmaster.pid.
import { execFile, execFileSync } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { asPostgres, freePort } from './processes.js';

export const POSTGRES_BIN = '/usr/lib/postgresql/15/bin';

export const replicationInstalled = () =>
  ['initdb', 'pg_ctl', 'pg_basebackup'].every((tool) => existsSync(join(POSTGRES_BIN, tool)));

export interface Server {
  port: number;
  url(database: string): string;
  /** The postmaster's PID, while it runs. */
  pid(): number | undefined;
  /** Stops it: `fast` ends sessions cleanly, `immediate` is a crash as its clients see it. */
  stop(mode?: 'fast' | 'immediate'): Promise<void>;
  start(): Promise<void>;
}

export interface Replication {
  primary: Server;
  standby: Server;
  /** Stops both and removes their directories. */
  stop(): Promise<void>;
}

const execFileAsync = promisify(execFile);

/** Runs a server tool to its end without blocking this process (a load it drives goes on meanwhile). */
async function run(tool: string, args: string[]): Promise<void> {
  const [command, argv] = asPostgres(join(POSTGRES_BIN, tool), args);
  await execFileAsync(command, argv, { timeout: 60_000 });
}

function server(dir: string, dataDir: string, port: number): Server {
  const pidFile = join(dataDir, 'postmaster.pid');
  const server: Server = {
    port,
    url: (database) => `postgresql://postgres@127.0.0.1:${port}/${database}`,
    pid: () => (existsSync(pidFile) ? Number(readFileSync(pidFile, 'utf8').split('\n')[0]) : undefined),
    async stop(mode = 'fast') {
      if (server.pid() === undefined) return;
      try {
        await run('pg_ctl', ['-D', dataDir, '-m', mode, '-w', '-t', '30', 'stop']);
      } catch {
        const pid = server.pid();
        if (pid) process.kill(pid, 'SIGKILL');
      }
    },
    async start() {
      const options = `-p ${port} -c listen_addresses=127.0.0.1 -c unix_socket_directories=${dir} -c fsync=off`;
      await run('pg_ctl', ['-D', dataDir, '-o', options, '-l', join(dir, `${port}.log`), '-w', '-t', '60', 'start']);
    },
  };
  return server;
}

/** Makes and starts a primary and a standby streaming from it (fsync off: a test's data). */
export async function startReplication(): Promise<Replication> {
  const dir = mkdtempSync(join(tmpdir(), 'replication-'));
  if (process.getuid?.() === 0) {
    const uid = Number(execFileSync('id', ['-u', 'postgres']).toString());
    const gid = Number(execFileSync('id', ['-g', 'postgres']).toString());
    chownSync(dir, uid, gid);
  }
  const [primaryPort, standbyPort] = [await freePort(), await freePort()];
  const primaryDir = join(dir, 'primary');
  const standbyDir = join(dir, 'standby');
  await run('initdb', ['-D', primaryDir, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--locale=C', '--no-sync']);
  const primary = server(dir, primaryDir, primaryPort);
  const standby = server(dir, standbyDir, standbyPort);
  try {
    await primary.start();
    await run('pg_basebackup', [
      '-h',
      '127.0.0.1',
      '-p',
      String(primaryPort),
      '-U',
      'postgres',
      '-D',
      standbyDir,
      '-R',
    ]);
    await standby.start();
  } catch (error) {
    await standby.stop('immediate');
    await primary.stop('immediate');
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
  return {
    primary,
    standby,
    async stop() {
      await standby.stop('immediate');
      await primary.stop('immediate');
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
