// For tests that start real processes of their own (PostgreSQL, PgBouncer, Redis, HAProxy, a router): a free
// loopback port to give them, their command line as the postgres user where they refuse to run as root, and the
// list that stops them all.
import { createServer } from 'node:net';

/**
 * Ports are handed out from a slice of 10000-30999 that is this process's own (by vitest worker), never from the
 * ephemeral range (32768 and up): a port found free there can be taken, before the test's process binds it, by
 * an outgoing connection, a server started on port 0, or another worker's probe (test files run in parallel).
 */
const SLICE = 1500;
const FIRST = 10_000 + (Number(process.env.VITEST_POOL_ID ?? 0) % 14) * SLICE;
let nextOffset = Math.floor(Math.random() * SLICE);

function bindable(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = createServer();
    probe.once('error', () => resolve(false));
    probe.listen(port, '127.0.0.1', () => probe.close(() => resolve(true)));
  });
}

export async function freePort(): Promise<number> {
  for (let tries = 0; tries < SLICE; tries++) {
    const port = FIRST + (nextOffset++ % SLICE);
    if (await bindable(port)) return port;
  }
  throw new Error(`no free port in ${FIRST}-${FIRST + SLICE - 1}`);
}

/** The command line, as the postgres user when this process is root. */
export function asPostgres(command: string, args: string[]): [string, string[]] {
  return process.getuid?.() === 0 ? ['runuser', ['-u', 'postgres', '--', command, ...args]] : [command, args];
}

/**
 * What to stop, pushed as each part starts; `stopAll` runs them last-started first, each once, going on past
 * any that fails (a part already gone), so that a start that fails half-way or an interrupted run leaves nothing.
 */
export class StopList {
  private readonly stops: (() => Promise<unknown> | unknown)[] = [];

  push(stop: () => Promise<unknown> | unknown): void {
    this.stops.push(stop);
  }

  async stopAll(): Promise<void> {
    for (let stop = this.stops.pop(); stop; stop = this.stops.pop()) {
      try {
        await stop();
      } catch (error) {
        console.warn(`stopping: ${(error as Error).message}`);
      }
    }
  }
}
