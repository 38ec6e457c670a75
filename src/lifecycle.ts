// How a process of this project ends: on SIGTERM/SIGINT, and, where npm started it, also when its parent is gone.
// `npm start` / `npm run ...` exec node, so npm passes SIGTERM/SIGINT on; but npm killed with SIGKILL cannot pass
// anything, and its child would run on unseen (a server holding its port, an import committing later). So a process
// npm started also watches its parent and stops as on SIGTERM when the parent changes. One started otherwise
// (`nohup node dist/server.js &`, a supervisor that double-forks, a container's PID 1) has a parent that may well
// exit on purpose: a logout, the intermediate process of a double fork. It keeps running, as daemons do, unless
// STOP_WITH_PARENT=true says otherwise (STOP_WITH_PARENT=false turns the watch off under npm too). The server also
// watches for faults no code handled (watchFaults): a stray rejected promise never ends it; an uncaught exception
// stops it.

export type StopReason = 'SIGTERM' | 'SIGINT' | 'parent exited' | 'uncaught exception';

/**
 * Whether a process stops when its parent exits: STOP_WITH_PARENT when it is `true` or `false` (the configuration
 * has checked it), else whether npm started it. npm sets `npm_lifecycle_event` (the script's name) and
 * `npm_execpath` in the environment of everything it runs, `npm start`, `npm run` and `npx` alike.
 */
export function stopsWithParent(env: NodeJS.ProcessEnv = process.env): boolean {
  const setting = env.STOP_WITH_PARENT;
  if (setting === 'true' || setting === 'false') return setting === 'true';
  return Boolean(env.npm_lifecycle_event || env.npm_execpath);
}

/**
 * Calls `stop` on SIGTERM, SIGINT and, with `withParent`, when the parent process exits; each further signal calls
 * it again.
 */
export function onStop(stop: (reason: StopReason) => void, withParent = stopsWithParent()): void {
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
  if (!withParent) return;
  const parent = process.ppid;
  const watch = setInterval(() => {
    if (process.ppid !== parent) {
      clearInterval(watch);
      stop('parent exited');
    }
  }, 1000);
  watch.unref();
}

/** The exit code a process interrupted this way ends with (as a shell reports a signal: 128 + its number). */
export function interruptedExitCode(reason: StopReason): number {
  return reason === 'SIGINT' ? 130 : 143;
}

/** A job stopped by a signal (or its parent's exit) before it finished; what it had begun is rolled back. */
export class Interrupted extends Error {
  constructor(readonly reason: StopReason) {
    super(`interrupted by ${reason}`);
  }
}

/**
 * For command-line jobs: a signal that aborts (with Interrupted) on the first SIGTERM/SIGINT or parent exit (where
 * the parent is watched: see stopsWithParent); a second one exits at once. The job checks it between steps, inside its transaction, so the transaction rolls back.
 */
export function interruptSignal(): AbortSignal {
  const controller = new AbortController();
  onStop((reason) => {
    if (controller.signal.aborted) process.exit(interruptedExitCode(reason));
    controller.abort(new Interrupted(reason));
  });
  return controller.signal;
}

/** Faults no code handled, since the process started: /metrics reads them (src/http/metrics.ts). */
const faults = { unhandledRejections: 0, uncaughtExceptions: 0 };
export const processFaults = (): Readonly<typeof faults> => faults;

/** What watchFaults logs with (a pino Logger has both). */
export interface FaultLog {
  error(fields: { err: Error }, message: string): void;
  fatal(fields: { err: Error }, message: string): void;
}

/**
 * For the server, installed before it starts:
 * - A rejected promise nobody handles is logged at error and counted, and the process goes on. Node's default
 *   (since 15) ends the process: one stray rejection, a throw at the HTTP edge say, would cut off every request in
 *   flight and every other caller's. What was lost is that one promise's work; the alert on the count asks for a fix.
 * - An uncaught exception is logged at fatal, counted, and `stop('uncaught exception')` is called: the throw
 *   unwound a callback half way, so, as Node's documentation warns, the process is in an unknown state (a stream
 *   half written, a lock never released, a counter never decremented). Going on risks wrong answers; stopping at
 *   once would cut off the requests in flight. So the server stops as on SIGTERM (the requests in flight finish,
 *   no new ones come) and exits 1, and its supervisor (Kubernetes, compose's restart policy) starts a fresh one.
 */
export function watchFaults(log: FaultLog, stop: (reason: StopReason) => void): void {
  process.on('unhandledRejection', (reason) => {
    faults.unhandledRejections += 1;
    log.error({ err: asError(reason) }, 'a promise was rejected and nothing handled it; the process goes on');
  });
  process.on('uncaughtException', (error) => {
    faults.uncaughtExceptions += 1;
    log.fatal({ err: asError(error) }, 'uncaught exception: stopping, the process state is unknown');
    stop('uncaught exception');
  });
}

/**
 * The logger's `err` serializer reads an Error; anything else thrown or rejected is named by its value when it is
 * a primitive (the serializer redacts credentials in the message), by its type otherwise (an object's fields may
 * hold anything).
 */
export function asError(value: unknown): Error {
  if (value instanceof Error) return value;
  const primitive = value === null || (typeof value !== 'object' && typeof value !== 'function');
  const name = primitive ? String(value).slice(0, 200) : `${typeof value} (${constructorName(value as object)})`;
  return new Error(`not an Error: ${name}`);
}

function constructorName(value: object): string {
  try {
    return (Object.getPrototypeOf(value)?.constructor?.name as string | undefined) || 'no prototype';
  } catch {
    return 'unknown';
  }
}
