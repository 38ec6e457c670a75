// The bench's databases: 100,000 listed packages on each engine, seeded once and reused, with planner statistics.
import pg from 'pg';
import { runCommand, runScript } from './harness.js';
import { ENGINE_NAMES, type Engine } from './report.js';

/** Creates the PostgreSQL database named by the URL when the server does not have it yet. */
async function ensurePostgresDatabase(url: string, log: (line: string) => void): Promise<void> {
  const probe = new pg.Client({ connectionString: url });
  try {
    await probe.connect();
    await probe.end();
    return;
  } catch (error) {
    await probe.end().catch(() => {});
    if ((error as { code?: string }).code !== '3D000') throw error;
  }
  const target = new URL(url);
  const name = decodeURIComponent(target.pathname.slice(1));
  const admin = new URL(url);
  admin.pathname = '/postgres';
  const client = new pg.Client({ connectionString: admin.toString() });
  await client.connect();
  try {
    await client.query(`CREATE DATABASE "${name.replaceAll('"', '""')}"`);
    log(`created database ${name}`);
  } finally {
    await client.end();
  }
}

/**
 * A database with `packages` listed packages and planner statistics (env: DATABASE_URL or DATA_DIR); returns the
 * engine's version string.
 */
export async function prepareDatabase(
  engine: Engine,
  env: Record<string, string>,
  packages: number,
  log: (line: string) => void,
): Promise<string> {
  if (engine === 'postgresql') await ensurePostgresDatabase(env.DATABASE_URL as string, log);
  const status = async () =>
    JSON.parse(await runScript('bench/prepare.ts', ['count'], env)) as {
      listed: number;
      analyzed: boolean;
      version: string;
    };
  let state = await status();
  if (state.listed < packages) {
    log(`${ENGINE_NAMES[engine]}: ${state.listed} listed packages, seeding ${packages} (once; reused by later runs)`);
    const reset = state.listed > 0 ? ['--reset'] : [];
    await runCommand('npm', ['run', '--silent', 'db:seed', '--', '--packages', String(packages), ...reset], env);
    state = await status();
    if (state.listed < packages) throw new Error(`${engine}: only ${state.listed} packages listed after seeding`);
  }
  if (!state.analyzed) {
    log(`${ENGINE_NAMES[engine]}: VACUUM ANALYZE (no planner statistics yet)`);
    await runScript('bench/prepare.ts', ['analyze'], env);
  }
  log(`${ENGINE_NAMES[engine]}: ${state.listed.toLocaleString('en')} listed packages`);
  return state.version.replace(/ on .*$/, '');
}
