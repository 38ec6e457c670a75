// Production is closed unless a setting opens it, development is as open as before, and a start names what it
// refuses and the variables that look like a misspelled setting (src/start-checks.ts). Each deployment under
// deploy/ passes what production asks, as the image runs it (NODE_ENV=production).
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parse, parseAllDocuments } from 'yaml';
import { ConfigError, loadConfig, PROMETHEUS_EXPORTER_PORT } from '../src/config.js';
import { stopsWithParent } from '../src/lifecycle.js';
import { closedByDefault, likelyTypos, refuseClosedByDefault } from '../src/start-checks.js';

const V2_KEYS = `legacy:${'ab'.repeat(32)}`;
const PRODUCTION = { NODE_ENV: 'production' };
/** A production instance that opens nothing by default: PostgreSQL, named origins, keys on the v2 path. */
const CLOSED = {
  ...PRODUCTION,
  DATABASE_URL: 'postgresql://listing@db:5432/listing',
  CORS_ORIGINS: 'https://shop.example.com',
  V2_API_KEYS: V2_KEYS,
};

describe('production and development defaults', () => {
  it('closes introspection, CORS, /metrics on the public port, the v2 personal data and demo data in production', () => {
    expect(loadConfig(PRODUCTION)).toMatchObject({
      production: true,
      introspection: false,
      corsOrigins: [],
      metricsPort: PROMETHEUS_EXPORTER_PORT,
      demo: false,
      v2Public: false,
    });
    expect(PROMETHEUS_EXPORTER_PORT).toBe(9464);
  });

  it('keeps development as open as it was: a clone serves the demo, introspection, any site and /metrics on one port', () => {
    for (const env of [{}, { NODE_ENV: 'development' }, { NODE_ENV: 'test' }]) {
      expect(loadConfig(env)).toMatchObject({
        production: false,
        introspection: true,
        corsOrigins: ['*'],
        metricsPort: 'public',
        demo: true,
        v2Public: true,
        seedPackages: 2000,
        database: { kind: 'pglite' },
      });
      expect(closedByDefault(loadConfig(env))).toEqual([]);
    }
  });

  it('opens each one by its own setting, in production too', () => {
    const open = loadConfig({
      ...CLOSED,
      GRAPHQL_INTROSPECTION: 'true',
      CORS_ORIGINS: '*',
      METRICS_PORT: 'public',
      DEMO: 'true',
      V2_PUBLIC: 'true',
    });
    expect(open).toMatchObject({ introspection: true, corsOrigins: ['*'], metricsPort: 'public', demo: true });
    expect(loadConfig({ ...CLOSED, METRICS_PORT: 'off' }).metricsPort).toBe('off');
    expect(loadConfig({ ...CLOSED, METRICS_PORT: '0' }).metricsPort).toBe(0);
    // And closes them in development.
    expect(loadConfig({ GRAPHQL_INTROSPECTION: 'false', METRICS_PORT: '9100' })).toMatchObject({
      introspection: false,
      metricsPort: 9100,
    });
  });

  it('refuses a METRICS_PORT that is no port, or the public one', () => {
    expect(() => loadConfig({ METRICS_PORT: 'tcp://10.0.0.5:9464' })).toThrow(
      /^invalid configuration: METRICS_PORT="tcp:\/\/10.0.0.5:9464" must be a whole number from 0 to 65535, `public` or `off`$/,
    );
    expect(() => loadConfig({ METRICS_PORT: '70000' })).toThrow(/METRICS_PORT="70000" must be a whole number/);
    expect(() => loadConfig({ PORT: '8080', METRICS_PORT: '8080' })).toThrow(
      /^invalid configuration: METRICS_PORT="8080" must not be PORT \(METRICS_PORT=public serves \/metrics on the public port\)$/,
    );
  });
});

describe('what a start refuses', () => {
  const refusal = (env: Record<string, string>) => {
    try {
      refuseClosedByDefault(loadConfig(env));
    } catch (error) {
      expect(error).toBeInstanceOf(ConfigError);
      return (error as Error).message;
    }
    return null;
  };

  it('refuses a production start that opens nothing, in one line naming each missing setting', () => {
    const line = refusal(PRODUCTION) as string;
    expect(line).toMatch(/^refusing to start in production \(NODE_ENV=production\): DATABASE_URL is not set/);
    expect(line).not.toContain('\n');
    expect(line).toContain('DEMO=true');
    expect(line).toContain('CORS_ORIGINS is not set');
    expect(line).toContain('V2_API_KEYS is not set');
    expect(line).toContain('V2_PUBLIC=true');
    expect(line).toContain('photographer_email');
  });

  it('refuses demo packages on PostgreSQL in production unless DEMO=true, and nothing once each is named', () => {
    expect(refusal({ ...CLOSED, SEED_PACKAGES: '2000' })).toBe(
      'refusing to start in production (NODE_ENV=production): SEED_PACKAGES=2000 would load invented demo packages (DEMO=true if this instance is a demo; npm run import loads the listing)',
    );
    expect(refusal({ ...CLOSED, SEED_PACKAGES: '2000', DEMO: 'true' })).toBeNull();
    expect(refusal(CLOSED)).toBeNull();
    expect(refusal({ ...PRODUCTION, DEMO: 'true', CORS_ORIGINS: '*', V2_PUBLIC: 'true' })).toBeNull();
  });

  it('holds development to the same rules once a setting closes one', () => {
    expect(refusal({ DEMO: 'false', V2_PUBLIC: 'false' })).toMatch(
      /^refusing to start: DATABASE_URL is not set.*; V2_API_KEYS is not set/,
    );
  });
});

describe('variables that look like a misspelled setting', () => {
  it('names a misspelling, a swap, a missing or extra letter, and a setting with words around it', () => {
    expect(
      likelyTypos({
        DATABSE_URL: 'postgresql://listing@db/listing',
        PROT: '4000',
        CORS_ORIGIN: 'https://shop.example.com',
        GRAPHQL_INSTROSPECTION: 'false',
        LISTING_DATABASE_URL: 'postgresql://listing@db/listing',
        REQUEST_TIMEOUT_MS: '5000',
        DATABASE_URL_FILE: '/run/secrets/url',
      }),
    ).toEqual([
      'DATABSE_URL is not a setting; did you mean DATABASE_URL?',
      'PROT is not a setting; did you mean PORT?',
      'CORS_ORIGIN is not a setting; did you mean CORS_ORIGINS?',
      'GRAPHQL_INSTROSPECTION is not a setting; did you mean GRAPHQL_INTROSPECTION?',
      'LISTING_DATABASE_URL is not a setting; did you mean DATABASE_URL?',
      'REQUEST_TIMEOUT_MS is not a setting; did you mean REQUEST_TIMEOUT?',
      'DATABASE_URL_FILE is not a setting; did you mean DATABASE_URL?',
    ]);
  });

  it("leaves the settings, the system's variables, other programs' and the project's tools' alone", () => {
    const env = {
      DATABASE_URL: 'postgresql://listing@db/listing',
      PORT: '4000',
      PATH: '/usr/bin',
      HOME: '/home/node',
      HOSTNAME: 'gateway-1',
      PWD: '/app',
      TEMP: '/tmp',
      TERM: 'xterm',
      LANG: 'C.UTF-8',
      NODE_ENV: 'production',
      NODE_OPTIONS: '--max-old-space-size-percentage=40',
      NODE_EXTRA_CA_CERTS: '/etc/ssl/ca.pem',
      npm_lifecycle_event: 'start',
      npm_config_cache: '/root/.npm',
      INIT_CWD: '/app',
      PGHOST: 'db',
      PGPORT: '5432',
      REDIS_HOST: 'redis',
      REDIS_PASSWORD: 'secret',
      JAVA_HOME: '/usr/lib/jvm',
      OTEL_LOG_LEVEL: 'debug',
      OTEL_EXPORTER_OTLP_HEADERS: 'x=1',
      TEST_DATABASE_URL: 'postgresql://postgres@127.0.0.1:5432/test',
      TEST_REDIS_URL: 'redis://127.0.0.1:6379',
      BENCH_DATABASE_URL: 'postgresql://postgres@127.0.0.1:5432/bench',
      // What Kubernetes sets for the Services of the namespace, one named "metrics" among them.
      KUBERNETES_SERVICE_HOST: '10.0.0.1',
      REDIS_SERVICE_HOST: '10.0.0.11',
      REDIS_PORT: 'tcp://10.0.0.11:6379',
      REDIS_PORT_6379_TCP_ADDR: '10.0.0.11',
      METRICS_SERVICE_PORT: '9464',
      PACKAGE_LISTING_GATEWAY_PORT: 'tcp://10.0.0.12:80',
      lowercase_database_url: 'x',
    };
    expect(likelyTypos(env)).toEqual([]);
  });
});

describe('the parent watch', () => {
  it('is on where npm started the process, off otherwise, and STOP_WITH_PARENT decides either way', () => {
    expect(stopsWithParent({})).toBe(false);
    expect(stopsWithParent({ npm_lifecycle_event: 'start', npm_execpath: '/usr/lib/npm-cli.js' })).toBe(true);
    expect(stopsWithParent({ npm_execpath: '/usr/lib/npm-cli.js' })).toBe(true);
    expect(stopsWithParent({ npm_lifecycle_event: 'start', STOP_WITH_PARENT: 'false' })).toBe(false);
    expect(stopsWithParent({ STOP_WITH_PARENT: 'true' })).toBe(true);
    expect(loadConfig({ npm_lifecycle_event: 'start' }).stopWithParent).toBe(true);
    expect(loadConfig({ npm_lifecycle_event: 'start', STOP_WITH_PARENT: 'false' }).stopWithParent).toBe(false);
    expect(loadConfig({}).stopWithParent).toBe(false);
    expect(() => loadConfig({ STOP_WITH_PARENT: 'yes' })).toThrow(/STOP_WITH_PARENT="yes"/);
  });
});

describe('the deployments under deploy/, as the image runs them (NODE_ENV=production)', () => {
  const read = (path: string) => readFileSync(new URL(`../${path}`, import.meta.url), 'utf8');
  const envFile = (text: string) =>
    Object.fromEntries(
      text
        .split('\n')
        .filter((line) => /^[A-Z_0-9]+=/.test(line))
        .map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)]),
    );

  it('is production in the image', () => {
    expect(read('Dockerfile')).toMatch(/^ENV NODE_ENV=production /m);
  });

  it('the compose fleet starts: it names its origins, says its v2 path and demo data are public on purpose', () => {
    const compose = parse(read('deploy/compose.yaml'), { merge: true }) as {
      services: Record<string, { environment?: Record<string, string> }>;
    };
    const secrets = envFile(read('deploy/gateway.env.example'));
    for (const [name, service] of Object.entries(compose.services)) {
      if (!name.startsWith('gateway-')) continue;
      const config = loadConfig({ ...PRODUCTION, ...secrets, ...service.environment });
      expect(closedByDefault(config), name).toEqual([]);
      expect(config.metricsPort, name).toBe(PROMETHEUS_EXPORTER_PORT);
    }
  });

  it('the Kubernetes manifest starts closed: keys on the v2 path, no demo data, /metrics on its own port', () => {
    const docs = parseAllDocuments(read('deploy/kubernetes/gateway.yaml')).map((doc) => doc.toJS());
    const byKind = (kind: string) => docs.find((doc) => doc.kind === kind);
    const [secret] = parseAllDocuments(read('deploy/kubernetes/secret.example.yaml')).map((doc) => doc.toJS());
    const config = loadConfig({ ...PRODUCTION, ...byKind('ConfigMap').data, ...secret.stringData });
    expect(closedByDefault(config)).toEqual([]);
    expect(config).toMatchObject({ v2Public: false, demo: false, seedPackages: 0, introspection: false });
    expect(config.v2ApiKeys).toBeDefined();
    const pod = byKind('Deployment').spec.template;
    const ports = pod.spec.containers[0].ports as { name: string; containerPort: number }[];
    expect(ports.find((port) => port.name === 'metrics')?.containerPort).toBe(config.metricsPort);
    // Service links would put METRICS_PORT=tcp://... in the pod for a Service named "metrics".
    expect(pod.spec.enableServiceLinks).toBe(false);
    // Prometheus scrapes that port of each pod, as the job the rules select on (the Service's name).
    const prometheus = parse(read('deploy/prometheus/prometheus.yml')) as {
      scrape_configs: { job_name: string; relabel_configs: { regex: string; action: string }[] }[];
    };
    const [scrape] = prometheus.scrape_configs;
    expect(scrape?.job_name).toBe(byKind('Service').metadata.name);
    expect(scrape?.relabel_configs).toContainEqual(
      expect.objectContaining({ action: 'keep', regex: `${pod.metadata.labels.app};metrics` }),
    );
  });
});
