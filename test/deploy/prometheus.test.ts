// deploy/prometheus and deploy/grafana held to promtool and to the rest of the project: the rules load, their unit
// tests (deploy/prometheus/tests/, firing and healthy series for every alert) pass, the dashboard's PromQL parses,
// every alert names its severity and its runbook section of docs/operations.md (an absolute address when
// Prometheus has the external label runbook_base: a real Prometheus renders it), and the constants the rules
// compare with are the ones the configuration and the Kubernetes manifest use. promtool and prometheus are Debian's
// package prometheus: skipped with one line where it is missing, a failure under CI=true.
import { execFile, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
import { parseAllDocuments, stringify } from 'yaml';
import { loadConfig } from '../../src/config.js';
import { OTHER_ROUTE } from '../../src/http/metrics.js';
import { HEALTH_PATH, LIVE_PATH, METRICS_PATH } from '../../src/http/routes.js';
import {
  alerts,
  anchor,
  dashboard,
  dashboardQueries,
  PROMETHEUS,
  PROMETHEUS_DIR,
  PROMTOOL,
  promtoolInstalled,
  RULE_FILES,
  RULE_TESTS,
  rules,
} from '../helpers/prometheus.js';

const run = promisify(execFile);
const installed = promtoolInstalled();
const inCi = process.env.CI === 'true';
if (!installed && !inCi) console.warn(`promtool tests skipped: no ${PROMTOOL} (apt-get install prometheus).`);

const read = (path: string) => readFileSync(new URL(`../../${path}`, import.meta.url), 'utf8');
const JOB = 'package-listing-gateway';

describe.skipIf(!installed && !inCi)('promtool', () => {
  beforeAll(() => {
    if (!installed) throw new Error(`CI=true and no ${PROMTOOL}: apt-get install prometheus`);
  });

  it('checks the rule files', async () => {
    const { stdout } = await run(PROMTOOL, ['check', 'rules', ...RULE_FILES]);
    expect(stdout).toMatch(/SUCCESS/);
  });

  it('passes the rules unit tests: every alert fires on its series and stays quiet on healthy ones', async () => {
    const { stdout } = await run(PROMTOOL, ['test', 'rules', ...RULE_TESTS], { cwd: PROMETHEUS_DIR });
    expect(stdout.match(/SUCCESS/g)).toHaveLength(RULE_TESTS.length);
    const tested = RULE_TESTS.map((file) => read(`deploy/prometheus/tests/${file.split('/').pop()}`)).join('\n');
    for (const { alert } of alerts) {
      expect(tested, `${alert} firing`).toMatch(
        new RegExp(`alertname: ${alert}\\n\\s+eval_time: \\S+\\n\\s+exp_alerts:`),
      );
      expect(tested, `${alert} quiet`).toMatch(
        new RegExp(`alertname: ${alert}\\n\\s+eval_time: \\S+\\n(?!\\s+exp_alerts)`),
      );
    }
  });

  it('links each alert to its runbook at the address the external label runbook_base gives', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'prometheus-'));
    const base = 'https://git.example.com/listing/gateway/blob/main/docs/operations.md';
    const port = await freePort();
    // No target at all: GatewayDown's absent() holds from the first evaluation, so the alert is pending at once.
    const config = {
      global: { evaluation_interval: '1s', external_labels: { runbook_base: base } },
      rule_files: RULE_FILES,
    };
    writeFileSync(join(dir, 'prometheus.yml'), stringify(config));
    const prometheus = spawn(
      PROMETHEUS,
      [
        `--config.file=${join(dir, 'prometheus.yml')}`,
        `--storage.tsdb.path=${join(dir, 'data')}`,
        `--web.listen-address=127.0.0.1:${port}`,
      ],
      { stdio: 'ignore' },
    );
    try {
      type Alert = { labels: Record<string, string>; annotations: Record<string, string> };
      let found: Alert | undefined;
      for (let i = 0; i < 150 && !found; i++) {
        await new Promise((resolve) => setTimeout(resolve, 100));
        const answer = await fetch(`http://127.0.0.1:${port}/api/v1/alerts`).catch(() => null);
        const alerting = answer?.ok ? ((await answer.json()) as { data: { alerts: Alert[] } }) : null;
        found = alerting?.data.alerts.find((alert) => alert.labels.alertname === 'GatewayDown');
      }
      expect(found?.annotations.runbook_url).toBe(`${base}#gatewaydown`);
    } finally {
      prometheus.kill('SIGKILL');
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("parses the dashboard's PromQL", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'dashboard-rules-'));
    try {
      const queries = dashboardQueries().map(({ expr }, i) => ({ record: `dashboard:query:${i}`, expr }));
      writeFileSync(join(dir, 'dashboard.yml'), stringify({ groups: [{ name: 'dashboard', rules: queries }] }));
      const { stdout } = await run(PROMTOOL, ['check', 'rules', join(dir, 'dashboard.yml')]);
      expect(stdout).toContain(`SUCCESS: ${queries.length} rules found`);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('the alerts and the dashboard', () => {
  it('give every alert a severity, a summary, a description and its own runbook section', () => {
    const runbooks = read('docs/operations.md').split(/^## Alerts and runbooks$/m)[1] ?? '';
    const headings = [...runbooks.matchAll(/^### (.+)$/gm)].map((m) => m[1] as string);
    expect(headings.sort()).toEqual(alerts.map((rule) => rule.alert).sort());
    for (const rule of alerts) {
      expect(['page', 'ticket']).toContain(rule.labels?.severity);
      expect(rule.annotations?.summary).toBeTruthy();
      expect(rule.annotations?.description).toBeTruthy();
      expect(rule.annotations?.runbook_url).toBe(
        `{{ or $externalLabels.runbook_base "docs/operations.md" }}#${anchor(rule.alert as string)}`,
      );
    }
  });

  it('reads the job the Kubernetes Service names, leaves out the probe routes and the paths of none of ours, and compares with the limits set elsewhere', () => {
    const manifests = parseAllDocuments(read('deploy/kubernetes/gateway.yaml')).map((doc) => doc.toJS());
    expect(manifests.find((m) => m.kind === 'Service').metadata.name).toBe(JOB);
    const probes = [HEALTH_PATH, LIVE_PATH, METRICS_PATH, OTHER_ROUTE].join('|');
    for (const { expr } of [...rules, ...dashboardQueries()]) {
      for (const [, job] of expr.matchAll(/\bjob="([^"]*)"/g)) expect(job).toBe(JOB);
      for (const [, routes] of expr.matchAll(/\broute!~"([^"]*)"/g)) expect(routes).toBe(probes);
    }
    // The memory alert compares each instance with the limit it reads of its own container (no constant to keep
    // equal to the manifest's), which the manifest must therefore set.
    const memory = manifests.find((m) => m.kind === 'Deployment').spec.template.spec.containers[0].resources.limits
      .memory as string;
    expect(memory).toMatch(/^\d+(Mi|Gi)$/);
    const nearLimit = rules.find((rule) => rule.alert === 'GatewayMemoryNearLimit')?.expr;
    expect(nearLimit).toMatch(
      /process_resident_memory_bytes\{[^}]*\}\s*\/ on \(job, instance\) process_memory_limit_bytes\{/,
    );
    const { database } = loadConfig({ DATABASE_URL: 'postgresql://127.0.0.1/listing' });
    const maxLagSeconds = (database.kind === 'postgresql' ? (database.replicaMaxLagMs ?? 0) : 0) / 1000;
    expect(maxLagSeconds).toBeGreaterThan(0);
    const lag = rules.find((rule) => rule.alert === 'GatewayReplicaLagging')?.expr;
    expect(lag).toMatch(new RegExp(`db_replica_lag_seconds\\{[^}]*\\}\\) > ${maxLagSeconds}$`, 'm'));
  });

  it('is a Grafana dashboard with a Prometheus data source variable and an instance variable', () => {
    expect(dashboard.schemaVersion).toBeGreaterThanOrEqual(39);
    const variables = Object.fromEntries(dashboard.templating.list.map((v) => [v.name, v]));
    expect(variables.datasource).toMatchObject({ type: 'datasource', query: 'prometheus' });
    expect(variables.instance?.type).toBe('query');
    const panels = dashboard.panels.filter((panel) => panel.type !== 'row');
    for (const panel of panels) expect(JSON.stringify(panel)).not.toMatch(/"uid":"(?!\$\{datasource\}")/);
    expect(panels.every((panel) => /"uid":"\$\{datasource\}"/.test(JSON.stringify(panel)))).toBe(true);
  });
});

/** A port free on loopback now (for a process of our own to listen on). */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      probe.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}
