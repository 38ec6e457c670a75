// Figures the docs state that come from one source each, and the rule that the docs stand alone: the query costs
// of security.md (priced by the same code that refuses operations), the README's performance table (made from the
// results files by bench/readme-figures.ts), the first start's figure (bench/first-start.json,
// which `npm run bench:first-start` writes), the listing sizes' tables and chart (bench/scale.json, which
// `npm run bench:scale` writes), and no guide sending the reader outside the repository.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { type DocumentNode, Kind, parse } from 'graphql';
import { describe, expect, it } from 'vitest';
import { firstStartFigure, firstStartRecord } from '../../bench/first-start-figure.js';
import { newestPostgresRun, readmePerformanceRows } from '../../bench/readme-figures.js';
import { readScaleRecord } from '../../bench/scale/record.js';
import { CHART_FILE, documentedScaleSection, scaleChart, scaleSection } from '../../bench/scale/report.js';
import { FullPageDocument } from '../../src/generated/graphql/graphql.js';
import { measureOperation } from '../../src/graphql/limits.js';
import { schema } from '../../src/graphql/schema.js';
import { guideFiles, ROOT } from './doc-examples.js';

const read = (file: string) => readFileSync(join(ROOT, file), 'utf8').replace(/\s+/g, ' ');
const thousands = (n: number) => n.toLocaleString('en-US');
const cost = (document: DocumentNode, name: string, limit: number) =>
  measureOperation({ schema, document }, name, { limit, offset: 0, seed: 7 })?.cost as number;

describe('figures the docs state', () => {
  it("security.md's query costs are what the limits measure (the refusal reports the same)", () => {
    const v2 = parse(readFileSync(join(ROOT, 'src/rest/listing-page.graphql'), 'utf8'));
    const v2Page = cost(v2, 'V2ListingPageFromFields', 100);
    const fullPage = cost(FullPageDocument as unknown as DocumentNode, 'FullPage', 50);
    expect(v2Page).toBeGreaterThan(1000);
    expect(read('docs/security.md')).toContain(
      `(\`V2ListingPageFromFields\`) costs ${thousands(v2Page)}; a page of 50 with every field (\`FullPage\`) ${thousands(fullPage)}.`,
    );
    expect(v2.definitions.some((d) => d.kind === Kind.OPERATION_DEFINITION)).toBe(true);
  });

  it("the first start's figure in the README and benchmarks.md is bench/first-start.json's", () => {
    const record = firstStartRecord();
    expect(record.seconds.length).toBeGreaterThan(0);
    expect(record.load).toHaveLength(record.seconds.length);
    const figure = firstStartFigure(record);
    expect(read('README.md')).toContain(`| \`npm start\` on a fresh clone | ${figure}:`);
    expect(read('docs/benchmarks.md')).toContain(`was ${figure} (\`npm run bench:first-start\``);
  });

  it("the README's performance table is the results files' (results.md's newest run, scale.json, first-start.json)", () => {
    const rows = readmePerformanceRows();
    expect(rows.length).toBeGreaterThanOrEqual(8);
    expect(read('README.md')).toContain(`|---|---| ${rows.join(' ')} ## Where to read on`);
  });

  it('reads the newest run of bench/results.md, and names a row it cannot find', () => {
    const table = (label: string, rps: string) =>
      `| ${label} | ${rps} | 100% | 1 | 2 | 0 | 1.00 | 0.125 | 0.020 | 150 |`;
    const results = [
      '# Benchmark results',
      '## 2026-11-28 11:00 UTC, commit aaaaaaa',
      '### PostgreSQL',
      table('GraphQL GET 24 cards, filter matching ~90%, from the cache', '5,000.0'),
      table('hit limit: node:http writing the same answer from memory', '8,000.0'),
      "The server's lifetime peak RSS (VmHWM) was 231 MB.",
      '### PGlite (embedded)',
      table('GraphQL GET 24 cards, filter matching ~90%, from the cache', '9.0'),
      '## 2026-11-27 19:21 UTC, commit bbbbbbb',
      '### PostgreSQL',
      table('REST v2 first page (limit 50)', '1.0'),
    ].join('\n');
    const run = newestPostgresRun(results);
    expect(run.heading).toBe('2026-11-28 11:00 UTC, commit aaaaaaa');
    expect(run.rows.map((r) => [r.label, r.requestsPerSecond, r.cpuMs])).toEqual([
      ['GraphQL GET 24 cards, filter matching ~90%, from the cache', 5000, 0.125],
      ['hit limit: node:http writing the same answer from memory', 8000, 0.125],
    ]);
    expect(run.highWaterMb).toBe(231);
    expect(() => readmePerformanceRows(run, null)).toThrow('has no row "REST v2 first page (limit 50)"');
  });

  it("benchmarks.md's listing sizes and docs/scale.svg are bench/scale.json's", () => {
    const record = readScaleRecord();
    expect(record?.sizes.length).toBeGreaterThanOrEqual(3);
    const section = scaleSection(record as NonNullable<typeof record>);
    expect(section).toContain('1,000,000');
    expect(documentedScaleSection()).toBe(section);
    expect(readFileSync(CHART_FILE, 'utf8')).toBe(scaleChart(record as NonNullable<typeof record>));
  });

  it('sends the reader nowhere outside the repository (no ../shared)', () => {
    for (const file of guideFiles()) expect(readFileSync(join(ROOT, file), 'utf8'), file).not.toContain('../shared');
  });
});
