// Demo packages written as the legacy service's v2 pages of 50 (what `npm run import` reads from a directory),
// for the import benches. A directory that holds pages already is reused as it is.
import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { generatePackages } from '../../src/demo/generate.js';
import { renderJson } from '../../src/rest/render.js';

const PAGE = 50;

/** Writes `count` generated packages into `dir` as pages of 50, unless it holds pages already; returns seconds. */
export function writeV2Pages(dir: string, count: number): number {
  if (existsSync(dir) && readdirSync(dir).length > 0) return 0;
  mkdirSync(dir, { recursive: true });
  const started = performance.now();
  let page: unknown[] = [];
  let written = 0;
  const flush = () => {
    const offset = written - page.length;
    const next =
      written < count
        ? `http://legacy.test/v2/local-package-list/?format=api&limit=${PAGE}&offset=${written}&seed=1`
        : null;
    const name = `page-${String(offset / PAGE).padStart(6, '0')}.json`;
    writeFileSync(join(dir, name), renderJson({ count, next, previous: null, results: page }));
    page = [];
  };
  for (const record of generatePackages({ count })) {
    page.push(record);
    written++;
    if (page.length === PAGE) flush();
  }
  if (page.length > 0) flush();
  return (performance.now() - started) / 1000;
}
