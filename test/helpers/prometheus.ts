// deploy/prometheus's rules and deploy/grafana's dashboard as data, the metric names their PromQL reads, and
// Debian's promtool (package prometheus) to check and test them.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';

export const PROMTOOL = '/usr/bin/promtool';
/** Prometheus itself, from the same package: to render what promtool's unit tests cannot (external labels). */
export const PROMETHEUS = '/usr/bin/prometheus';
export const promtoolInstalled = () => existsSync(PROMTOOL) && existsSync(PROMETHEUS);

export const PROMETHEUS_DIR = fileURLToPath(new URL('../../deploy/prometheus/', import.meta.url));
export const RULE_FILES = ['rules.yml', 'alerts.yml'].map((name) => `${PROMETHEUS_DIR}${name}`);
export const RULE_TESTS = readdirSync(`${PROMETHEUS_DIR}tests`)
  .filter((name) => name.endsWith('.yml'))
  .map((name) => `${PROMETHEUS_DIR}tests/${name}`);
const DASHBOARD = fileURLToPath(new URL('../../deploy/grafana/dashboard.json', import.meta.url));

export interface Rule {
  record?: string;
  alert?: string;
  expr: string;
  for?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
}

export const rules: Rule[] = RULE_FILES.flatMap((file) =>
  (parse(readFileSync(file, 'utf8')) as { groups: { rules: Rule[] }[] }).groups.flatMap((g) => g.rules),
);
export const alerts = rules.filter((rule) => rule.alert);
export const recorded = new Set(rules.flatMap((rule) => (rule.record ? [rule.record] : [])));

interface Panel {
  type: string;
  title: string;
  targets?: { expr: string }[];
}
interface Variable {
  name: string;
  type: string;
  query?: string | { query: string };
}
export const dashboard = JSON.parse(readFileSync(DASHBOARD, 'utf8')) as {
  schemaVersion: number;
  panels: Panel[];
  templating: { list: Variable[] };
};

/** The dashboard's variables as a scrape of real series would fill them in. */
const withVariables = (expr: string) => expr.replaceAll('$__rate_interval', '5m').replaceAll('$instance', '.*');

/** Every PromQL expression of the dashboard: its panels' and its variables' (`label_values(<expr>, label)`). */
export function dashboardQueries(): { where: string; expr: string }[] {
  const panels = dashboard.panels.flatMap((panel) =>
    (panel.targets ?? []).map((target) => ({ where: panel.title, expr: withVariables(target.expr) })),
  );
  const variables = dashboard.templating.list.flatMap((variable) => {
    const query = typeof variable.query === 'object' ? variable.query.query : undefined;
    const series = query && /^label_values\((.+),\s*\w+\)$/.exec(query)?.[1];
    return series ? [{ where: `$${variable.name}`, expr: series }] : [];
  });
  return [...panels, ...variables];
}

const KEYWORDS = new Set(['by', 'without', 'on', 'ignoring', 'group_left', 'group_right', 'and', 'or', 'unless']);
const KEYWORDS_ALSO = new Set(['bool', 'offset', 'inf', 'nan']);

/**
 * The metric names a PromQL expression reads: quoted strings, label matchers, range and label lists left out,
 * then every identifier that is not a function (followed by a parenthesis), a keyword or a number.
 */
export function metricNames(expr: string): Set<string> {
  const bare = expr
    .replace(/"(?:[^"\\]|\\.)*"/g, '""')
    .replace(/\{[^}]*\}/g, ' ')
    .replace(/\[[^\]]*\]/g, ' ')
    .replace(/\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/g, ' ');
  const names = new Set<string>();
  for (const match of bare.matchAll(/(?<![\w.])([a-zA-Z_:][\w:]*)(\s*\()?/g)) {
    const [, name, call] = match as unknown as [string, string, string | undefined];
    if (call || KEYWORDS.has(name) || KEYWORDS_ALSO.has(name.toLowerCase())) continue;
    names.add(name);
  }
  return names;
}

/** The metric names as they appear in /metrics: a histogram's _bucket, _count and _sum are its own name. */
export function exposedName(name: string, histograms: ReadonlySet<string>): string {
  const base = name.replace(/_(bucket|count|sum)$/, '');
  return base !== name && histograms.has(base) ? base : name;
}

/** GitHub's anchor for a Markdown heading: lower case, punctuation dropped, spaces as hyphens. */
export const anchor = (heading: string) =>
  heading
    .trim()
    .toLowerCase()
    .replace(/[^\w\- ]/g, '')
    .replace(/ /g, '-');
