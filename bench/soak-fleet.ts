// `npm run soak:fleet`: a chaos soak of the fleet (test/fleet/fleet-up.ts: primary and standby, PgBouncer in
// front of each, Redis through a proxy, two instances of dist/server.js behind HAProxy; run `npm run build`
// first). Measures what the fleet serves with a short closed loop, then sends 80% of it through HAProxy for
// SOAK_MINUTES (default 10) while faults come on a schedule scaled to the run (bench/soak-fleet/schedule.ts): an
// instance killed, the primary stopped 30 s, the standby stopped, both PgBouncers restarted, Redis stopped and then
// black-holed, an import every 2 minutes. Writes bench/soak-fleet.md and prints the verdict; exit 1 when a
// criterion fails (bench/soak-fleet/checks.ts). Bounded: the whole run, set-up included, is stopped past its
// deadline; on any end, Ctrl-C included, every process it started is stopped by PID and its files removed.
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { allRecords, type Fleet, fleetInstalled, startFleet } from '../test/fleet/fleet-up.js';
import { StopList } from '../test/helpers/processes.js';
import { ROOT } from './harness.js';
import { checks, type Recorded, type RssSample, SAMPLE_MS } from './soak-fleet/checks.js';
import { type FaultRun, Faults } from './soak-fleet/faults.js';
import { closedLoop, openLoop } from './soak-fleet/load.js';
import { report } from './soak-fleet/report.js';
import { plan } from './soak-fleet/schedule.js';

const PACKAGES = 120;
const MARK = 'imported ';
const MEASURE = { clients: 8, seconds: 8 };
/**
 * Each instance's memory caches, small enough to fill within the first 30 s of load (most pages asked are new):
 * at their defaults (64 + 32 MB) they fill for minutes, and RSS drift would measure them filling, not a leak.
 */
const CACHES = { RESPONSE_CACHE_BYTES: String(8 * 1024 * 1024), FILTER_CACHE_BYTES: String(4 * 1024 * 1024) };
/** Set-up, measurement, the last fault's recovery and the stop, beyond the run itself. */
const OVERHEAD_MS = 150_000;
const REPORT = join(ROOT, 'bench', 'soak-fleet.md');

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const stops = new StopList();
let ending: Promise<never> | undefined;

/**
 * Stops everything started, then exits. Once: a Ctrl-C reaches this process twice (from the terminal and relayed
 * by tsx), and the second must wait for the stop the first began, not cut it short.
 */
function end(code: number, why?: string): Promise<never> {
  ending ??= (async () => {
    if (why) console.error(`soak:fleet: ${why}`);
    await stops.stopAll();
    process.exit(code);
  })();
  return ending;
}

function minutes(): number {
  const text = process.env.SOAK_MINUTES ?? '';
  if (text === '') return 10;
  const value = Number(text);
  if (!Number.isFinite(value) || value < 1 || value > 240) {
    console.error(`soak:fleet: SOAK_MINUTES must be a number from 1 to 240, got ${JSON.stringify(text)}`);
    process.exit(1);
  }
  return value;
}

function rssMb(pid: number): number | undefined {
  try {
    const kb = /^VmRSS:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
    return kb === undefined ? undefined : Number(kb) / 1024;
  } catch {
    return undefined; // gone (killed by the soak): the next sample finds its successor
  }
}

function sampleRss(fleet: Fleet, began: number, into: RssSample[]) {
  const take = () => {
    for (const [instance, gateway] of fleet.gateways.entries()) {
      const mb = rssMb(gateway.pid);
      if (mb !== undefined) into.push({ t: Date.now() - began, instance, pid: gateway.pid, mb });
    }
  };
  take();
  const timer = setInterval(take, SAMPLE_MS);
  return () => {
    clearInterval(timer);
    take();
  };
}

async function main(): Promise<void> {
  const soakMinutes = minutes();
  const runMs = Math.round(soakMinutes * 60_000);
  if (!fleetInstalled()) await end(1, 'needs postgresql, pgbouncer, haproxy and redis-server (apt-get install)');
  if (!existsSync(join(ROOT, 'dist', 'server.js'))) await end(1, 'run `npm run build` first (dist/server.js)');
  const deadline = setTimeout(
    () => void end(1, `still running ${(runMs + OVERHEAD_MS) / 1000} s after the start: stopped`),
    runMs + OVERHEAD_MS,
  );
  const loadBefore = loadavg();
  const work = mkdtempSync(join(tmpdir(), 'soak-fleet-'));
  stops.push(() => rmSync(work, { recursive: true, force: true }));

  console.log('soak:fleet: starting the fleet');
  const fleet = await startFleet({ packages: PACKAGES, redisProxy: true, env: CACHES }, stops);
  const fleetUp = Date.now();
  const records = await allRecords(fleet.gateways[0] as Fleet['gateways'][number]);
  if (records.length !== PACKAGES) await end(1, `the listing holds ${records.length} packages, not ${PACKAGES}`);
  const files: [string, string] = [join(work, 'listing-marked.json'), join(work, 'listing-first.json')];
  writeFileSync(files[0], JSON.stringify(records.map((r) => ({ ...r, title: `${MARK}${r.title}` }))));
  writeFileSync(files[1], JSON.stringify(records));

  console.log(`soak:fleet: measuring (${MEASURE.clients} clients, ${MEASURE.seconds} s)`);
  await closedLoop(fleet.url, PACKAGES, MARK, MEASURE.clients, 2000); // warm-up
  const measured = await closedLoop(fleet.url, PACKAGES, MARK, MEASURE.clients, MEASURE.seconds * 1000);
  const rate = measured.perSecond * 0.8;
  console.log(
    `soak:fleet: ${measured.perSecond.toFixed(0)} answers/s; ${rate.toFixed(0)} requests/s for ${soakMinutes} min`,
  );

  const began = Date.now();
  const rss: RssSample[] = [];
  const stopSampling = sampleRss(fleet, began, rss);
  const load = openLoop(fleet.url, PACKAGES, MARK, rate);
  stops.push(() => load.stop());
  const faults = new Faults(fleet, { files, mark: MARK }, began);
  const ran: FaultRun[] = [];
  for (const planned of plan(runMs)) {
    await sleep(began + planned.at - Date.now());
    const at = ((Date.now() - began) / 1000).toFixed(1);
    console.log(`soak:fleet: ${at} s: ${planned.kind}`);
    const run = await faults.run(planned);
    ran.push(run);
    for (const problem of run.problems) console.log(`soak:fleet:   ${problem}`);
  }
  await sleep(began + runMs - Date.now());
  const sent = await load.stop();
  stopSampling();
  clearTimeout(deadline);

  const warmMs = began - fleetUp;
  const recorded: Recorded = { began, runMs, sent, faults: ran, imports: faults.imports, rss, warmMs };
  const verdict = checks(recorded);
  const setting = {
    minutes: soakMinutes,
    packages: PACKAGES,
    measured: { ...MEASURE, perSecond: measured.perSecond },
    rate,
    loadBefore,
    settings: CACHES,
  };
  writeFileSync(REPORT, report(recorded, setting, verdict));
  for (const check of verdict) console.log(`${check.pass ? 'PASS' : 'FAIL'}: ${check.name}: ${check.detail}`);
  console.log(`soak:fleet: report written to bench/soak-fleet.md`);
  await end(verdict.every((check) => check.pass) ? 0 : 1);
}

process.on('SIGINT', () => void end(130, 'interrupted: stopping the fleet'));
process.on('SIGTERM', () => void end(143, 'terminated: stopping the fleet'));
await main().catch((error: Error) => end(1, error.stack ?? error.message));
