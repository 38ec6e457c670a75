// The Redis the instances share (REDIS_URL): cached answers and rate-limit counts. Redis only ever saves work,
// so no request waits on it for long: every command gets a deadline (REDIS_TIMEOUT, tens of milliseconds), and
// past it the caller goes on without Redis (the memory tier, the local rate limit). A command that fails or
// runs late opens a breaker: for the next second no command is sent at all, then one is tried again. A command
// still unanswered at ioredis's own (longer) timeout drops the connection for a new one, since a connection
// whose bytes have stopped (a silent network drop) never answers again. /healthz and /metrics report the state.
import { Redis } from 'ioredis';
import type { Logger } from 'pino';

export type RedisState = 'ok' | 'degraded' | 'unreachable';

export interface SharedRedis {
  /** The command's result, or undefined when Redis is away, late or failing (then go on without it). */
  run<T>(command: (client: Redis) => Promise<T>): Promise<T | undefined>;
  /** ok: answering in time; degraded: connected but late or failing; unreachable: not connected. */
  state(): RedisState;
  /** Counts of commands given up on (late or failed) and not sent (Redis away), for /metrics. */
  counts(): { failed: number; skipped: number };
  close(): Promise<void>;
}

export interface RedisOptions {
  url: string;
  /** Deadline of each command, in milliseconds. */
  timeoutMs: number;
  logger: Logger;
}

/** How long the breaker stays open after a late or failed command. */
const PAUSE_MS = 1000;

export function connectRedis({ url, timeoutMs, logger }: RedisOptions): SharedRedis {
  // No offline queue: while Redis is away a command fails at once instead of waiting for a connection.
  const client = new Redis(url, {
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
    connectTimeout: 2000,
    // A backstop for commands already sent on a connection that went silent: they fail rather than pile up.
    commandTimeout: Math.max(1000, timeoutMs * 4),
  });
  let pausedUntil = 0;
  /** Settles when the connection being made is ready; made anew when a ready connection closes. */
  let settled = false;
  const nextReady = () =>
    new Promise<void>((resolve) =>
      client.once('ready', () => {
        settled = true;
        resolve();
      }),
    );
  let connected = nextReady();
  client.on('close', () => {
    if (!settled) return; // the one waiting for 'ready' still stands
    settled = false;
    connected = nextReady();
  });
  let failed = 0;
  let skipped = 0;
  let troubled = false;

  const say = (line: string, error?: Error) => {
    if (troubled) return;
    troubled = true; // one line per outage, not one per request
    logger.warn(error ? { err: { message: error.message } } : {}, line);
  };
  client.on('error', (error: Error) => say('Redis unreachable: going on without it (memory only)', error));
  client.on('ready', () => {
    if (troubled) logger.info('Redis is back');
    troubled = false;
  });

  const giveUp = (late: boolean, error?: Error) => {
    failed++;
    pausedUntil = Date.now() + PAUSE_MS;
    say(late ? `Redis did not answer within ${timeoutMs} ms: going on without it` : 'Redis failed a command', error);
  };
  // A command that has not answered by ioredis's own command timeout means a connection that stopped answering,
  // and never will again: a new one is made (ioredis reconnects at once). A merely slow answer changes nothing.
  const watch = (sent: Promise<unknown>) =>
    sent.catch((error: Error) => {
      if (/timed out/i.test(error.message) && client.status === 'ready') client.disconnect(true);
    });

  return {
    async run(command) {
      if (Date.now() < pausedUntil || client.status === 'end' || client.status === 'close') {
        skipped++;
        return undefined;
      }
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<'late'>((resolve) => {
        timer = setTimeout(() => resolve('late'), timeoutMs);
      });
      if (client.status !== 'ready') {
        // Connecting (at start, or again after a drop): worth the same deadline as an answer.
        if ((await Promise.race([connected.then(() => 'ready' as const), late])) === 'late') {
          clearTimeout(timer);
          giveUp(true);
          return undefined;
        }
      }
      const sent = command(client);
      void watch(sent); // a command given up on may still fail later: nobody waits for it then
      try {
        const outcome = await Promise.race([sent.then((value) => ({ value })), late]);
        if (outcome === 'late') {
          giveUp(true);
          return undefined;
        }
        return outcome.value;
      } catch (error) {
        giveUp(false, error as Error);
        return undefined;
      } finally {
        clearTimeout(timer);
      }
    },
    state() {
      if (client.status !== 'ready') return 'unreachable';
      return Date.now() < pausedUntil ? 'degraded' : 'ok';
    },
    counts: () => ({ failed, skipped }),
    async close() {
      client.disconnect();
    },
  };
}
