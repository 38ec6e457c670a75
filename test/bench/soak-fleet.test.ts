// The fleet soak's schedule and judgement (bench/soak-fleet/), on made-up records: no fleet is started.
import { describe, expect, it } from 'vitest';
import { checks, driftFromMs, inFlightOnKilled, memory, phases, type Recorded } from '../../bench/soak-fleet/checks.js';
import type { FaultRun } from '../../bench/soak-fleet/faults.js';
import type { Sent } from '../../bench/soak-fleet/load.js';
import { report } from '../../bench/soak-fleet/report.js';
import { PRIMARY_AWAY_MS, plan } from '../../bench/soak-fleet/schedule.js';

const sent = (at: number, ms: number, ok = true, extra: Partial<Sent> = {}): Sent => ({
  at,
  ms,
  ok,
  mixed: false,
  version: ok ? 'old' : undefined,
  kind: 'v2 cached',
  ...extra,
});

const fault = (kind: FaultRun['kind'], began: number, lifted: number, recovered: number | undefined): FaultRun => ({
  kind,
  began,
  lifted,
  recovered,
  problems: [],
  ...(kind === 'kill-instance' && { victim: 'gateway-2' }),
});

describe('the fleet soak schedule', () => {
  it('meets every fault in a 2-minute run, each once, in the order of a 10-minute one, imports never stacked', () => {
    const short = plan(120_000);
    const long = plan(600_000);
    const faults = (planned: typeof short) => planned.filter((p) => p.kind !== 'import').map((p) => p.kind);
    expect(faults(short)).toEqual(faults(long));
    expect(new Set(faults(short)).size).toBe(6);
    // The import that ends the primary's outage (at 51.6 s) stands in for the one due at 60 s.
    expect(short.filter((p) => p.kind === 'import')).toHaveLength(0);
    expect(long.filter((p) => p.kind === 'import').map((p) => p.at)).toEqual(
      [60, 180, 300, 420, 540].map((s) => s * 1000),
    );
    for (const planned of [...short, ...long]) expect(planned.at).toBeGreaterThan(0);
    expect(short.find((p) => p.kind === 'primary-stop')?.holdMs).toBe(PRIMARY_AWAY_MS);
  });
});

describe('the fleet soak checks', () => {
  const began = 1_000_000;
  const kill = fault('kill-instance', began + 10_000, began + 15_000, began + 20_000);

  it('counts apart only the failures in flight on the killed instance when it died', () => {
    const inFlight = sent(began + 9_900, 300, false, { servedBy: 'gateway-2' });
    const onTheOther = sent(began + 9_900, 300, false, { servedBy: 'gateway-1' });
    const after = sent(began + 10_100, 300, false);
    const answered = sent(began + 9_900, 300, true);
    expect([...inFlightOnKilled([inFlight, onTheOther, after, answered], [kill])]).toEqual([inFlight]);
  });

  it('cuts the run into fault windows (until whole again, plus a margin) and steady stretches', () => {
    const recorded: Recorded = { began, runMs: 60_000, sent: [], faults: [kill], imports: [], rss: [], warmMs: 0 };
    expect(phases(recorded).map((p) => [p.label, p.from, p.to])).toEqual([
      ['steady', 0, 10_000],
      ['kill-instance', 10_000, 22_000],
      ['steady', 22_000, 60_000],
    ]);
  });

  it('judges and reports a 10-minute run of 300 requests a second (180,000 records)', () => {
    const began = 1_000_000;
    const many = Array.from({ length: 180_000 }, (_, i) => sent(began + i * (600_000 / 180_000), 10));
    const kill = fault('kill-instance', began + 48_000, began + 53_000, began + 56_000);
    const recorded: Recorded = { began, runMs: 600_000, sent: many, faults: [kill], imports: [], rss: [], warmMs: 0 };
    expect(phases(recorded).at(-1)?.to).toBeCloseTo(600_000, -2);
    const setting = {
      minutes: 10,
      packages: 120,
      measured: { clients: 8, seconds: 8, perSecond: 375 },
      rate: 300,
      loadBefore: [1, 1, 1],
      settings: {},
    };
    expect(report(recorded, setting, checks(recorded))).toContain('| **all** |');
  });

  it('judges p99 outside the windows, success over all requests, and no mixed page', () => {
    const requests = [
      ...Array.from({ length: 2000 }, (_, i) => sent(began + i * 25, 20)),
      sent(began + 12_000, 3000), // slow inside the window: not judged for p99
      sent(began + 12_500, 100, false), // one failure in 2,002: 99.95%
    ];
    const recorded: Recorded = {
      began,
      runMs: 50_000,
      sent: requests,
      faults: [kill],
      imports: [],
      rss: [],
      warmMs: 0,
    };
    const [success, p99, , mixed] = checks(recorded);
    expect(success?.pass).toBe(true);
    expect(p99?.pass).toBe(true);
    expect(mixed?.pass).toBe(true);
    const mixing = { ...recorded, sent: [...requests, sent(began + 100, 20, false, { mixed: true })] };
    expect(checks(mixing)[3]?.pass).toBe(false);
  });

  it('measures RSS drift from 30 s in a short run (reported only), from minute 2 in a long one (judged), not for a killed process', () => {
    expect(driftFromMs(120_000)).toBe(30_000);
    expect(driftFromMs(600_000)).toBe(120_000);
    const rss = [
      ...Array.from({ length: 60 }, (_, i) => ({ t: i * 2000, instance: 0, pid: 1, mb: i < 15 ? 100 : 120 })),
      ...Array.from({ length: 5 }, (_, i) => ({ t: i * 2000, instance: 1, pid: 2, mb: 100 })),
      ...Array.from({ length: 55 }, (_, i) => ({ t: 10_000 + i * 2000, instance: 1, pid: 3, mb: 100 + i })),
    ];
    const recorded: Recorded = { began, runMs: 120_000, sent: [], faults: [], imports: [], rss, warmMs: 0 };
    const [first, killed, restarted] = memory(recorded);
    expect(first).toMatchObject({ pid: 1, fromMs: 30_000, fromMb: 120, lastMb: 120, drift: 0 });
    expect(killed).toMatchObject({ pid: 2, killed: true });
    // Started 10 s in: judged from 40 s in (30 s after its start), and it grows.
    expect(restarted?.fromMs).toBe(40_000);
    expect(restarted?.drift).toBeGreaterThan(0.1);
    // Reported but not judged in a run under 4 minutes; judged (and failed) in a longer one.
    expect(checks(recorded)[2]).toMatchObject({ pass: true, detail: expect.stringContaining('not judged') });
    const long = { ...recorded, runMs: 240_000, rss: rss.map((sample) => ({ ...sample, t: sample.t * 2 })) };
    expect(checks(long)[2]?.pass).toBe(false);
    // The first ones up 15 s before the load: the one started again is judged at the same age, 55 s in.
    expect(memory({ ...recorded, warmMs: 15_000 })[2]?.fromMs).toBe(55_000);
    expect(memory({ ...recorded, warmMs: 15_000 })[0]?.fromMs).toBe(30_000);
  });
});
