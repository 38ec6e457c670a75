// What a server start checks beyond each value (src/config.ts checks those): the variables that look like a
// misspelled setting, named in one warning line each in every mode, and what a start refuses to serve unless a
// setting says so on purpose, in one line naming each of them. Production's defaults close all of these
// (src/environment.ts); development's open them, so `npm start` on a clone serves the demo as before.
import { distance } from 'fastest-levenshtein';
import { type Config, ConfigError, environment } from './config.js';

/** The variables the configuration reads, from its own schema. */
const KNOWN: readonly string[] = Object.keys(environment.shape);

/** What the project's own variables look like: capitals, digits and underscores. */
const LOOKS_LIKE_OURS = /^[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)*$/;

/**
 * Never ours, whatever they look like: the system's, the shell's, Node's, npm's, libpq's (PGHOST is two edits from
 * HOST), Kubernetes', OpenTelemetry's own OTEL_LOG_LEVEL (LOG_LEVEL with a prefix), and the project's own tools'
 * (TEST_DATABASE_URL, BENCH_REDIS_URL: a setting with a prefix, on purpose).
 */
const STANDARD = new Set(['PATH', 'HOME', 'HOSTNAME', 'HOSTTYPE', 'PWD', 'OLDPWD', 'TEMP', 'TMP', 'OTEL_LOG_LEVEL']);
const STANDARD_PREFIXES = ['NODE_', 'NPM_', 'LC_', 'XDG_', 'KUBERNETES_', 'PG', 'TEST_', 'BENCH_', 'SOAK_', 'ANCHOR_'];

/**
 * What Kubernetes puts in every container of a namespace for each Service (`REDIS_SERVICE_HOST`, `REDIS_PORT`
 * = `tcp://10.0.0.11:6379`, `REDIS_PORT_6379_TCP_ADDR`, ...): never a setting, whatever the Service is called.
 */
function serviceLink(name: string, value: string | undefined): boolean {
  if (/_SERVICE_(HOST|PORT)(_[A-Z0-9_]+)?$/.test(name)) return true;
  if (/_PORT_\d+_(TCP|UDP|SCTP)(_(PROTO|PORT|ADDR))?$/.test(name)) return true;
  return /_PORT$/.test(name) && /^(tcp|udp|sctp):\/\//.test(value ?? '');
}

/**
 * Edits between two names, a swap of two neighbouring letters counting as one (PROT for PORT), and at most
 * `limit + 1`: past the limit the exact count does not matter.
 */
function edits(name: string, setting: string, limit: number): number {
  if (Math.abs(name.length - setting.length) > limit) return limit + 1;
  const swapped = [...name].findIndex((letter, i) => letter !== setting[i]);
  if (
    name.length === setting.length &&
    swapped >= 0 &&
    name[swapped] === setting[swapped + 1] &&
    name[swapped + 1] === setting[swapped] &&
    name.slice(swapped + 2) === setting.slice(swapped + 2)
  ) {
    return 1;
  }
  return distance(name, setting);
}

/**
 * The setting `name` most likely meant, or null: within two edits of one (one for a name of four letters, where two
 * would take half of it: TEMP is not DEMO), or one of two words or more with words before or after it
 * (LISTING_DATABASE_URL, REQUEST_TIMEOUT_MS). PORT and HOST with words around them are other programs' (REDIS_PORT).
 */
export function meantSetting(name: string, known: readonly string[] = KNOWN): string | null {
  let nearest: { setting: string; edits: number } | null = null;
  for (const setting of known) {
    const limit = setting.length <= 4 ? 1 : 2;
    const count = edits(name, setting, limit);
    if (count <= limit && (!nearest || count < nearest.edits)) nearest = { setting, edits: count };
  }
  if (nearest) return nearest.setting;
  const wrapped = known.filter(
    (setting) => setting.includes('_') && (name.endsWith(`_${setting}`) || name.startsWith(`${setting}_`)),
  );
  return wrapped.sort((a, b) => b.length - a.length)[0] ?? null;
}

/** One warning line for each variable of `env` that is no setting but looks like a misspelled one. */
export function likelyTypos(env: NodeJS.ProcessEnv, known: readonly string[] = KNOWN): string[] {
  const lines: string[] = [];
  for (const [name, value] of Object.entries(env)) {
    if (known.includes(name) || !LOOKS_LIKE_OURS.test(name) || STANDARD.has(name)) continue;
    if (STANDARD_PREFIXES.some((prefix) => name.startsWith(prefix)) || serviceLink(name, value)) continue;
    const meant = meantSetting(name, known);
    if (meant) lines.push(`${name} is not a setting; did you mean ${meant}?`);
  }
  return lines;
}

/**
 * What this start would serve that no setting opened, each naming the setting that opens it; empty when none.
 * The defaults make them all open in development and all closed in production (src/environment.ts).
 */
export function closedByDefault(config: Config): string[] {
  const refused: string[] = [];
  if (!config.demo && config.database.kind === 'pglite') {
    refused.push(
      'DATABASE_URL is not set, and the embedded database with its demo packages is no listing to serve as one (DEMO=true if this instance is a demo)',
    );
  }
  if (!config.demo && config.database.kind === 'postgresql' && config.seedPackages > 0) {
    refused.push(
      `SEED_PACKAGES=${config.seedPackages} would load invented demo packages (DEMO=true if this instance is a demo; npm run import loads the listing)`,
    );
  }
  if (config.corsOrigins.length === 0) {
    refused.push(
      'CORS_ORIGINS is not set (the sites whose pages may call /graphql, e.g. https://shop.example.com, or * for any site)',
    );
  }
  if (!config.v2ApiKeys && !config.v2Public) {
    refused.push(
      'V2_API_KEYS is not set, and the v2 path would serve photographer_email and payments_user_id to anyone (set V2_API_KEYS or V2_API_KEYS_FILE from npm run api-key, or V2_PUBLIC=true if it is public on purpose)',
    );
  }
  return refused;
}

/** Throws, in one line, when the start would serve something closed by default that no setting opened. */
export function refuseClosedByDefault(config: Config): void {
  const refused = closedByDefault(config);
  if (refused.length === 0) return;
  const where = config.production ? ' in production (NODE_ENV=production)' : '';
  throw new ConfigError(`refusing to start${where}: ${refused.join('; ')}`);
}
