// The deployment files use the roles of deploy/postgres/roles.sql (docs/operations.md, "Database roles"): every
// instance of deploy/compose.yaml and the Kubernetes manifest reads as the serving role, through PgBouncer and from
// the replicas, and migrates as the owner on the primary's direct URL; compose's primary makes both roles when its
// data directory is made. The container tests (npm run test:containers) run these files for real.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parse, parseAllDocuments } from 'yaml';

const read = (path: string) => readFileSync(new URL(`../../${path}`, import.meta.url), 'utf8');
const roles = read('deploy/postgres/roles.sql');
/** The roles' names as the script sets them by default. */
const named = (variable: string) => new RegExp(`\\\\set ${variable} (\\w+)`).exec(roles)?.[1] as string;
const OWNER = named('owner');
const SERVING = named('serving');

const envFile = (text: string): Record<string, string> =>
  Object.fromEntries(
    text
      .split('\n')
      .filter((line) => /^[A-Z_]+=/.test(line))
      .map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)]),
  );
const userOf = (url: string) => new URL(url).username;

type Service = { env_file?: string; volumes?: string[] };
const compose = parse(read('deploy/compose.yaml'), { merge: true }) as { services: Record<string, Service> };
const secret = parseAllDocuments(read('deploy/kubernetes/secret.example.yaml'))
  .map((doc) => doc.toJS() as { kind: string; stringData?: Record<string, string> })
  .find((doc) => doc.kind === 'Secret')?.stringData as Record<string, string>;

describe('the deployment files and the database roles', () => {
  it('names an owner and a serving role', () => {
    expect([OWNER, SERVING]).toEqual(['listing_owner', 'listing_serving']);
  });

  it.each([
    ...Object.entries(compose.services)
      .filter(([name]) => name.startsWith('gateway-'))
      .map(([name, service]): [string, Record<string, string>] => [
        `compose ${name}`,
        envFile(read(`deploy/${(service.env_file as string).replace('./secrets/', '')}.example`)),
      ]),
    ['the Kubernetes Secret', secret] as [string, Record<string, string>],
  ])('%s reads as the serving role and migrates as the owner', (_, settings) => {
    expect(userOf(settings.DATABASE_URL as string)).toBe(SERVING);
    for (const url of (settings.DATABASE_REPLICA_URLS as string).split(',')) expect(userOf(url)).toBe(SERVING);
    expect(userOf(settings.DATABASE_DIRECT_URL as string)).toBe(OWNER);
  });

  it("makes both roles on compose's primary when its data directory is made, with the script's names", () => {
    const volumes = compose.services.primary?.volumes ?? [];
    const init = read('deploy/postgres/init-roles.sh');
    const mounted = (source: string) => volumes.find((volume) => volume.startsWith(`${source}:`))?.split(':')[1];
    expect(mounted('./postgres/init-roles.sh')).toMatch(/^\/docker-entrypoint-initdb\.d\/[^/]+\.sh$/);
    expect(init).toContain(`-f ${mounted('./postgres/roles.sql')}`);
    expect(init).toContain(`-v owner=${OWNER} -v serving=${SERVING}`);
    for (const role of [OWNER, SERVING]) expect(init).toContain(`ALTER ROLE ${role} PASSWORD :'password'`);
    // PgBouncer authenticates the role the instances go through it as.
    expect(read('deploy/compose.yaml')).toContain(`pgbouncer-userlist.txt\n# (\`"${SERVING}" "<password>"\``);
  });
});
