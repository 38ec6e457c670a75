// docs/configuration.md, rendered from the environment's schema (src/environment.ts): every variable's name,
// default, accepted values and meaning. `npm run docs:config` writes it; test/docs/configuration.test.ts fails
// when the committed file is not what this renders.
import type { z } from 'zod';
import { environment } from './environment.js';

/** Where the rendering is committed, from the repository's root. */
export const CONFIGURATION_DOC = 'docs/configuration.md';

/**
 * The npm scripts that read the settings: each checks them all before anything else, as `npm start` does, and a
 * wrong value stops it with one line (`invalid configuration: ...`) and exit code 1. test/docs/cli.test.ts runs
 * each compiled one with a wrong value.
 */
export const READS_SETTINGS = ['start', 'dev', 'db:migrate', 'db:seed', 'import'];

/**
 * The npm scripts that read none of them (a tool that makes an API key must work while API_KEYS is wrong): a
 * wrong value does not concern them. Every script running a command-line tool is in one list or the other.
 */
export const READS_NO_SETTINGS = [
  'api-key',
  'subgraph:sdl',
  'check:v2',
  'schema:check',
  'db:migration',
  'docs:config',
  'db:template',
  'db:demo-data',
];

const scripts = (names: string[]) => names.map((name) => `\`${name === 'start' ? 'npm start' : `npm run ${name}`}\``);
const inWords = (items: string[]) => `${items.slice(0, -1).join(', ')} and ${items.at(-1)}`;

interface Entry {
  name: string;
  default: string;
  accepts: string;
  does: string;
}

/** One variable's facts, gathered down its wrappers (default, optional) to the helper that parses it. */
function entryOf(name: string, schema: z.ZodType): Entry {
  const meta: Record<string, unknown> = {};
  let defaultValue: unknown;
  let optional = false;
  let options: readonly string[] | undefined;
  for (let node: z.ZodType | undefined = schema; node; ) {
    const def = node.def as { type: string; defaultValue?: unknown; innerType?: z.ZodType; entries?: object };
    for (const [key, value] of Object.entries(node.meta() ?? {})) if (!(key in meta)) meta[key] = value;
    if ((def.type === 'default' || def.type === 'prefault') && defaultValue === undefined) {
      defaultValue = def.defaultValue;
    }
    if (def.type === 'optional') optional = true;
    if (def.type === 'enum' && def.entries) options = Object.keys(def.entries);
    node = def.innerType;
  }
  const code = (value: string) => (value === '' ? 'none' : `\`${value}\``);
  const accepts = typeof meta.accepts === 'string' ? meta.accepts : options ? options.map(code).join(', ') : 'text';
  const fallback = optional ? 'unset' : 'none';
  return {
    name,
    default:
      typeof meta.default === 'string'
        ? meta.default
        : defaultValue === undefined
          ? fallback
          : code(String(defaultValue)),
    accepts,
    does: typeof meta.description === 'string' ? meta.description : '',
  };
}

const cell = (text: string) => text.replace(/\|/g, '\\|');

/** Every variable of the schema, in its order. */
export function configurationEntries(): Entry[] {
  return Object.entries(environment.shape).map(([name, schema]) => entryOf(name, schema as z.ZodType));
}

/** The whole of docs/configuration.md. */
export function renderConfigurationDoc(): string {
  const rows = configurationEntries().map(
    (e) => `| \`${e.name}\` | ${cell(e.default)} | ${cell(e.accepts)} | ${cell(e.does)} |`,
  );
  return [
    '# Configuration',
    '',
    '<!-- Generated from src/environment.ts by `npm run docs:config`; edit the schema there, not this file. -->',
    '',
    'Environment variables, all optional; an empty one counts as unset. A wrong value stops',
    `${inWords(scripts(READS_SETTINGS))} before they do anything, with one line naming each variable at fault and`,
    'what it must be (`invalid configuration: PORT="abc" must be a whole number from 0 to 65535`) and exit code 1;',
    'passwords and key hashes are never printed in it. With `NODE_ENV=production` some defaults close what',
    'development leaves open, and a server start that would serve one of those without its setting saying so is',
    'refused in one line naming each ([Production defaults](operations.md#production-defaults)). `npm start` names a',
    'variable that is no setting but looks like one (`DATABSE_URL`) in a warning line, with the setting it likely means.',
    `${inWords(scripts(READS_NO_SETTINGS))} read none of these variables, so a wrong value does not stop them.`,
    '',
    '| variable | default | accepts | what it does |',
    '|---|---|---|---|',
    ...rows,
    '',
    "OpenTelemetry's other variables (`OTEL_EXPORTER_OTLP_HEADERS`, `OTEL_TRACES_SAMPLER`, ...) are read by its SDK",
    'itself: see [Tracing](operations.md#tracing).',
    '',
  ].join('\n');
}
