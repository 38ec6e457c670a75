// The Redis the instances share (REDIS_URL): cached answers and rate-limit counts. Redis only ever saves work,
// so no request waits on it for long: every command gets a deadline (REDIS_TIMEOUT, tens of milliseconds), and
// past it the caller goes on without Redis (the memory tier, the local rate limit). A command that fails or
// runs late opens a breaker: for the next second no command is sent at all, then one is tried again. A late
// answer also drops the connection for a new one, since a connection whose bytes have stopped (a silent
// network drop) would never answer again. /healthz and /metrics report the state.
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
    // A connection that stopped answering never will: start a new one (ioredis reconnects at once).
    if (late && client.status === 'ready') client.disconnect(true);
  };

  return {
    async run(command) {
      if (client.status !== 'ready' || Date.now() < pausedUntil) {
        skipped++;
        return undefined;
      }
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<'late'>((resolve) => {
        timer = setTimeout(() => resolve('late'), timeoutMs);
      });
      const sent = command(client);
      sent.catch(() => {}); // a command given up on may still fail later: nobody waits for it then
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
