// Measures a large import (not part of the test suite): generates demo packages as legacy v2 pages of 50 and
// imports the directory as one source, sampling memory as it goes.
//
//   DATA_DIR=$(mktemp -d) npx tsx test/import/bench-import.ts --packages 100000
//   DATABASE_URL=postgresql://postgres@127.0.0.1:5432/importbench npx tsx test/import/bench-import.ts --again
//   DATA_DIR=$(mktemp -d) node --expose-gc --import tsx test/import/bench-import.ts   # also the live heap
//
// --pages DIR reuses (or keeps) the generated pages; --again imports them a second time (all unchanged).
// The forced collections at each 10% mark (with --expose-gc) cost a little time; leave them out for timing.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { writeV2Pages } from '../../bench/scale/v2-pages.js';
import { loadConfig } from '../../src/config.js';
import { openDatabase } from '../../src/db/client.js';
import { migrate } from '../../src/db/migrate.js';
import { importSource, type SourceReport } from '../../src/import/importer.js';
import { openSources } from '../../src/import/sources.js';

const { values } = parseArgs({
  options: {
    packages: { type: 'string', default: '100000' },
    pages: { type: 'string' },
    again: { type: 'boolean', default: false },
  },
});
const count = Number(values.packages);
const pagesDir = values.pages ?? mkdtempSync(join(tmpdir(), 'import-bench-pages-'));
const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(0)} MB`;

const generated = writeV2Pages(pagesDir, count);
if (generated > 0) console.log(`generated ${count} packages as pages in ${pagesDir} in ${generated.toFixed(1)} s`);

const config = loadConfig();
const db = await openDatabase(config.database);
await migrate(db);

async function run(label: string): Promise<SourceReport> {
  const [source] = await openSources([pagesDir]);
  if (!source) throw new Error('no source');
  let peakRss = 0;
  let peakHeap = 0;
  let nextMark = 0.1;
  const started = performance.now();
  const sample = () => {
    const m = process.memoryUsage();
    peakRss = Math.max(peakRss, m.rss);
    peakHeap = Math.max(peakHeap, m.heapUsed);
    return m;
  };
  const timer = setInterval(sample, 250);
  const report = await importSource(db, source, {
    onProgress: (r) => {
      if (r.counts.read < nextMark * count) return;
      nextMark += 0.1;
      const m = sample();
      // With --expose-gc, the heap that is live (not garbage awaiting collection).
      const gc = (globalThis as { gc?: () => void }).gc;
      gc?.();
      const live = gc ? `  live heap ${mb(process.memoryUsage().heapUsed)}` : '';
      const s = (performance.now() - started) / 1000;
      console.log(
        `  ${label}: ${String(r.counts.read).padStart(7)} records ${s.toFixed(1).padStart(6)} s  rss ${mb(m.rss)}  heap ${mb(m.heapUsed)}${live}`,
      );
    },
  });
  clearInterval(timer);
  sample();
  const seconds = (performance.now() - started) / 1000;
  console.log(
    `${label} on ${db.kind}: ${report.status}, ${JSON.stringify(report.counts)} in ${seconds.toFixed(1)} s ` +
      `(${Math.round(report.counts.read / seconds)} records/s)${report.error ? ` (${report.error})` : ''}; peak rss ${mb(peakRss)}, peak heap ${mb(peakHeap)}, ` +
      `process max rss ${mb(process.resourceUsage().maxRSS * 1024)}`,
  );
  return report;
}

try {
  await run('import');
  if (values.again) await run('re-import');
} finally {
  await db.close();
  if (!values.pages) rmSync(pagesDir, { recursive: true, force: true });
}
process.exit();
