// `npm run bench:first-start [-- RUNS]`: `npm start` as a fresh clone meets it, timed. Each run starts the compiled
// server as `npm start` runs it (its node flags read from package.json) on a new data directory and takes the
// seconds to its "GraphQL and GraphiQL" line, with the machine's load average before it; then starts it again on
// the same data, timed the same way (a restart). bench/first-start.json keeps the runs and the machine, and the
// README and docs/benchmarks.md quote it (bench/first-start-figure.ts). A fresh clone's `npm install` made the
// prepared demo database (`npm run db:demo-data`), which a first start copies: the bench says when a run made its
// database the long way instead (no prepared data for this build: run `npm run db:demo-data` first).
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { FIRST_START_FILE, type FirstStartRecord, firstStartFigure } from './first-start-figure.js';
import { childEnv, ROOT } from './harness.js';

/** `npm start`'s command line: node, its flags, the script. */
const START = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: { start: string } }).scripts
  .start;
const [, ...START_ARGS] = START.replace(/^exec /, '').split(/\s+/);

/** Seconds from launch to ready, and what the server said. */
async function oneStart(dir: string): Promise<{ seconds: number; output: string }> {
  const started = performance.now();
  const child = spawn(process.execPath, START_ARGS, {
    cwd: ROOT,
    env: childEnv({ DATA_DIR: dir, PORT: '0', LOG_FORMAT: 'json' }),
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let output = '';
  try {
    const seconds = await new Promise<number>((resolve, reject) => {
      child.stdout.on('data', (chunk) => {
        output += chunk;
        if (output.includes('GraphQL and GraphiQL')) resolve((performance.now() - started) / 1000);
      });
      child.on('exit', (code) => reject(new Error(`the server exited with ${code} before it was ready:\n${output}`)));
    });
    return { seconds, output };
  } finally {
    child.kill('SIGTERM');
    await new Promise((resolve) => child.once('exit', resolve));
  }
}

const runs = Number(process.argv[2] ?? 3);
const record: FirstStartRecord = {
  seconds: [],
  restartSeconds: [],
  packages: 2000,
  date: new Date().toISOString().slice(0, 10),
  cores: cpus().length,
  cpu: cpus()[0]?.model.trim() ?? 'unknown',
  node: process.version,
  load: [],
};
const round = (seconds: number) => Number(seconds.toFixed(2));
for (let i = 0; i < runs; i++) {
  const dir = mkdtempSync(join(tmpdir(), 'listing-first-start-'));
  rmSync(dir, { recursive: true }); // a data directory that does not exist yet, as on a fresh clone
  try {
    record.load.push(round(loadavg()[0] as number));
    const first = await oneStart(dir);
    record.seconds.push(round(first.seconds));
    const copied = first.output.includes('the prepared database copied');
    const again = await oneStart(dir);
    record.restartSeconds?.push(round(again.seconds));
    console.log(
      `run ${i + 1}: ready in ${first.seconds.toFixed(1)} s (load ${record.load.at(-1)}), a restart in ` +
        `${again.seconds.toFixed(1)} s${copied ? '' : '; made the long way: no prepared demo data for this build'}`,
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
writeFileSync(FIRST_START_FILE, `${JSON.stringify(record, null, 2)}\n`);
console.log(`${firstStartFigure(record)}: written to bench/first-start.json`);
