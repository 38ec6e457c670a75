// bench/scale.json: what `npm run bench:scale` measured at each listing size, kept between runs so that one size
// can be measured again (or its serving measured apart from its import) without the others.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import type { ImportFigures } from './import.js';

export const SCALE_FILE = new URL('../scale.json', import.meta.url);

/** One path under load at one size: requests per second, CPU per request, and its first request's time. */
export interface PathFigures {
  requestsPerSecond: number;
  /** CPU ms per request: the server's, and PostgreSQL's backends' for this database. */
  serverCpuMs: number;
  databaseCpuMs: number;
  firstAfterStartMs: number;
  firstAfterImportMs: number;
  /** The first requests' statuses when they were not 200 (a timeout's 503, say). */
  firstAfterStartStatus?: number;
  firstAfterImportStatus?: number;
  /** Non-2xx answers, connection errors and unexpected bodies under load. */
  errors: number;
}

export interface ServeFigures {
  /** From `node dist/server.js` to its first /healthz answer. */
  readySeconds: number;
  paths: Record<string, PathFigures>;
  /** The server's resident memory once every path was served (after warm-up), and its peak under load. */
  rssAfterWarmUpMb: number;
  peakRssMb: number;
  date: string;
  commit: string;
}

export interface SizeRecord {
  packages: number;
  import?: ImportFigures & { date: string; commit: string };
  serve?: ServeFigures;
}

export interface ScaleRecord {
  machine: string;
  node: string;
  postgres: string;
  sizes: SizeRecord[];
}

export function readScaleRecord(file: URL = SCALE_FILE): ScaleRecord | null {
  return existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as ScaleRecord) : null;
}

/** Keeps what was measured of one size beside the other sizes' figures, sizes in increasing order. */
export function saveSize(base: Omit<ScaleRecord, 'sizes'>, size: SizeRecord, file: URL = SCALE_FILE): ScaleRecord {
  const previous = readScaleRecord(file);
  const others = (previous?.sizes ?? []).filter((s) => s.packages !== size.packages);
  const old = previous?.sizes.find((s) => s.packages === size.packages);
  const merged: SizeRecord = { ...old, ...size };
  const record: ScaleRecord = {
    ...base,
    sizes: [...others, merged].sort((a, b) => a.packages - b.packages),
  };
  writeFileSync(file, `${JSON.stringify(record, null, 2)}\n`);
  return record;
}

/**
 * The better of two measurements of one size, path by path: the lower cost per request (server and database CPU,
 * with its request rate) and the lower first-request times, each with its status. For the check's second try,
 * where a path that costs more at the larger size on both tries is a cost that grows, and one that does on the
 * first only was the machine's noise.
 */
export function bestOf(first: ServeFigures, second: ServeFigures): ServeFigures {
  const paths: Record<string, PathFigures> = {};
  for (const [id, a] of Object.entries(first.paths)) {
    const b = second.paths[id];
    if (!b) {
      paths[id] = a;
      continue;
    }
    const cheaper = b.serverCpuMs + b.databaseCpuMs < a.serverCpuMs + a.databaseCpuMs ? b : a;
    const afterStart = b.firstAfterStartMs < a.firstAfterStartMs ? b : a;
    const afterImport = b.firstAfterImportMs < a.firstAfterImportMs ? b : a;
    paths[id] = {
      requestsPerSecond: cheaper.requestsPerSecond,
      serverCpuMs: cheaper.serverCpuMs,
      databaseCpuMs: cheaper.databaseCpuMs,
      firstAfterStartMs: afterStart.firstAfterStartMs,
      firstAfterImportMs: afterImport.firstAfterImportMs,
      ...(afterStart.firstAfterStartStatus === undefined
        ? {}
        : { firstAfterStartStatus: afterStart.firstAfterStartStatus }),
      ...(afterImport.firstAfterImportStatus === undefined
        ? {}
        : { firstAfterImportStatus: afterImport.firstAfterImportStatus }),
      // Errors under load are never noise: both tries' count.
      errors: a.errors + b.errors,
    };
  }
  return {
    ...second,
    paths,
    peakRssMb: Math.max(first.peakRssMb, second.peakRssMb),
  };
}
