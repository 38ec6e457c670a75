// The fleet started as real processes on loopback, shared by the fleet test and the fleet soak (bench/soak-fleet.ts):
// a private PostgreSQL primary and streaming standby, PgBouncer in transaction mode in front of each, a private
// Redis (optionally reached through a TCP proxy of ours, which can be switched to black-hole it), the gateway
// instances (the compiled server, started at once) and HAProxy running deploy/haproxy.cfg. Every part is put on
// the caller's StopList as it starts, so that a start that fails half-way, or a run interrupted, stops what was
// started.
import { fleetToolsInstalled, type Process, startHaproxy, startRedis } from '../helpers/fleet.js';
import { type Bouncer, pgbouncerInstalled, startPgBouncer } from '../helpers/pgbouncer.js';
import type { StopList } from '../helpers/processes.js';
import { type Replication, replicationInstalled, startReplication } from '../helpers/replication.js';
import { type ServerProcess, startServer } from '../helpers/server-process.js';
import { startTcpProxy, type TcpProxy } from '../helpers/tcp-proxy.js';
import { GATEWAYS, gatewayEnvironment } from './topology.js';

export const fleetInstalled = () => replicationInstalled() && pgbouncerInstalled() && fleetToolsInstalled();

export interface FleetOptions {
  /** Demo packages the first instance seeds. */
  packages: number;
  /** Redis through a TCP proxy (test/helpers/tcp-proxy.ts), whose mode the caller switches. */
  redisProxy?: boolean;
  /** More settings for every instance. */
  env?: Record<string, string>;
}

export interface Fleet {
  replication: Replication;
  /** The primary's PgBouncer, then the standby's. */
  bouncers: [Bouncer, Bouncer];
  redis: Process;
  redisProxy: TcpProxy | undefined;
  /** The instances as they run now (restartGateway replaces one). */
  gateways: ServerProcess[];
  haproxy: Process & { output(): string };
  /** The balancer's address. */
  url: string;
  /** Starts instance `index` again on its own port (HAProxy knows it there), as a supervisor would. */
  restartGateway(index: number): Promise<ServerProcess>;
  /** Starts Redis again on its port, once stopped. */
  restartRedis(): Promise<void>;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export async function startFleet(options: FleetOptions, stops: StopList): Promise<Fleet> {
  const replication = await startReplication();
  stops.push(() => replication.stop());
  const bouncers: Bouncer[] = [];
  for (const server of [replication.primary, replication.standby]) {
    const bouncer = await startPgBouncer({ host: '127.0.0.1', port: server.port }, 4);
    stops.push(() => bouncer.stop());
    bouncers.push(bouncer);
  }
  let redis = await startRedis();
  stops.push(() => redis.stop());
  const redisProxy = options.redisProxy ? await startTcpProxy({ host: '127.0.0.1', port: redis.port }) : undefined;
  if (redisProxy) stops.push(() => redisProxy.close());
  const env = {
    ...gatewayEnvironment({
      pooledPrimary: bouncers[0]?.url('postgres') as string,
      pooledReplica: bouncers[1]?.url('postgres') as string,
      directPrimary: replication.primary.url('postgres'),
      redis: `redis://127.0.0.1:${redisProxy?.port ?? redis.port}`,
      publicUrl: 'http://listing.example',
    }),
    REPLICA_MAX_LAG: '2',
    SEED_PACKAGES: String(options.packages),
    RATE_LIMIT: '0',
    SHUTDOWN_TIMEOUT: '5',
    ...options.env,
  };
  const gateways: ServerProcess[] = [];
  stops.push(async () => {
    for (const gateway of gateways) await gateway.stop('SIGKILL');
  });
  // Both at once: one migrates and seeds under the start-up lock, the other waits for it.
  gateways.push(...(await Promise.all(Array.from({ length: GATEWAYS }, () => startServer(env)))));
  const haproxy = await startHaproxy(gateways.map((g) => new URL(g.url).host) as [string, string]);
  stops.push(() => haproxy.stop());
  const started = Date.now();
  while (!(await replicaServingOnEvery(gateways)) || !(await bothUpBehind(haproxy))) {
    if (Date.now() - started > 30_000) throw new Error(`the fleet was not up within 30 s: ${haproxy.output()}`);
    await sleep(200);
  }
  return {
    replication,
    bouncers: bouncers as [Bouncer, Bouncer],
    get redis() {
      return redis;
    },
    redisProxy,
    gateways,
    haproxy,
    url: `http://127.0.0.1:${haproxy.port}`,
    async restartGateway(index) {
      const port = new URL((gateways[index] as ServerProcess).url).port;
      const gateway = await startServer({ ...env, PORT: port });
      gateways[index] = gateway;
      return gateway;
    },
    async restartRedis() {
      redis = await startRedis(redis.port);
    },
  };
}

export interface DatabaseHealth {
  role: string;
  reachable: boolean;
  serving: boolean;
  lagSeconds?: number;
}

export interface Health {
  status: string;
  redis?: string;
  databases?: DatabaseHealth[];
}

/** An instance's /healthz, on its own address. */
export async function health(gateway: ServerProcess): Promise<Health> {
  const answer = await fetch(`${gateway.url}/healthz`, { signal: AbortSignal.timeout(2000) });
  return (await answer.json()) as Health;
}

export async function databases(gateway: ServerProcess): Promise<DatabaseHealth[]> {
  return (await health(gateway)).databases ?? [];
}

export async function replicaServingOnEvery(fleet: ServerProcess[]): Promise<boolean> {
  for (const gateway of fleet) {
    const replica = (await databases(gateway).catch(() => []))[1];
    if (!replica?.serving) return false;
  }
  return true;
}

/** Whether HAProxy sends requests to both instances: two answers in a row from different ones. */
export async function bothUpBehind(balancer: Process): Promise<boolean> {
  const servedBy = new Set<string | null>();
  for (let i = 0; i < 4; i++) {
    // /livez: /healthz is not served on the public frontend (HAProxy checks it on each instance).
    const answer = await fetch(`http://127.0.0.1:${balancer.port}/livez`).catch(() => undefined);
    if (answer?.status !== 200) return false;
    servedBy.add(answer.headers.get('x-served-by'));
  }
  return servedBy.size === 2;
}

/** Every listed package as the v2 door shows it, page by page. */
export async function allRecords(gateway: ServerProcess): Promise<Record<string, unknown>[]> {
  const records: Record<string, unknown>[] = [];
  let next: string | null = `${gateway.url}/v2/local-package-list/?limit=100&seed=1`;
  while (next) {
    const page = (await (await fetch(next)).json()) as { next: string | null; results: Record<string, unknown>[] };
    records.push(...page.results);
    // The links name the public address (PUBLIC_URL); the same path at this instance.
    next = page.next && `${gateway.url}${new URL(page.next).pathname}${new URL(page.next).search}`;
  }
  return records;
}
