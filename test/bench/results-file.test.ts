// bench/results.md holds two writers' sections: `npm run bench`'s runs, newest first and the last ten kept, and
// `npm run bench:storefront`'s own section, kept at the end. Each writer replaces only what is its own.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { STOREFRONT_HEADING, writeResults, writeStorefrontResults } from '../../bench/report.js';
import { tempDir } from '../helpers/temp-dir.js';

const dir = tempDir('bench-results-');
afterAll(() => dir.remove());
const headings = () =>
  readFileSync(join(dir.path, 'results.md'), 'utf8')
    .split('\n')
    .filter((line) => line.startsWith('## '));

describe('bench/results.md', () => {
  it("keeps the storefront's section last through the runs, and the runs through the storefront's", () => {
    writeStorefrontResults(dir.path, `${STOREFRONT_HEADING}, first\n\nfigures`);
    for (let run = 1; run <= 12; run++) writeResults(dir.path, `## run ${run}\n\nfigures`);
    expect(headings()).toEqual([
      ...Array.from({ length: 10 }, (_, i) => `## run ${12 - i}`),
      `${STOREFRONT_HEADING}, first`,
    ]);
    writeStorefrontResults(dir.path, `${STOREFRONT_HEADING}, second\n\nfigures`);
    expect(headings()).toEqual([
      ...Array.from({ length: 10 }, (_, i) => `## run ${12 - i}`),
      `${STOREFRONT_HEADING}, second`,
    ]);
    expect(readFileSync(join(dir.path, 'results.md'), 'utf8')).toMatch(/^# Benchmark results\n/);
  });
});
