// The fleet of the edge differential test (differential.test.ts): Varnish on deploy/varnish/default.vcl in front
// of two compiled gateway instances on one PostgreSQL database, sharing a private Redis, each purging Varnish
// (PURGE_URLS) when it sees a new listing version. Varnish reaches each instance through a link the test can slow
// down (slow-link.ts); the test's own requests and the purges do not take it. Both instances build their v2 links on Varnish's address
// (PUBLIC_URL), so an answer reads the same whichever instance made it, and both take the test's API key with the
// private scope. Everything started is stopped again in reverse order, even after a start that fails half-way.
import { createPostgresDatabaseUrl } from '../helpers/database.js';
import { startRedis } from '../helpers/fleet.js';
import { PRIVATE_KEY, TEST_KEYS } from '../helpers/graphql.js';
import { freePort, StopList } from '../helpers/processes.js';
import { type ServerProcess, startServer } from '../helpers/server-process.js';
import { startVarnish } from '../helpers/varnish.js';
import { type SlowLink, startSlowLink } from './slow-link.js';

export interface EdgeFleet {
  /** Varnish. */
  edge: string;
  /** The two instances, each asked directly. */
  origins: [string, string];
  gateways: ServerProcess[];
  /** The links from Varnish to each instance. */
  links: SlowLink[];
  databaseUrl: string;
  /** The key with the private scope, for `Authorization: Bearer`. */
  privateKey: string;
  varnishOutput(): string;
  stop(): Promise<void>;
}

/**
 * The settings both instances share; `settings` adds to them (SEED_POOL, REQUEST_TIMEOUT, ...). To hold another
 * build to the same property: `root`, a copy of the project to run the instances from (its dist/ beside
 * node_modules/), and `vclPath`, another VCL than deploy/varnish/default.vcl.
 */
export async function startEdgeFleet(
  settings: Record<string, string>,
  other: { root?: string; vclPath?: string } = {},
): Promise<EdgeFleet> {
  const stops = new StopList();
  try {
    const database = await createPostgresDatabaseUrl();
    stops.push(database.drop);
    const redis = await startRedis();
    stops.push(redis.stop);
    const [portA, portB, edgePort] = [await freePort(), await freePort(), await freePort()];
    const edge = `http://127.0.0.1:${edgePort}`;
    const [key] = TEST_KEYS;
    const env = {
      DATABASE_URL: database.url,
      REDIS_URL: `redis://127.0.0.1:${redis.port}`,
      PURGE_URLS: `${edge}/.xkey-purge`,
      PUBLIC_URL: edge,
      API_KEYS: `${key?.name}:private:${key?.hash.toString('hex')}`,
      RATE_LIMIT: '0',
      APQ_REGISTRATIONS: '0',
      ...settings,
    };
    const gateways = await Promise.all([
      startServer({ ...env, PORT: String(portA) }, other.root),
      startServer({ ...env, PORT: String(portB) }, other.root),
    ]);
    for (const gateway of gateways) stops.push(() => gateway.stop());
    const links = [await startSlowLink({ host: '127.0.0.1', port: portA })];
    links.push(await startSlowLink({ host: '127.0.0.1', port: portB }));
    for (const link of links) stops.push(link.close);
    const varnish = await startVarnish([links[0]?.port as number, links[1]?.port as number], edgePort, other.vclPath);
    stops.push(varnish.stop);
    return {
      edge,
      origins: [gateways[0]?.url as string, gateways[1]?.url as string],
      gateways,
      links,
      databaseUrl: database.url,
      privateKey: PRIVATE_KEY,
      varnishOutput: varnish.output,
      stop: () => stops.stopAll(),
    };
  } catch (error) {
    await stops.stopAll();
    throw error;
  }
}
