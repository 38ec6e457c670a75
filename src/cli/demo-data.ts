// `npm run db:demo-data`: makes the prepared demo database a first start copies (src/db/prepared-data.ts). A new
// embedded database is made exactly as a first start makes it (the migrations, the demo packages, the read model),
// closed, and kept beside the compiled code. `npm install` runs it after the build. It reads no setting: what it
// makes is the default first start's database whatever this shell exports (a wrong PORT must not fail an install).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DEMO_PACKAGES, loadConfig } from '../config.js';
import { keepPreparedData } from '../db/prepared-data.js';
import { createLogger } from '../logger.js';
import { describeStartupFailure, prepareDatabase } from '../startup.js';

const started = Date.now();
const dir = mkdtempSync(join(tmpdir(), 'listing-demo-data-'));
try {
  const defaults = loadConfig({});
  const config = { ...defaults, database: { kind: 'pglite', dataDir: dir } as const, seedPackages: DEMO_PACKAGES };
  const db = await prepareDatabase(config, createLogger({ level: 'warn', format: 'json' }), true);
  await db.close();
  const path = keepPreparedData(dir, DEMO_PACKAGES);
  console.log(`made ${path}: ${DEMO_PACKAGES} demo packages in ${((Date.now() - started) / 1000).toFixed(1)} s`);
} catch (error) {
  console.error(`error: the prepared demo database was not made: ${describeStartupFailure(error)}`);
  process.exitCode = 1;
} finally {
  rmSync(dir, { recursive: true, force: true });
}
// The schema engine's WebAssembly runtime leaves a timer behind that would keep the process up (src/cli/job.ts).
process.exit();
