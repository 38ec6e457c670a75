// The first start's figure, as the README and docs/benchmarks.md state it: read from bench/first-start.json, which
// `npm run bench:first-start` writes from its own measurement. test/docs/figures.test.ts holds both docs to it.
import { readFileSync } from 'node:fs';

export const FIRST_START_FILE = new URL('./first-start.json', import.meta.url);

export interface FirstStartRecord {
  /** Seconds from `node dist/server.js` to its "GraphQL and GraphiQL" line, each run on a new data directory. */
  seconds: number[];
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

/** "ready in 10.6-13.1 s (2 cores, load 1.3-1.9, 2026-11-27)": the words both docs use. */
export function firstStartFigure(record = firstStartRecord()): string {
  return `ready in ${range(record.seconds, 1)} s (${record.cores} cores, load ${range(record.load, 1)}, ${record.date})`;
}
