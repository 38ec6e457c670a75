// When each fault of the fleet soak comes, scaled to the run's length: each at a set fraction of the run, spread
// over it in the same order whatever its length, so a 2-minute run meets every fault a 10-minute one does. Some
// holds are fixed (an instance is restarted 5 s after it is killed, as a supervisor would; the primary stays away
// 30 s); the others scale with the run within bounds. An import comes every 2 minutes of run, at least one (the
// one that ends the primary's outage counts).

export type FaultKind =
  | 'kill-instance'
  | 'primary-stop'
  | 'standby-stop'
  | 'pgbouncer-restart'
  | 'redis-stop'
  | 'redis-blackhole'
  | 'import';

export interface Planned {
  kind: FaultKind;
  /** Milliseconds after the load began. */
  at: number;
  /** How long the fault is held before it is lifted (0: a restart, or an import). */
  holdMs: number;
}

/** An instance killed with SIGKILL is started again this long after (a supervisor's restart delay). */
export const RESTART_DELAY_MS = 5000;
/** How long the primary stays stopped. */
export const PRIMARY_AWAY_MS = 30_000;
export const IMPORT_EVERY_MS = 120_000;
/** The least time between two imports. */
export const IMPORT_GAP_MS = 30_000;

/** A hold that scales with the run: 5% of it, from 5 s to 30 s. */
const scaledHold = (runMs: number) => Math.min(30_000, Math.max(5000, Math.round(runMs * 0.05)));

/** Where in the run each fault begins, as a fraction of it. */
const FRACTIONS: [Exclude<FaultKind, 'import'>, number][] = [
  ['kill-instance', 0.08],
  ['primary-stop', 0.18],
  ['standby-stop', 0.56],
  ['pgbouncer-restart', 0.66],
  ['redis-stop', 0.74],
  ['redis-blackhole', 0.84],
];

export function plan(runMs: number): Planned[] {
  const holds: Record<Exclude<FaultKind, 'import'>, number> = {
    'kill-instance': RESTART_DELAY_MS,
    'primary-stop': PRIMARY_AWAY_MS,
    'standby-stop': scaledHold(runMs),
    'pgbouncer-restart': 0,
    'redis-stop': scaledHold(runMs),
    'redis-blackhole': scaledHold(runMs),
  };
  const faults = FRACTIONS.map(([kind, fraction]) => ({ kind, at: Math.round(runMs * fraction), holdMs: holds[kind] }));
  const imports = Math.max(1, Math.floor(runMs / IMPORT_EVERY_MS));
  // The primary's outage ends with an import of its own (the one refused meanwhile, made again): a scheduled one
  // within IMPORT_GAP_MS of it would only stack two imports, and it stands in for that one.
  const primaryBack = (faults.find((fault) => fault.kind === 'primary-stop')?.at ?? 0) + PRIMARY_AWAY_MS;
  const importing = Array.from({ length: imports }, (_, k) => ({
    kind: 'import' as const,
    at: Math.round(((k + 0.5) * runMs) / imports),
    holdMs: 0,
  })).filter((run) => Math.abs(run.at - primaryBack) >= IMPORT_GAP_MS);
  return [...faults, ...importing].sort((a, b) => a.at - b.at);
}
