// deploy/kubernetes/ as an operator applies it, read as the API server's admission would read it, without a cluster:
// gateway.yaml holds no Secret (applying it never replaces the real one) and the example beside it carries a name of
// its own; every pod template meets the restricted Pod Security Standard (pod-security.ts, which is shown to find
// each restricted control broken); the pods have no service account token, spread over nodes and are scraped on
// their metrics port; and the NetworkPolicy lets in only the ingress and monitoring namespaces, each on its port,
// and lets out only DNS and the ports of the Secret's database and Redis URLs. kubernetes.test.ts plays the files.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { restrictedViolations } from './pod-security.js';
import { ROOT } from './podman.js';

// biome-ignore lint/suspicious/noExplicitAny: a manifest's documents are untyped YAML
type Any = any;
const DIR = join(ROOT, 'deploy/kubernetes');
const read = (file: string): Any[] =>
  parseAllDocuments(readFileSync(join(DIR, file), 'utf8')).map((doc) => doc.toJS() as Any);
const files = readdirSync(DIR).filter((name) => /\.ya?ml$/.test(name));
const manifest = read('gateway.yaml');
const byKind = (kind: string): Any => manifest.find((doc) => doc.kind === kind);
const deployment = byKind('Deployment');
const pod = deployment.spec.template;
const [container] = pod.spec.containers as Any[];
const [example] = read('secret.example.yaml');

describe('deploy/kubernetes/ as applied', () => {
  it('gateway.yaml holds no Secret; the example beside it is named so that applying it replaces none', () => {
    expect(manifest.map((doc) => doc.kind)).not.toContain('Secret');
    const secretRefs = (container.envFrom as Any[]).flatMap((from) => (from.secretRef ? [from.secretRef.name] : []));
    expect(secretRefs).toEqual(['package-listing-gateway']);
    expect(example.kind).toBe('Secret');
    expect(example.metadata.name).not.toBe(secretRefs[0]);
    for (const file of files.filter((name) => name !== 'secret.example.yaml')) {
      for (const doc of read(file)) expect(`${doc.kind} ${doc.metadata.name}`).not.toBe(`Secret ${secretRefs[0]}`);
    }
  });

  it('every pod template meets the restricted Pod Security Standard', () => {
    const templates = files.flatMap((file) => read(file).filter((doc) => doc.spec?.template?.spec));
    expect(templates.length).toBeGreaterThan(0);
    for (const doc of templates) expect(restrictedViolations(doc.spec.template), doc.metadata.name).toEqual([]);
  });

  it.each<[string, (p: Any) => void, string]>([
    ['seccomp left to the runtime', (p) => delete p.spec.securityContext.seccompProfile, 'Seccomp'],
    ['seccomp Unconfined', (p) => (p.spec.securityContext.seccompProfile.type = 'Unconfined'), 'Seccomp'],
    [
      'root allowed',
      (p) => {
        delete p.spec.securityContext.runAsNonRoot;
        delete p.spec.containers[0].securityContext.runAsNonRoot;
      },
      'Running as Non-root',
    ],
    ['root asked for', (p) => (p.spec.containers[0].securityContext.runAsNonRoot = false), 'Running as Non-root'],
    ['user 0', (p) => (p.spec.securityContext.runAsUser = 0), 'Running as Non-root user'],
    [
      'escalation',
      (p) => (p.spec.containers[0].securityContext.allowPrivilegeEscalation = true),
      'Privilege Escalation',
    ],
    ['capabilities kept', (p) => delete p.spec.containers[0].securityContext.capabilities.drop, 'Capabilities'],
    ['NET_ADMIN added', (p) => (p.spec.containers[0].securityContext.capabilities.add = ['NET_ADMIN']), 'Capabilities'],
    ['privileged', (p) => (p.spec.containers[0].securityContext.privileged = true), 'Privileged Containers'],
    ['host network', (p) => (p.spec.hostNetwork = true), 'Host Namespaces'],
    ['host port', (p) => (p.spec.containers[0].ports[0].hostPort = 4000), 'Host Ports'],
    ['hostPath volume', (p) => (p.spec.volumes = [{ name: 'h', hostPath: { path: '/' } }]), 'HostPath Volumes'],
    ['NFS volume', (p) => (p.spec.volumes = [{ name: 'n', nfs: { server: 'x', path: '/' } }]), 'Volume Types'],
    [
      'an init container without a context',
      (p) => (p.spec.initContainers = [{ name: 'init', image: 'busybox' }]),
      'Privilege Escalation',
    ],
  ])('the check refuses the manifest with %s', (_, change, control) => {
    const broken = structuredClone(pod);
    change(broken);
    expect(restrictedViolations(broken).map((line) => line.split(':')[0])).toContain(control);
  });

  it('gives the pods no service account token, spreads them over nodes and has them scraped on the metrics port', () => {
    expect(pod.spec.automountServiceAccountToken).toBe(false);
    const spread = pod.spec.topologySpreadConstraints as Any[];
    const byHost = spread.find((constraint) => constraint.topologyKey === 'kubernetes.io/hostname');
    expect(byHost).toMatchObject({ maxSkew: 1, labelSelector: { matchLabels: pod.metadata.labels } });
    const metricsPort = (container.ports as Any[]).find((port) => port.name === 'metrics')?.containerPort;
    expect(metricsPort).toBe(Number(byKind('ConfigMap').data.METRICS_PORT));
    expect(pod.metadata.annotations).toMatchObject({
      'prometheus.io/scrape': 'true',
      'prometheus.io/port': String(metricsPort),
      'prometheus.io/path': '/metrics',
    });
  });

  it('lets in the ingress namespace on the public port and monitoring on the metrics port, and out DNS, the database and Redis only', () => {
    const policy = byKind('NetworkPolicy');
    expect(policy.spec.podSelector.matchLabels).toEqual(pod.metadata.labels);
    expect([...policy.spec.policyTypes].sort()).toEqual(['Egress', 'Ingress']);
    const namespacesOn = (port: string) =>
      (policy.spec.ingress as Any[])
        .filter((rule) => (rule.ports as Any[]).some((p) => p.port === port))
        .flatMap((rule) => (rule.from as Any[]).map((from) => from.namespaceSelector.matchLabels));
    expect(namespacesOn('http')).toEqual([{ 'kubernetes.io/metadata.name': 'ingress-nginx' }]);
    expect(namespacesOn('metrics')).toEqual([{ 'kubernetes.io/metadata.name': 'monitoring' }]);
    for (const rule of policy.spec.ingress as Any[]) {
      for (const port of rule.ports) expect((container.ports as Any[]).map((p) => p.name)).toContain(port.port);
    }
    // Out: every rule names its ports (none lets everything out); DNS both ways, and each URL's port.
    const egress = policy.spec.egress as Any[];
    for (const rule of egress) expect(rule.ports?.length).toBeGreaterThan(0);
    const allowed = new Set(egress.flatMap((rule) => (rule.ports as Any[]).map((p) => `${p.port}/${p.protocol}`)));
    const settings = example.stringData as Record<string, string>;
    const urls = ['DATABASE_URL', 'DATABASE_REPLICA_URLS', 'DATABASE_DIRECT_URL', 'REDIS_URL'].flatMap((name) =>
      (settings[name] as string).split(','),
    );
    const needed = ['53/UDP', '53/TCP', ...urls.map((url) => `${new URL(url).port}/TCP`)];
    expect([...allowed].sort()).toEqual([...new Set(needed)].sort());
  });
});
