// The test PostgreSQL server as the operations guide's commands see it: names of a test's own for its databases and
// roles (the server is shared by the suite's files), the guide's addresses mapped onto the test server's, and
// everything dropped afterwards.
import { randomBytes } from 'node:crypto';
import pg from 'pg';

const admin = () => new URL(process.env.TEST_DATABASE_URL as string);

/** Runs statements as the test server's administrator, on `database` (default: the one TEST_DATABASE_URL names). */
export async function asAdmin(sql: string[], database?: string): Promise<void> {
  const url = admin();
  if (database) url.pathname = `/${database}`;
  const client = new pg.Client({ connectionString: url.href });
  await client.connect();
  try {
    for (const statement of sql) await client.query(statement);
  } finally {
    await client.end();
  }
}

/** A URL of the test server as `role` (no password: the test server trusts local connections) on `database`. */
export function urlAs(role: string, database: string): string {
  const url = admin();
  url.username = role;
  url.password = '';
  url.pathname = `/${database}`;
  return url.href;
}

export interface OpsNames {
  owner: string;
  serving: string;
  /** The guide's names and addresses, each with the test's own: its roles, these databases and files. */
  replacements(databases: Record<string, string>, files?: Record<string, string>): Record<string, string>;
  /** Drops the databases and then the roles. */
  drop(databases: string[]): Promise<void>;
}

export function opsNames(prefix: string): OpsNames {
  const tag = `${process.pid}_${randomBytes(3).toString('hex')}`;
  const owner = `${prefix}_owner_${tag}`;
  const serving = `${prefix}_serving_${tag}`;
  const url = admin();
  const where = url.host;
  const adminUser = url.password ? `${url.username}:${url.password}` : url.username;
  return {
    owner,
    serving,
    replacements: (databases, files = {}) => ({
      'postgresql://postgres@': `postgresql://${adminUser}@`,
      '127.0.0.1:5432/postgres': `${where}/postgres`,
      listing_owner: owner,
      listing_serving: serving,
      ...Object.fromEntries(
        Object.entries(databases).flatMap(([name, value]) => [
          [`127.0.0.1:5432/${name}`, `${where}/${value}`],
          [`DATABASE ${name}`, `DATABASE ${value}`],
        ]),
      ),
      ...files,
    }),
    async drop(databases) {
      await asAdmin([
        ...databases.map((name) => `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`),
        `DROP ROLE IF EXISTS ${owner}`,
        `DROP ROLE IF EXISTS ${serving}`,
      ]);
    },
  };
}

/** A database name of a test's own. */
export const databaseName = (prefix: string): string => `${prefix}_${process.pid}_${randomBytes(3).toString('hex')}`;
