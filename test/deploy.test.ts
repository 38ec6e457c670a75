// deploy/ held to the code, since no container engine runs here: every variable the compose file and the
// Kubernetes manifests set is one the configuration knows and accepts; ports, probes and the shutdown budget
// match the server's; the topology is the one the fleet test runs (test/fleet/).
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parse, parseAllDocuments } from 'yaml';
import { environment, loadConfig } from '../src/config.js';
import { HEALTH_TIMEOUT_MS } from '../src/http/health.js';
import { HEALTH_PATH, LIVE_PATH, READY_PATH } from '../src/http/routes.js';
import { GATEWAYS, gatewayEnvironment } from './fleet/topology.js';

const read = (path: string) => readFileSync(new URL(`../${path}`, import.meta.url), 'utf8');
const KNOWN = new Set(Object.keys(environment.shape));

/** KEY=value lines, comments and blank lines left out. */
function envFile(text: string): Record<string, string> {
  const pairs = text.split('\n').filter((line) => /^[A-Z_]+=/.test(line));
  return Object.fromEntries(pairs.map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)]));
}

type Service = { image?: string; environment?: Record<string, string>; env_file?: string; entrypoint?: string[] };
const compose = parse(read('deploy/compose.yaml'), { merge: true }) as { services: Record<string, Service> };
const gatewayServices = Object.keys(compose.services).filter((name) => name.startsWith('gateway-'));
/** An instance's variables: its environment and the example of its secret env file (secrets/X -> X.example). */
function gatewaySettings(name: string): Record<string, string> {
  const service = compose.services[name] as Service;
  const secrets = envFile(read(`deploy/${(service.env_file as string).replace('./secrets/', '')}.example`));
  return { ...secrets, ...service.environment };
}

const manifests = parseAllDocuments(read('deploy/kubernetes/gateway.yaml')).map((doc) => doc.toJS());
const byKind = (kind: string) => manifests.find((m) => m.kind === kind);
const deployment = byKind('Deployment');
const container = deployment.spec.template.spec.containers[0];
// The Secret is an example beside the manifest (the manifest holds none, so applying it never replaces yours).
const exampleSecret = parseAllDocuments(read('deploy/kubernetes/secret.example.yaml')).map((doc) => doc.toJS())[0];
const kubernetesSettings = { ...byKind('ConfigMap').data, ...exampleSecret.stringData };

const haproxy = read('deploy/haproxy.cfg');
const version = (JSON.parse(read('package.json')) as { version: string }).version;
const seconds = (ms: number) => ms / 1000;

describe('deploy/ against the code', () => {
  it('sets only variables the configuration knows, with values it accepts', () => {
    const sets = [...gatewayServices.map(gatewaySettings), kubernetesSettings];
    for (const settings of sets) {
      expect(Object.keys(settings).filter((name) => !KNOWN.has(name))).toEqual([]);
      expect(() => loadConfig(settings)).not.toThrow();
    }
  });

  it('configures every instance as the fleet test does: pooled primary and replica, direct primary, Redis, one public URL', () => {
    const topology = Object.keys(gatewayEnvironment({} as never)).sort();
    for (const settings of [...gatewayServices.map(gatewaySettings), kubernetesSettings]) {
      expect(
        Object.keys(settings)
          .filter((name) => topology.includes(name))
          .sort(),
      ).toEqual(topology);
      expect(settings.DATABASE_POOLER).toBe('transaction');
      expect(new URL(settings.DATABASE_DIRECT_URL).port).toBe('5432');
      expect(new URL(settings.DATABASE_URL).port).toBe('6432');
    }
    const publicUrls = new Set(gatewayServices.map((name) => gatewaySettings(name).PUBLIC_URL));
    expect(publicUrls.size).toBe(1);
  });

  it('has the fleet test topology: primary, streaming standby, PgBouncer in transaction mode, Redis, HAProxy', () => {
    expect(gatewayServices).toHaveLength(GATEWAYS);
    expect(Object.keys(compose.services).sort()).toEqual(
      ['haproxy', 'pgbouncer', 'primary', 'redis', 'replica', ...gatewayServices].sort(),
    );
    expect(compose.services.replica?.entrypoint?.join(' ')).toMatch(/pg_basebackup -h primary .* -R /);
    const pgbouncer = read('deploy/pgbouncer.ini');
    expect(pgbouncer).toMatch(/^pool_mode = transaction$/m);
    // The pooler knows every database the instances name.
    const settings = gatewaySettings(gatewayServices[0] as string);
    for (const url of [settings.DATABASE_URL, settings.DATABASE_REPLICA_URLS]) {
      expect(pgbouncer).toMatch(new RegExp(`^${new URL(url as string).pathname.slice(1)} = host=`, 'm'));
    }
    // HAProxy has one server per instance, each given its address by compose.
    const servers = [...haproxy.matchAll(/^\s+server (\S+) "\$\{(\w+)\}" check$/gm)];
    expect(servers).toHaveLength(GATEWAYS);
    const balancer = compose.services.haproxy?.environment ?? {};
    const port = gatewaySettings(gatewayServices[0] as string).PORT;
    expect(servers.map((server) => balancer[server[2] as string])).toEqual(gatewayServices.map((g) => `${g}:${port}`));
  });

  it('checks health where the server answers it, on the port it listens on', () => {
    expect(haproxy).toContain(`uri ${HEALTH_PATH} `);
    // Every pod reads one database: readiness that fails with it would take them all out at once (/readyz).
    expect(container.readinessProbe.httpGet.path).toBe(READY_PATH);
    expect(kubernetesSettings.STALE_IF_ERROR).toBe('300');
    expect(container.livenessProbe.httpGet.path).toBe(LIVE_PATH);
    expect(container.startupProbe.httpGet.path).toBe(LIVE_PATH);
    expect(container.ports[0].containerPort).toBe(Number(kubernetesSettings.PORT));
    expect(read('Dockerfile')).toContain(`EXPOSE ${kubernetesSettings.PORT}`);
    const service = byKind('Service');
    expect(service.spec.ports[0].targetPort).toBe(container.ports[0].name);
  });

  it("waits for an instance's health answer longer than the instance waits for its database", () => {
    // Else a loaded instance, late but well, is taken out by its check timing out (HAProxy's default is `inter`).
    const timeout = /^\s+timeout check (\d+)s$/m.exec(haproxy)?.[1];
    expect(Number(timeout) * 1000).toBeGreaterThan(HEALTH_TIMEOUT_MS);
  });

  it('gives an instance longer to stop than it takes: preStop pause plus SHUTDOWN_TIMEOUT', () => {
    const shutdown = seconds(loadConfig(kubernetesSettings).shutdownTimeoutMs);
    const pause = Number(container.lifecycle.preStop.exec.command[1]);
    expect(pause).toBeGreaterThan(0);
    expect(deployment.spec.template.spec.terminationGracePeriodSeconds).toBeGreaterThan(pause + shutdown);
    for (const name of gatewayServices) {
      const grace = Number.parseInt(
        String((compose.services[name] as { stop_grace_period?: string }).stop_grace_period),
        10,
      );
      expect(grace).toBeGreaterThan(seconds(loadConfig(gatewaySettings(name)).shutdownTimeoutMs));
    }
  });

  it('keeps two instances through a voluntary disruption and scales on CPU', () => {
    expect(byKind('PodDisruptionBudget').spec.minAvailable).toBeGreaterThanOrEqual(1);
    expect(byKind('HorizontalPodAutoscaler').spec.minReplicas).toBeGreaterThanOrEqual(GATEWAYS);
    expect(deployment.spec.strategy.rollingUpdate.maxUnavailable).toBe(0);
    expect(container.resources.limits.memory).toBeDefined();
  });

  it("runs one image, named for the package's version, in the compose fleet and the manifest", () => {
    // Unnamed, compose builds an image per gateway service instead of the one `podman build` made.
    const image = `package-listing-gateway:${version}`;
    for (const name of gatewayServices) expect(compose.services[name]?.image).toBe(image);
    expect(container.image).toBe(image);
  });
});
