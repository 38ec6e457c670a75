// The first start's figure, as the README and docs/benchmarks.md state it: read from bench/first-start.json, which
// `npm run bench:first-start` writes from its own measurement. test/docs/figures.test.ts holds both docs to it.
import { readFileSync } from 'node:fs';

export const FIRST_START_FILE = new URL('./first-start.json', import.meta.url);

export interface FirstStartRecord {
  /** Seconds from `node dist/server.js` to its "GraphQL and GraphiQL" line, each run on a new data directory. */
  seconds: number[];
  /** The same, started again on the data its first start left (absent from records made before it was taken). */
  restartSeconds?: number[];
  packages: number;
  date: string;
  cores: number;
  cpu: string;
  node: string;
  /** The 1-minute load average before each run. */
  load: number[];
}

export function firstStartRecord(): FirstStartRecord {
  return JSON.parse(readFileSync(FIRST_START_FILE, 'utf8')) as FirstStartRecord;
}

const range = (values: number[], digits: number) => {
  const low = Math.min(...values).toFixed(digits);
  const high = Math.max(...values).toFixed(digits);
  return low === high ? low : `${low}-${high}`;
};

/** "ready in 3.9-4.4 s, again in 3.1-3.3 s (2 cores, load 0.3-0.9, 2026-11-28)": the words both docs use. */
export function firstStartFigure(record = firstStartRecord()): string {
  const again = record.restartSeconds?.length ? `, again in ${range(record.restartSeconds, 1)} s` : '';
  return `ready in ${range(record.seconds, 1)} s${again} (${record.cores} cores, load ${range(record.load, 1)}, ${record.date})`;
}
