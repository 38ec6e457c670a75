// The seed and import jobs, stopped midway by SIGTERM, SIGINT or the death of the process that started them
// (npm killed with SIGKILL): they roll back, exit non-zero, and the database holds nothing of their work.
import { execFileSync, spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { type Database, openDatabase } from '../../src/db/client.js';
import { generatePackages } from '../../src/demo/generate.js';
import { engineName, onPostgres, scratchForProcesses } from '../helpers/database.js';
import { spawnScript } from '../helpers/server-process.js';

const { dir, env } = scratchForProcesses('interrupt-test-');

async function packageCount(): Promise<number> {
  const db: Database = await openDatabase(
    onPostgres
      ? { kind: 'postgresql', url: env.DATABASE_URL as string }
      : { kind: 'pglite', dataDir: env.DATA_DIR as string },
  );
  try {
    return await db.prisma.package.count();
  } finally {
    await db.close();
  }
}

/** Resolves once the output matches. */
async function waitFor(output: () => string, pattern: RegExp, ms = 60_000): Promise<void> {
  const until = Date.now() + ms;
  while (!pattern.test(output())) {
    if (Date.now() > until) throw new Error(`no ${pattern} in: ${output()}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe(`interrupted jobs on ${engineName}`, () => {
  it('a seed stopped by SIGTERM rolls back and exits 143', async () => {
    const seed = spawnScript('src/cli/seed.ts', env, ['--packages', '200000']);
    await waitFor(seed.output, /seeding: [\d,]+\/200,000/);
    seed.child.kill('SIGTERM');
    const { code, stderr } = await seed.exited;
    expect(code).toBe(143);
    expect(stderr).toMatch(/interrupted by SIGTERM: rolled back, nothing of the unfinished work was written\n$/);
    expect(stderr).not.toMatch(/\n\s+at /);
    expect(await packageCount()).toBe(0);
  });

  it('an import stopped by SIGINT rolls back and exits 130', async () => {
    const file = join(dir.path, 'many.jsonl');
    writeFileSync(file, [...generatePackages({ count: 30_000, seed: 3 })].map((r) => JSON.stringify(r)).join('\n'));
    const job = spawnScript('src/cli/import.ts', env, [file]);
    await waitFor(job.output, /importing .*many\.jsonl: [\d,]+ records read/, 90_000);
    job.child.kill('SIGINT');
    const { code, stderr } = await job.exited;
    expect(code).toBe(130);
    expect(stderr).toMatch(/interrupted by SIGINT: rolled back/);
    expect(await packageCount()).toBe(0);
  });

  it('a seed whose parent is killed with SIGKILL (as npm may be) stops and rolls back', async () => {
    // A shell stands in for npm: it starts the job and waits for it.
    const script = join(process.cwd(), 'dist/cli/seed.js');
    const parent = spawn('sh', ['-c', `"${process.execPath}" "${script}" --packages 200000; echo ended`], {
      env: { ...process.env, ...env, LOG_LEVEL: 'warn' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    parent.stderr?.on('data', (chunk) => (output += chunk));
    await waitFor(() => output, /seeding: [\d,]+\/200,000/);
    const child = Number(
      execFileSync('pgrep', ['-P', String(parent.pid)])
        .toString()
        .trim()
        .split('\n')[0],
    );
    parent.kill('SIGKILL');
    const until = Date.now() + 20_000;
    while (isAlive(child)) {
      if (Date.now() > until) throw new Error('the job kept running after its parent died');
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    expect(await packageCount()).toBe(0);
  });
});

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
