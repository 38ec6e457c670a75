// `npm run bench:first-start [-- RUNS]`: `npm start` as a fresh clone meets it, timed. Each run starts the compiled
// server on a new data directory (initdb, migrations, the demo data, then serving) and takes the seconds to its
// "GraphQL and GraphiQL" line, with the machine's load average before it; bench/first-start.json keeps the runs and
// the machine, and the README and docs/benchmarks.md quote it (bench/first-start-figure.ts).
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { FIRST_START_FILE, type FirstStartRecord, firstStartFigure } from './first-start-figure.js';
import { childEnv, ROOT } from './harness.js';

async function oneStart(): Promise<number> {
  const dir = mkdtempSync(join(tmpdir(), 'listing-first-start-'));
  rmSync(dir, { recursive: true }); // a data directory that does not exist yet, as on a fresh clone
  const started = performance.now();
  const child = spawn(process.execPath, ['dist/server.js'], {
    cwd: ROOT,
    env: childEnv({ DATA_DIR: dir, PORT: '0', LOG_FORMAT: 'json' }),
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  try {
    return await new Promise<number>((resolve, reject) => {
      let output = '';
      child.stdout.on('data', (chunk) => {
        output += chunk;
        if (output.includes('GraphQL and GraphiQL')) resolve((performance.now() - started) / 1000);
      });
      child.on('exit', (code) => reject(new Error(`the server exited with ${code} before it was ready`)));
    });
  } finally {
    child.kill('SIGTERM');
    await new Promise((resolve) => child.once('exit', resolve));
    rmSync(dir, { recursive: true, force: true });
  }
}

const runs = Number(process.argv[2] ?? 3);
const record: FirstStartRecord = {
  seconds: [],
  packages: 2000,
  date: new Date().toISOString().slice(0, 10),
  cores: cpus().length,
  cpu: cpus()[0]?.model.trim() ?? 'unknown',
  node: process.version,
  load: [],
};
for (let i = 0; i < runs; i++) {
  record.load.push(Number((loadavg()[0] as number).toFixed(2)));
  const seconds = await oneStart();
  record.seconds.push(Number(seconds.toFixed(2)));
  console.log(`run ${i + 1}: ready in ${seconds.toFixed(1)} s (load ${record.load.at(-1)})`);
}
writeFileSync(FIRST_START_FILE, `${JSON.stringify(record, null, 2)}\n`);
console.log(`${firstStartFigure(record)}: written to bench/first-start.json`);
