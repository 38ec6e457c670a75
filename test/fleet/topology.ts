// The fleet's shape, shared by the fleet test (which runs it) and the deployment check (which holds deploy/ to
// it): how many instances stand behind the balancer, and how each is told where its databases and Redis are.

/** Gateway instances behind HAProxy (deploy/haproxy.cfg names one server line each). */
export const GATEWAYS = 2;

export interface FleetAddresses {
  /** The primary through PgBouncer. */
  pooledPrimary: string;
  /** The standby through PgBouncer. */
  pooledReplica: string;
  /** The primary itself: migrations and the start-up lock. */
  directPrimary: string;
  redis: string;
  /** The balancer's address, which every instance's v2 links name. */
  publicUrl: string;
}

/** What every instance of the fleet is configured with, whatever runs it. */
export function gatewayEnvironment(at: FleetAddresses): Record<string, string> {
  return {
    DATABASE_URL: at.pooledPrimary,
    DATABASE_REPLICA_URLS: at.pooledReplica,
    DATABASE_DIRECT_URL: at.directPrimary,
    DATABASE_POOLER: 'transaction',
    REDIS_URL: at.redis,
    PUBLIC_URL: at.publicUrl,
  };
}
