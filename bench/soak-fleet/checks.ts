// What the fleet soak judges, from what it recorded: the run cut into phases (each fault's window, from when it
// was made until the fleet was whole again plus a settling margin, and the steady stretches between), figures per
// phase, memory per instance, and the pass criteria.
import type { FaultRun, ImportRun } from './faults.js';
import type { Sent } from './load.js';

/** After the fleet is whole again, its answers are still counted in the fault's window this long (caches refill). */
export const SETTLE_MS = 2000;
export const MIN_SUCCESS = 0.999;
export const MAX_P99_MS = 500;
export const MAX_RSS_DRIFT = 0.1;

export interface Recorded {
  /** Date.now() when the measured load began, and the run's planned length. */
  began: number;
  runMs: number;
  sent: Sent[];
  faults: FaultRun[];
  imports: ImportRun[];
  rss: RssSample[];
  /** How long the first instances had been up, serving the measurement, when the load began. */
  warmMs: number;
}

export interface RssSample {
  /** Milliseconds after the load began. */
  t: number;
  /** Which instance (0, 1) and which process of it. */
  instance: number;
  pid: number;
  mb: number;
}

export interface Phase {
  label: string;
  /** Milliseconds after the load began. */
  from: number;
  to: number;
  fault?: FaultRun;
}

export interface Figures {
  requests: number;
  failed: number;
  /** Failed requests that were in flight on an instance when it was killed. */
  inFlightOnKilled: number;
  p50: number | undefined;
  p99: number | undefined;
}

export function percentile(values: number[], q: number): number | undefined {
  if (values.length === 0) return undefined;
  const sorted = Float64Array.from(values).sort();
  return sorted[Math.max(0, Math.ceil(q * sorted.length) - 1)];
}

/** A request that failed while in flight on the instance killed: sent before the kill, not answered by then. */
export function inFlightOnKilled(sent: Sent[], faults: FaultRun[]): Set<Sent> {
  const kills = faults.filter((fault) => fault.kind === 'kill-instance');
  return new Set(
    sent.filter(
      (s) =>
        !s.ok &&
        kills.some(
          (kill) => s.at <= kill.began && s.at + s.ms >= kill.began && (!s.servedBy || s.servedBy === kill.victim),
        ),
    ),
  );
}

export function figures(sent: Sent[], apart: Set<Sent>): Figures {
  return {
    requests: sent.length,
    failed: sent.filter((s) => !s.ok && !apart.has(s)).length,
    inFlightOnKilled: sent.filter((s) => apart.has(s)).length,
    p50: percentile(
      sent.map((s) => s.ms),
      0.5,
    ),
    p99: percentile(
      sent.map((s) => s.ms),
      0.99,
    ),
  };
}

/**
 * Milliseconds from the run's start to its last request sent, or to its planned end when later. A loop, not
 * Math.max(...): a 10-minute run sends some 150,000 requests, past what a call's arguments may hold.
 */
export function lastMomentMs(recorded: Recorded): number {
  let end = recorded.runMs;
  for (const s of recorded.sent) end = Math.max(end, s.at - recorded.began);
  return end;
}

/** Each fault's window (imports are the listing's normal life, not a fault) and the steady stretches between. */
export function phases(recorded: Recorded): Phase[] {
  const end = lastMomentMs(recorded);
  const windows = recorded.faults
    .filter((fault) => fault.kind !== 'import')
    .map((fault) => ({
      label: fault.kind,
      from: fault.began - recorded.began,
      to: Math.min(end, (fault.recovered ?? fault.lifted) - recorded.began + SETTLE_MS),
      fault,
    }));
  const all: Phase[] = [];
  let at = 0;
  for (const window of windows) {
    if (window.from > at) all.push({ label: 'steady', from: at, to: window.from });
    all.push(window);
    at = Math.max(at, window.to);
  }
  if (end > at) all.push({ label: 'steady', from: at, to: end });
  return all;
}

export function within(recorded: Recorded, phase: Phase): Sent[] {
  return recorded.sent.filter((s) => s.at - recorded.began >= phase.from && s.at - recorded.began < phase.to);
}

export interface Memory {
  instance: number;
  pid: number;
  /** First and last sample of the process; the trend's MB where drift is judged from and at the end. */
  startMb: number;
  endMb: number;
  fromMs: number;
  fromMb: number | undefined;
  /** Median of the last samples; drift from fromMb to it (undefined: the process did not live long enough). */
  lastMb: number | undefined;
  drift: number | undefined;
  /** Killed during the run (its drift is not judged). */
  killed: boolean;
}

/** Runs at least this long judge RSS drift; shorter ones (CI's 2 minutes) report it only. */
export const DRIFT_JUDGED_FROM_RUN_MS = 240_000;

/**
 * From when RSS drift is measured: minute 2, or 30 s into a run shorter than 4 minutes (a quarter of it). In so
 * short a run that stretch is mostly a young heap settling (±10% between runs of the same build), not a leak.
 */
export function driftFromMs(runMs: number): number {
  return runMs >= DRIFT_JUDGED_FROM_RUN_MS ? 120_000 : Math.min(30_000, runMs / 4);
}
/** RSS is sampled this often; a process sampled first later than this after the load began started in the run. */
export const SAMPLE_MS = 2000;
/** A process is judged when it was sampled for at least this long from where drift is judged. */
const MIN_JUDGED_MS = 20_000;

/**
 * The least-squares line through the samples, as MB at a time: RSS saws up and down by a tenth within seconds as
 * the heap is collected, so two samples (or the medians of a few) say more of where a collection fell than of a
 * drift; the line through all of them says whether memory goes up.
 */
function trend(samples: RssSample[]): (t: number) => number {
  const mt = samples.reduce((sum, p) => sum + p.t, 0) / samples.length;
  const mm = samples.reduce((sum, p) => sum + p.mb, 0) / samples.length;
  const spread = samples.reduce((sum, p) => sum + (p.t - mt) ** 2, 0);
  const slope = spread === 0 ? 0 : samples.reduce((sum, p) => sum + (p.t - mt) * (p.mb - mm), 0) / spread;
  return (t) => mm + slope * (t - mt);
}

export function memory(recorded: Recorded): Memory[] {
  const byProcess = new Map<number, RssSample[]>();
  for (const sample of recorded.rss) byProcess.set(sample.pid, [...(byProcess.get(sample.pid) ?? []), sample]);
  const lastPid = new Map<number, number>();
  for (const sample of recorded.rss) lastPid.set(sample.instance, sample.pid);
  return [...byProcess.entries()].map(([pid, samples]) => {
    const first = samples[0] as RssSample;
    const last = samples.at(-1) as RssSample;
    const killed = lastPid.get(first.instance) !== pid;
    // At the same age for every process: the first ones were up warmMs before the load began, and are judged
    // from minute 2 of it; a process started again later is judged once it is as old as they were then.
    const startedAt = first.t < SAMPLE_MS ? -recorded.warmMs : first.t;
    const fromMs = startedAt + recorded.warmMs + driftFromMs(recorded.runMs);
    const line = last.t - fromMs >= MIN_JUDGED_MS ? trend(samples.filter((s) => s.t >= fromMs)) : undefined;
    const fromMb = line?.(fromMs);
    const lastMb = line?.(last.t);
    const drift = fromMb && lastMb ? (lastMb - fromMb) / fromMb : undefined;
    return { instance: first.instance, pid, startMb: first.mb, endMb: last.mb, fromMs, fromMb, lastMb, drift, killed };
  });
}

export interface Check {
  name: string;
  pass: boolean;
  detail: string;
}

const ms = (value: number | undefined) => (value === undefined ? '-' : `${Math.round(value)} ms`);

export function checks(recorded: Recorded): Check[] {
  const apart = inFlightOnKilled(recorded.sent, recorded.faults);
  const total = figures(recorded.sent, apart);
  const others = total.requests - total.inFlightOnKilled;
  const success = others === 0 ? 0 : (others - total.failed) / others;
  const steady = phases(recorded)
    .filter((phase) => !phase.fault)
    .flatMap((phase) => within(recorded, phase));
  const steadyP99 = percentile(
    steady.map((s) => s.ms),
    0.99,
  );
  const judged = memory(recorded).filter((m) => !m.killed && m.drift !== undefined);
  const worst = judged.reduce<Memory | undefined>(
    (w, m) => (w && Math.abs(w.drift ?? 0) >= Math.abs(m.drift ?? 0) ? w : m),
    undefined,
  );
  const mixed = recorded.sent.filter((s) => s.mixed).length;
  const problems = recorded.faults.flatMap((fault) => fault.problems);
  return [
    {
      name: `at least ${MIN_SUCCESS * 100}% of requests succeed (those in flight on a killed instance apart)`,
      pass: others > 0 && success >= MIN_SUCCESS,
      detail: `${others - total.failed} of ${others} (${(success * 100).toFixed(3)}%); ${total.inFlightOnKilled} in flight on a killed instance`,
    },
    {
      name: `p99 under ${MAX_P99_MS} ms outside the fault windows`,
      pass: steadyP99 !== undefined && steadyP99 < MAX_P99_MS,
      detail: `p99 ${ms(steadyP99)} over ${steady.length} requests`,
    },
    {
      name: `RSS drifts less than ${MAX_RSS_DRIFT * 100}% from ${driftFromMs(recorded.runMs) / 1000} s to the end`,
      pass:
        recorded.runMs < DRIFT_JUDGED_FROM_RUN_MS ||
        (judged.length > 0 && judged.every((m) => Math.abs(m.drift ?? 0) < MAX_RSS_DRIFT)),
      detail:
        (worst
          ? `largest: instance ${worst.instance + 1} (pid ${worst.pid}) ${((worst.drift ?? 0) * 100).toFixed(1)}%, ${judged.length} processes judged`
          : 'no process lived long enough to be judged') +
        (recorded.runMs < DRIFT_JUDGED_FROM_RUN_MS
          ? `; reported, not judged, in a run under ${DRIFT_JUDGED_FROM_RUN_MS / 60_000} minutes`
          : ''),
    },
    {
      name: 'no answer mixes listing versions',
      pass: mixed === 0,
      detail: `${mixed} mixed of ${recorded.sent.filter((s) => s.version).length} pages read`,
    },
    {
      name: 'every fault recovered; imports did as expected',
      pass: problems.length === 0,
      detail: problems.length === 0 ? `${recorded.faults.length} faults and imports` : problems.join('; '),
    },
  ];
}
