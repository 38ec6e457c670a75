// Serving at several listing sizes at once: a server per size, each path measured on every size in turn, round
// after round, and each size's cheapest round kept, so the machine's drift in the meantime (other work, the
// page cache) is shared by every size instead of landing on whichever ran last.
import { commit } from '../environment.js';
import {
  type DatabaseCpu,
  databaseCpu,
  freePort,
  type ServerProcess,
  sampleRss,
  sleep,
  startOptions,
  startProcess,
} from '../harness.js';
import { type LoadSettings, measure } from '../measure.js';
import type { Row } from '../report.js';
import { BENCH_KEY_ENTRY } from '../scenarios.js';
import { importFiveRetitled, type Path, scalePaths, type Timed, timedRequest } from './paths.js';
import type { PathFigures, ServeFigures } from './record.js';

interface Instance {
  packages: number;
  databaseUrl: string;
  target: ServerProcess;
  database: DatabaseCpu;
  readySeconds: number;
  paths: Path[];
  firstAfterStart: Map<string, Timed>;
  rows: Map<string, Row>;
  peakRssMb: number;
}

const cost = (row: Row) => row.cpuMsPerRequest + (row.databaseCpuMsPerRequest ?? 0);

async function start(packages: number, databaseUrl: string): Promise<Instance> {
  const port = await freePort();
  const started = performance.now();
  const target = await startProcess(
    'dist/server.js',
    {
      DATABASE_URL: databaseUrl,
      LOG_LEVEL: 'warn',
      RATE_LIMIT: '0',
      RESPONSE_CACHE_BYTES: '0',
      API_KEYS: BENCH_KEY_ENTRY,
      PORT: String(port),
    },
    `http://127.0.0.1:${port}`,
    startOptions(),
  );
  const readySeconds = (performance.now() - started) / 1000;
  const paths = scalePaths(packages);
  const firstAfterStart = new Map<string, Timed>();
  for (const path of paths) firstAfterStart.set(path.id, await timedRequest(target.url, path.request));
  const database = await databaseCpu(databaseUrl);
  return {
    packages,
    databaseUrl,
    target,
    database,
    readySeconds,
    paths,
    firstAfterStart,
    rows: new Map(),
    peakRssMb: 0,
  };
}

/** Serves each size and measures every path `rounds` times on each, in turn. */
export async function serveSizes(
  sizes: { packages: number; databaseUrl: string }[],
  settings: LoadSettings & { rounds: number },
  log: (line: string) => void,
): Promise<Map<number, ServeFigures>> {
  const servedBy = commit();
  const instances: Instance[] = [];
  try {
    for (const size of sizes) instances.push(await start(size.packages, size.databaseUrl));
    for (const { id } of scalePaths(0)) {
      for (let round = 1; round <= settings.rounds; round++) {
        for (const instance of instances) {
          const path = instance.paths.find((p) => p.id === id) as Path;
          const scenario = { ...path, id: path.id as Row['id'], label: `${path.label} (${instance.packages})` };
          // A path whose first answer failed (a statement timeout, say) is measured once it answers, if it does.
          const row = await measure(settings, log, instance.target, scenario, instance.database).catch(
            (error: Error) => {
              log(`  ${scenario.label}: ${error.message.slice(0, 200)}; measured again`);
              return measure(settings, log, instance.target, scenario, instance.database);
            },
          );
          instance.peakRssMb = Math.max(instance.peakRssMb, row.peakRssMb);
          const kept = instance.rows.get(id);
          if (!kept || cost(row) < cost(kept))
            instance.rows.set(id, { ...row, errors: row.errors + (kept?.errors ?? 0) });
        }
      }
    }
    const rssAfterWarmUp = new Map(instances.map((i) => [i.packages, sampleRss(i.target.pid).stop()]));
    for (const instance of instances)
      await importFiveRetitled({ DATABASE_URL: instance.databaseUrl, LOG_LEVEL: 'warn' });
    await sleep(3000); // the version watch reads every second
    const figures = new Map<number, ServeFigures>();
    for (const instance of instances) {
      const paths: Record<string, PathFigures> = {};
      for (const path of instance.paths) {
        const afterImport = await timedRequest(instance.target.url, path.request);
        const afterStart = instance.firstAfterStart.get(path.id) as Timed;
        const row = instance.rows.get(path.id) as Row;
        paths[path.id] = {
          requestsPerSecond: row.requestsPerSecond,
          serverCpuMs: row.cpuMsPerRequest,
          databaseCpuMs: row.databaseCpuMsPerRequest ?? 0,
          firstAfterStartMs: afterStart.ms,
          firstAfterImportMs: afterImport.ms,
          ...(afterStart.status === 200 ? {} : { firstAfterStartStatus: afterStart.status }),
          ...(afterImport.status === 200 ? {} : { firstAfterImportStatus: afterImport.status }),
          errors: row.errors,
        };
        const status = (t: Timed) => (t.status === 200 ? '' : ` (${t.status})`);
        log(
          `  ${`${path.label} (${instance.packages})`.padEnd(48)} first ${afterStart.ms.toFixed(0)} ms${status(afterStart)} after a start, ${afterImport.ms.toFixed(0)} ms${status(afterImport)} after an import`,
        );
      }
      const rssAfterWarmUpMb = rssAfterWarmUp.get(instance.packages) ?? 0;
      figures.set(instance.packages, {
        readySeconds: instance.readySeconds,
        paths,
        rssAfterWarmUpMb,
        peakRssMb: Math.max(rssAfterWarmUpMb, instance.peakRssMb),
        date: new Date().toISOString(),
        commit: servedBy,
      });
    }
    return figures;
  } finally {
    for (const instance of instances) {
      await instance.database.close();
      await instance.target.stop();
    }
  }
}
