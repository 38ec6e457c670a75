// The fleet soak's faults, each made on the running fleet while the load goes on, then lifted, and the time it took
// the fleet to be whole again measured: every instance ready with both databases serving and Redis answering,
// and HAProxy sending requests to both. Imports run the command-line tool (node dist/cli/import.js) against the
// primary with a small dump, alternating between two versions of the listing.
import { setPriority } from 'node:os';
import { bothUpBehind, type Fleet, health } from '../../test/fleet/fleet-up.js';
import { spawnScript } from '../../test/helpers/server-process.js';
import type { FaultKind, Planned } from './schedule.js';

export interface ImportRun {
  /** Milliseconds after the load began. */
  at: number;
  ms: number;
  dump: string;
  code: number | null;
  /** The summary or the error, one line. */
  said: string;
  /** Whether it was meant to fail (the primary stopped). */
  expectFailure: boolean;
}

export interface FaultRun {
  kind: FaultKind;
  /** When the fault was made and lifted, and when the fleet was whole again (Date.now()); recovered undefined: never. */
  began: number;
  lifted: number;
  recovered: number | undefined;
  /** The instance killed (HAProxy's name for it), for the requests in flight on it. */
  victim?: string;
  /** What went against expectations, each in one line. */
  problems: string[];
}

export interface Dumps {
  /** The two versions of the listing, as files: the one imported next comes first. */
  files: [string, string];
  /** The title mark of the second version. */
  mark: string;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
/** A fault the fleet does not get over within this is a failure of the run. */
export const RECOVERY_BOUND_MS = 60_000;
/** The niceness imports run at. */
export const IMPORT_NICENESS = 10;
/** What an import waits for the primary (DATABASE_WAIT, seconds) when it is started while the primary is away. */
export const IMPORT_WAIT_SECONDS = 10;

/** Every instance ready, its databases reachable and serving, Redis ok; HAProxy sending to both. */
export async function whole(fleet: Fleet): Promise<boolean> {
  for (const gateway of fleet.gateways) {
    const said = await health(gateway).catch(() => undefined);
    const [primary, replica] = said?.databases ?? [];
    if (said?.status !== 'ok' || said.redis !== 'ok' || !primary?.reachable || !replica?.serving) return false;
  }
  return bothUpBehind(fleet.haproxy);
}

async function recovered(fleet: Fleet): Promise<number | undefined> {
  const until = Date.now() + RECOVERY_BOUND_MS;
  while (Date.now() < until) {
    if (await whole(fleet)) return Date.now();
    await sleep(250);
  }
  return undefined;
}

export class Faults {
  readonly imports: ImportRun[] = [];
  private next = 0;

  constructor(
    private readonly fleet: Fleet,
    private readonly dumps: Dumps,
    private readonly loadBegan: number,
  ) {}

  /** Runs the import tool on the next dump (or `file`); the dumps alternate only when an import succeeds. */
  async import(expectFailure = false, env: Record<string, string> = {}): Promise<ImportRun> {
    const dump = this.dumps.files[this.next % 2] as string;
    const at = Date.now();
    const url = this.fleet.replication.primary.url('postgres');
    const running = spawnScript('src/cli/import.ts', { DATABASE_URL: url, ...env }, [dump]);
    // A batch job at batch priority, as an import beside serving instances on one host should be run (nice 10):
    // the fleet's answers come first, the import takes what is left.
    if (running.child.pid !== undefined) setPriority(running.child.pid, IMPORT_NICENESS);
    const result = await running.exited;
    const lines = `${result.stderr}\n${result.stdout}`.split('\n').filter((line) => line.trim() !== '');
    // Its summary, or the error it ended on (after the lines it printed while waiting).
    const said = lines.find((line) => line.startsWith(result.code === 0 ? 'summary:' : 'error:')) ?? lines[0] ?? '';
    const run = { at: at - this.loadBegan, ms: Date.now() - at, dump, code: result.code, said, expectFailure };
    if (result.code === 0) this.next++;
    this.imports.push(run);
    return run;
  }

  async run(planned: Planned): Promise<FaultRun> {
    const fleet = this.fleet;
    const problems: string[] = [];
    const began = Date.now();
    let victim: string | undefined;
    switch (planned.kind) {
      case 'kill-instance': {
        // The second instance: HAProxy names it gateway-2.
        victim = 'gateway-2';
        await fleet.gateways[1]?.stop('SIGKILL');
        await sleep(planned.holdMs);
        await fleet.restartGateway(1);
        break;
      }
      case 'primary-stop': {
        await fleet.replication.primary.stop('fast');
        await sleep(3000);
        // An import while the primary is away: refused, in a line that says the database cannot be reached.
        const refused = await this.import(true, { DATABASE_WAIT: String(IMPORT_WAIT_SECONDS) });
        const named = /cannot reach PostgreSQL at 127\.0\.0\.1:\d+\/postgres/.test(refused.said);
        if (refused.code === 0 || !named) {
          problems.push(`an import while the primary was away: exit ${refused.code}, "${refused.said}"`);
        }
        if (refused.ms > (IMPORT_WAIT_SECONDS + 10) * 1000) {
          problems.push(`an import while the primary was away took ${refused.ms} ms to give up`);
        }
        await sleep(Math.max(0, began + planned.holdMs - Date.now()));
        await fleet.replication.primary.start();
        break;
      }
      case 'standby-stop':
        await fleet.replication.standby.stop('immediate');
        await sleep(planned.holdMs);
        await fleet.replication.standby.start();
        break;
      case 'pgbouncer-restart':
        // The primary's, then the standby's once the fleet is over the first.
        await fleet.bouncers[0].restart();
        if ((await recovered(fleet)) === undefined) problems.push("not whole after the primary's PgBouncer restart");
        await fleet.bouncers[1].restart();
        break;
      case 'redis-stop':
        await fleet.redis.stop();
        await sleep(planned.holdMs);
        await fleet.restartRedis();
        break;
      case 'redis-blackhole':
        fleet.redisProxy?.setMode('blackhole');
        await sleep(planned.holdMs);
        fleet.redisProxy?.setMode('pass');
        break;
      case 'import': {
        const run = await this.import();
        if (run.code !== 0) problems.push(`an import failed: exit ${run.code}, "${run.said}"`);
        break;
      }
    }
    const lifted = Date.now();
    const back = await recovered(fleet);
    if (back === undefined) problems.push(`the fleet was not whole within ${RECOVERY_BOUND_MS / 1000} s`);
    if (planned.kind === 'primary-stop') {
      // The same import once the primary is back: it goes through.
      const run = await this.import();
      if (run.code !== 0) problems.push(`the import after the primary came back: exit ${run.code}, "${run.said}"`);
    }
    return { kind: planned.kind, began, lifted, recovered: back, ...(victim && { victim }), problems };
  }
}
