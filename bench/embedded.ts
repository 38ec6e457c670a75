// The embedded default as a newcomer meets it: `npm start` on a new data directory, which copies the demo database
// `npm install` made (or makes it, where none was made for this build), then serves. Its resident memory just after
// start, and after a few pages.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, startProcess } from './harness.js';
import { get } from './measure.js';
import { restPage } from './scenarios.js';

export interface EmbeddedStart {
  /** Resident memory (VmRSS) once it answers /healthz, MB. */
  afterStartMb: number;
  /** ... and after 20 v2 pages of 100. */
  afterPagesMb: number;
}

const rssMb = (pid: number) =>
  Number(/^VmRSS:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) / 1024;

export async function embeddedStart(nodeArgs: string[], log: (line: string) => void): Promise<EmbeddedStart> {
  const dir = mkdtempSync(join(tmpdir(), 'listing-bench-embedded-'));
  const port = await freePort();
  const server = await startProcess(
    'dist/server.js',
    { DATA_DIR: dir, LOG_LEVEL: 'warn', PORT: String(port) },
    `http://127.0.0.1:${port}`,
    nodeArgs,
  );
  try {
    const afterStartMb = rssMb(server.pid);
    for (let seed = 1; seed <= 20; seed++)
      await get(server.url, { ...restPage(0, 100), path: restPage(0, 100).path.replace('seed=7', `seed=${seed}`) });
    const afterPagesMb = rssMb(server.pid);
    log(
      `  embedded default, new data directory: ${afterStartMb.toFixed(0)} MB after start, ${afterPagesMb.toFixed(0)} MB after 20 pages`,
    );
    return { afterStartMb, afterPagesMb };
  } finally {
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}
