// For tests that start real processes of their own (PostgreSQL, PgBouncer, Redis, HAProxy, a router): a free
// loopback port to give them, their command line as the postgres user where they refuse to run as root, and the
// list that stops them all.
import { createServer } from 'node:net';

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      probe.close(() => resolve(port));
    });
  });
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
