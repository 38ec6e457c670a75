// Figures the docs state that come from one source each, and the rule that the docs stand alone: the query costs
// of security.md (priced by the same code that refuses operations), the first start's figure (bench/first-start.json,
// which `npm run bench:first-start` writes), the listing sizes' tables and chart (bench/scale.json, which
// `npm run bench:scale` writes), and no guide sending the reader outside the repository.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { type DocumentNode, Kind, parse } from 'graphql';
import { describe, expect, it } from 'vitest';
import { firstStartFigure, firstStartRecord } from '../../bench/first-start-figure.js';
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
