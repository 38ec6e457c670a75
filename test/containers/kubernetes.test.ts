// deploy/kubernetes/ as far as podman plays it, and all of it against the Kubernetes schemas.
//
// `podman kube play` of deploy/kubernetes/gateway.yaml with the Secret of secret.example.yaml: the ConfigMap and the
// Deployment (one pod; podman plays no replicas, Service, HorizontalPodAutoscaler, PodDisruptionBudget or
// NetworkPolicy, and leaves out topologySpreadConstraints and automountServiceAccountToken, which have no meaning
// without a cluster). podman 4.3 cannot play a Secret: a Secret document in the file, or a podman secret holding
// it, fails with "secret ... is not valid JSON" whatever the encoding. So the example's values are played as a
// ConfigMap (`envFrom` naming it instead): the same variables reach the container. And podman 4.3 publishes a
// containerPort on the host, so a second replica cannot bind it: one replica, no published port. Every other line
// is the file's own. The Secret's addresses (pgbouncer, postgres-primary, redis) are stand-in containers on a
// network of the test's own, with the Secret's own password: PostgreSQL with the two roles of
// deploy/postgres/roles.sql made as compose's primary makes them, PgBouncer with deploy/pgbouncer.ini (its "replica"
// is the primary here) and the serving role in its userlist, and Redis. The pod must come up as the manifest says
// (user 1000, read-only root, no capabilities, no privilege escalation, the runtime's seccomp profile, the memory
// limit) and its probes must answer.
//
// Every document of every manifest in deploy/kubernetes/ is validated against the Kubernetes API's JSON schemas
// (the kubernetes-models package, generated from the Kubernetes OpenAPI document: an ecosystem tool, installed on
// first need by test/helpers/ecosystem.ts).
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseAllDocuments, stringify } from 'yaml';
import { ecosystemTools } from '../helpers/ecosystem.js';
import { inspect, LABEL, note, podman, podmanAsync, ROOT } from './podman.js';

const DIR = join(ROOT, 'deploy/kubernetes');
const MANIFEST = join(DIR, 'gateway.yaml');
const EXAMPLE_SECRET = join(DIR, 'secret.example.yaml');
const NETWORK = `listing-kube-${process.pid}`;
type Doc = { apiVersion: string; kind: string; metadata: { name: string }; [key: string]: unknown };
const docs = parseAllDocuments(readFileSync(MANIFEST, 'utf8')).map((doc) => doc.toJS() as Doc);
const byKind = (kind: string) => docs.find((doc) => doc.kind === kind) as Doc;

const models = await ecosystemTools('the Kubernetes schema check');
type KubernetesModel = new (doc: Doc) => { validate(): void };

describe.skipIf(!models.available)('every manifest in deploy/kubernetes/', () => {
  const files = readdirSync(DIR).filter((name) => /\.ya?ml$/.test(name));
  for (const file of files) {
    it(`${file}: every document valid against the Kubernetes schemas`, async () => {
      const all = parseAllDocuments(readFileSync(join(DIR, file), 'utf8')).map((doc) => doc.toJS() as Doc);
      for (const doc of all) {
        const [group, version] = doc.apiVersion.includes('/') ? doc.apiVersion.split('/') : ['', doc.apiVersion];
        const path = group ? `kubernetes-models/${group}/${version}/${doc.kind}` : `kubernetes-models/v1/${doc.kind}`;
        const Model = (await models.load<Record<string, KubernetesModel>>(path))[doc.kind] as KubernetesModel;
        expect(Model, `${doc.apiVersion} ${doc.kind}`).toBeDefined();
        expect(() => new Model(doc).validate(), `${doc.kind} ${doc.metadata.name}`).not.toThrow();
      }
    });
  }
});

describe('podman kube play deploy/kubernetes/gateway.yaml', () => {
  const [secret] = parseAllDocuments(readFileSync(EXAMPLE_SECRET, 'utf8')).map((doc) => doc.toJS() as Doc);
  const settings = (secret as Doc).stringData as Record<string, string>;
  const password = new URL(settings.DATABASE_URL as string).password;
  const helper = (name: string) => `listing-kube-${name}-${process.pid}`;
  const scratch = mkdtempSync(join(tmpdir(), 'listing-kube-'));
  const manifest = join(scratch, 'gateway.yaml');
  let pod: string;
  let container: string;

  beforeAll(async () => {
    podman(['network', 'create', '--label', LABEL, NETWORK]);
    const net = (aliases: string[]) => [
      '--network',
      NETWORK,
      ...aliases.flatMap((alias) => ['--network-alias', alias]),
    ];
    // The owner and the serving role, made when the data directory is, as compose's primary makes them.
    const passwordFile = join(scratch, 'postgres-password');
    writeFileSync(passwordFile, password);
    podman([
      'run',
      '-d',
      '--name',
      helper('postgres'),
      '--label',
      LABEL,
      ...net(['postgres-primary', 'primary', 'replica']),
      '-e',
      'POSTGRES_USER=listing',
      '-e',
      'POSTGRES_DB=listing',
      '-e',
      'POSTGRES_PASSWORD_FILE=/run/secrets/postgres-password',
      '-v',
      `${passwordFile}:/run/secrets/postgres-password:ro`,
      '-v',
      `${join(ROOT, 'deploy/postgres/roles.sql')}:/listing/roles.sql:ro`,
      '-v',
      `${join(ROOT, 'deploy/postgres/init-roles.sh')}:/docker-entrypoint-initdb.d/roles.sh:ro`,
      'docker.io/library/postgres:15',
    ]);
    const userlist = join(scratch, 'userlist.txt');
    writeFileSync(userlist, `"listing_serving" "${password}"\n`);
    podman([
      'run',
      '-d',
      '--name',
      helper('pgbouncer'),
      '--label',
      LABEL,
      ...net(['pgbouncer']),
      '-v',
      `${join(ROOT, 'deploy/pgbouncer.ini')}:/etc/pgbouncer/pgbouncer.ini:ro`,
      '-v',
      `${userlist}:/etc/pgbouncer/userlist.txt:ro`,
      'docker.io/edoburu/pgbouncer:v1.23.1-p3',
    ]);
    podman(['run', '-d', '--name', helper('redis'), '--label', LABEL, ...net(['redis']), 'docker.io/library/redis:7']);
    // The example Secret's values as a ConfigMap, which podman plays (see above), in the Secret's place.
    const asConfigMap = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'gateway-secret' }, data: settings };
    const played = [asConfigMap, ...docs].map((doc) => {
      if (doc.kind !== 'Deployment') return doc;
      const copy = structuredClone(doc) as Doc & {
        spec: { replicas: number; template: { spec: { containers: { envFrom: object[]; ports?: object[] }[] } } };
      };
      // podman 4.3 publishes a containerPort on the host's port of the same number, so a second replica (or anything
      // else on the machine's port 4000) makes the play fail: one replica, its port left to the pod's network.
      copy.spec.replicas = 1;
      for (const c of copy.spec.template.spec.containers) {
        delete c.ports;
        c.envFrom = c.envFrom.map((from) => {
          const ref = (from as { secretRef?: { name: string } }).secretRef;
          return ref ? { configMapRef: { name: asConfigMap.metadata.name } } : from;
        });
      }
      return copy;
    });
    writeFileSync(manifest, played.map((doc) => stringify(doc)).join('---\n'));
  }, 300_000);

  afterAll(async () => {
    await podmanAsync(['kube', 'down', manifest]).catch(() => '');
    for (const name of ['postgres', 'pgbouncer', 'redis']) podman(['rm', '-f', '-t', '0', '-v', helper(name)]);
    podman(['network', 'rm', '-f', NETWORK]);
    rmSync(scratch, { recursive: true, force: true });
  });

  it('plays the ConfigMap and the Deployment, and the pod runs as the manifest says', async () => {
    const output = await podmanAsync(['kube', 'play', '--network', NETWORK, manifest]);
    note(`podman kube play: ${output.replace(/\s+/g, ' ').trim()}`);
    // podman 4.3 makes one pod per replica (<deployment>-pod-0, -1, ...) and starts the first.
    const pods = podman([
      'pod',
      'ps',
      '--format',
      '{{.Name}}',
      '--filter',
      `name=${byKind('Deployment').metadata.name}`,
    ]);
    note(`kube play pods: ${pods.split('\n').join(', ')}`);
    pod = pods.split('\n').sort()[0] as string;
    expect(pod).toMatch(/-pod-0$/);
    container = `${pod}-gateway`;
    expect(inspect(container, '{{.State.Running}}')).toBe('true');
    expect(inspect(container, '{{.Config.User}}')).toMatch(/^1000/);
    expect(inspect(container, '{{.HostConfig.ReadonlyRootfs}}')).toBe('true');
    expect(Number(inspect(container, '{{.HostConfig.Memory}}'))).toBe(512 * 1024 * 1024);
    // capabilities: drop [ALL], allowPrivilegeEscalation: false, seccompProfile RuntimeDefault (podman's default
    // profile: it applies one unless told `unconfined`), as the process itself sees them.
    const status = await podmanAsync(['exec', container, 'cat', '/proc/1/status']);
    const field = (name: string) => new RegExp(`^${name}:\\s*(\\S+)`, 'm').exec(status)?.[1];
    note(`kube pod: CapEff ${field('CapEff')}, NoNewPrivs ${field('NoNewPrivs')}, Seccomp ${field('Seccomp')}`);
    expect({ CapEff: field('CapEff'), NoNewPrivs: field('NoNewPrivs'), Seccomp: field('Seccomp') }).toEqual({
      CapEff: '0000000000000000',
      NoNewPrivs: '1',
      Seccomp: '2',
    });
  });

  it('answers its probes: startup and liveness on /livez, readiness on /readyz', async () => {
    const spec = byKind('Deployment').spec as { template: { spec: { containers: Record<string, never>[] } } };
    const probes = spec.template.spec.containers[0] as Record<string, { httpGet: { path: string } }>;
    const port = (byKind('ConfigMap').data as Record<string, string>).PORT;
    for (const probe of ['startupProbe', 'livenessProbe', 'readinessProbe']) {
      const path = probes[probe]?.httpGet.path as string;
      const check = `fetch('http://127.0.0.1:${port}${path}').then(r=>{console.log(r.status);process.exit(r.ok?0:1)},()=>process.exit(2))`;
      let status = '';
      for (let i = 0; i < 120 && status !== '200'; i++) {
        status = await podmanAsync(['exec', container, 'node', '-e', check]).catch(() => '');
        if (status !== '200') await new Promise((resolve) => setTimeout(resolve, 2000));
      }
      note(`kube pod ${probe} GET ${path}: ${status}`);
      expect(status, probe).toBe('200');
    }
  });
});
