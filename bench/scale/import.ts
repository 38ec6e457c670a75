// One size's import, timed as an operator runs it: `npm run import <pages>` into an empty PostgreSQL database, its
// phases read off its verbose log, its peak memory sampled, then the database's size (tables and read model).
import { spawn } from 'node:child_process';
import pg from 'pg';
import { childEnv, ROOT, sampleRss } from '../harness.js';

export interface ImportFigures {
  packages: number;
  /** From the command's start to its exit. */
  seconds: number;
  packagesPerSecond: number;
  /** Reading, validating and writing the records. */
  rowsSeconds: number;
  /** Numbering the listing and refreshing the planner's statistics. */
  listingOrderSeconds: number;
  /** The read model (documents and listing summary), built in the import's transaction. */
  readModelSeconds: number;
  peakRssMb: number;
  /** The whole database, the listing's tables, and the read model's tables, in MB. */
  databaseMb: number;
  tablesMb: number;
  readModelMb: number;
}

/** The tables derived from the listing (the read model, the search documents); the rest is the listing as imported. */
const READ_MODEL_TABLES = [
  'package_document',
  'photographer_document',
  'listing_summary',
  'read_model_state',
  'package_search',
];

/** Runs statements on the server's `postgres` database, beside the one `url` names (whose quoted name it passes). */
async function onServer(url: string, statements: (name: string) => string[]): Promise<void> {
  const name = decodeURIComponent(new URL(url).pathname.slice(1));
  const admin = new URL(url);
  admin.pathname = '/postgres';
  const client = new pg.Client({ connectionString: admin.toString() });
  await client.connect();
  try {
    for (const statement of statements(`"${name.replaceAll('"', '""')}"`)) await client.query(statement);
  } finally {
    await client.end();
  }
}

/** Drops and creates the database named by `url`. */
export const emptyDatabase = (url: string) =>
  onServer(url, (name) => [`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`, `CREATE DATABASE ${name}`]);

export const dropDatabase = (url: string) => onServer(url, (name) => [`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`]);

/** Sizes in MB of the database, its listing tables and its read model (each table with its indexes and TOAST). */
export async function databaseSizes(url: string) {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{ database: string; tables: string; read_model: string }>(
      `SELECT pg_database_size(current_database()) AS database,
         sum(pg_total_relation_size(c.oid)) FILTER (WHERE NOT c.relname = ANY ($1)) AS tables,
         sum(pg_total_relation_size(c.oid)) FILTER (WHERE c.relname = ANY ($1)) AS read_model
       FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
       WHERE n.nspname = 'public' AND c.relkind = 'r'`,
      [READ_MODEL_TABLES],
    );
    const mb = (bytes: string | undefined) => Number(bytes ?? 0) / 1024 / 1024;
    return { databaseMb: mb(rows[0]?.database), tablesMb: mb(rows[0]?.tables), readModelMb: mb(rows[0]?.read_model) };
  } finally {
    await client.end();
  }
}

/** Runs VACUUM ANALYZE, the state autovacuum reaches by itself after a bulk load (bench/prepare.ts). */
export async function vacuum(url: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query('VACUUM ANALYZE');
  } finally {
    await client.end();
  }
}

/** Imports the pages in `dir` into the (empty) database at `url` with the product's command. */
export async function importPages(url: string, dir: string, packages: number): Promise<ImportFigures> {
  const started = performance.now();
  const child = spawn(process.execPath, ['dist/cli/import.js', dir], {
    cwd: ROOT,
    env: childEnv({ DATABASE_URL: url, LOG_LEVEL: 'debug' }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const memory = sampleRss(child.pid ?? 0);
  let log = '';
  child.stdout.on('data', (chunk) => (log += chunk));
  child.stderr.on('data', (chunk) => (log += chunk));
  const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
  const seconds = (performance.now() - started) / 1000;
  const peakRssMb = memory.stop();
  if (code !== 0) throw new Error(`the import of ${dir} exited with ${code}:\n${log.slice(-2000)}`);
  // "importing <dir>: <phase> (<seconds since the process started> s)"; the first time each phase is entered.
  const at = (phase: string) => {
    const match = new RegExp(`: ${phase} \\((\\d+\\.\\d+) s\\)`).exec(log);
    if (!match?.[1]) throw new Error(`the import's log names no "${phase}" step:\n${log.slice(-2000)}`);
    return Number(match[1]);
  };
  const reading = at('reading');
  const listingOrder = at('listing order');
  const readModel = at('read model');
  const committing = at('committing');
  return {
    packages,
    seconds,
    packagesPerSecond: packages / seconds,
    rowsSeconds: listingOrder - reading,
    listingOrderSeconds: readModel - listingOrder,
    readModelSeconds: committing - readModel,
    peakRssMb,
    ...(await databaseSizes(url)),
  };
}
