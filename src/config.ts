// Configuration: the environment parsed and validated once, into one typed `config` object.
// Every problem is reported in one line; the process stops before it touches any data.
import { z } from 'zod';

const postgresUrl = z
  .string()
  .trim()
  .refine((value) => {
    try {
      const url = new URL(value);
      return (url.protocol === 'postgres:' || url.protocol === 'postgresql:') && url.hostname !== '';
    } catch {
      return false;
    }
  }, 'must be a postgres:// or postgresql:// URL with a host, e.g. postgresql://user@127.0.0.1:5432/listing');

const wholeNumber = (min: number, max: number) =>
  z
    .string()
    .trim()
    .regex(/^\d+$/, `must be a whole number from ${min} to ${max}`)
    .transform(Number)
    .refine((n) => n >= min && n <= max, `must be a whole number from ${min} to ${max}`);

const environment = z.object({
  PORT: wholeNumber(0, 65535).default(4000),
  HOST: z.string().trim().min(1, 'must not be empty').default('127.0.0.1'),
  DATABASE_URL: postgresUrl.optional(),
  DATA_DIR: z.string().trim().min(1, 'must not be empty').default('./data'),
  SEED_PACKAGES: wholeNumber(0, 1_000_000).default(2000),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  PUBLIC_URL: z
    .string()
    .trim()
    .refine((value) => {
      try {
        const url = new URL(value);
        return (url.protocol === 'http:' || url.protocol === 'https:') && !url.search && !url.hash;
      } catch {
        return false;
      }
    }, 'must be an http(s) URL without query, e.g. https://api.example.com')
    .transform((value) => value.replace(/\/+$/, ''))
    .optional(),
  TRUST_PROXY: z.enum(['true', 'false']).default('false'),
});

export type Config = {
  port: number;
  host: string;
  database: { kind: 'postgresql'; url: string } | { kind: 'pglite'; dataDir: string };
  seedPackages: number;
  logLevel: z.infer<typeof environment>['LOG_LEVEL'];
  /** The service's address as clients see it, for the v2 links; by default the address it listens on. */
  publicUrl: string | undefined;
  /** Take the public address from X-Forwarded-Proto/X-Forwarded-Host (only behind a proxy that sets them). */
  trustProxy: boolean;
};

export class ConfigError extends Error {}

/** Parses the environment; throws a ConfigError whose message lists every problem on one line. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  // An empty variable means "not set", as in most shells' `VAR= command`.
  const present = Object.fromEntries(Object.entries(env).filter(([, value]) => value !== undefined && value !== ''));
  const parsed = environment.safeParse(present);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => {
      const name = issue.path.join('.');
      const value = present[name];
      return `${name}=${JSON.stringify(value)} ${issue.message}`;
    });
    throw new ConfigError(`invalid configuration: ${problems.join('; ')}`);
  }
  const e = parsed.data;
  return {
    port: e.PORT,
    host: e.HOST,
    database: e.DATABASE_URL ? { kind: 'postgresql', url: e.DATABASE_URL } : { kind: 'pglite', dataDir: e.DATA_DIR },
    seedPackages: e.SEED_PACKAGES,
    logLevel: e.LOG_LEVEL,
    publicUrl: e.PUBLIC_URL,
    trustProxy: e.TRUST_PROXY === 'true',
  };
}
