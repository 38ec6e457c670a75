// How a process of this project ends: on SIGTERM/SIGINT, and also when the process that started it is gone.
// `npm start` / `npm run ...` exec node, so npm passes SIGTERM/SIGINT on; but npm killed with SIGKILL cannot pass
// anything, and its child would run on unseen (a server holding its port, an import committing later). So every
// entry point also watches its parent and stops as on SIGTERM when the parent changes.

export type StopReason = 'SIGTERM' | 'SIGINT' | 'parent exited';

/** Calls `stop` on SIGTERM, SIGINT and when the parent process exits; each further signal calls it again. */
export function onStop(stop: (reason: StopReason) => void): void {
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
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
 * For command-line jobs: a signal that aborts (with Interrupted) on the first SIGTERM/SIGINT or parent exit; a
 * second one exits at once. The job checks it between steps, inside its transaction, so the transaction rolls back.
 */
export function interruptSignal(): AbortSignal {
  const controller = new AbortController();
  onStop((reason) => {
    if (controller.signal.aborted) process.exit(interruptedExitCode(reason));
    controller.abort(new Interrupted(reason));
  });
  return controller.signal;
}
