// npm run schema:check as CI runs it: it passes on this tree, fails on a field the code no longer has (a schema
// "before" that still has it), passes when that removal is accepted with a reason, and fails on a client document
// that asks for a field the schema does not have.
import { execFile } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { SCHEMA_FILE, schema, schemaText } from '../../src/graphql/schema.js';
import { compareSchemas, invalidDocuments } from '../../src/graphql/schema-changes.js';
import { tempDir } from '../import/helpers.js';

const run = promisify(execFile);
const dir = tempDir('schema-check-');
afterAll(() => dir.remove());

/** The committed schema with one more field on Package: the code "removed" it. */
function schemaWithExtraField(): string {
  const text = readFileSync(SCHEMA_FILE, 'utf8');
  const withField = text.replace(/^(type Package\b[^{\n]*\{\n)/m, '$1  legacyRating: Int\n');
  expect(withField).not.toBe(text);
  return withField;
}

async function schemaCheck(args: string[]): Promise<{ code: number; output: string }> {
  try {
    const { stdout, stderr } = await run('npx', ['tsx', 'src/cli/schema-check.ts', ...args], { timeout: 60_000 });
    return { code: 0, output: stdout + stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, output: failed.stdout + failed.stderr };
  }
}

describe('npm run schema:check', () => {
  it('passes on this tree: the committed schema, the main branch and the clients agree with the code', async () => {
    const { code, output } = await schemaCheck([]);
    expect(output).toContain('0 breaking');
    expect(code, output).toBe(0);
  }, 60_000);

  it('fails on a removed field, naming it', async () => {
    const before = join(dir.path, 'before.graphql');
    writeFileSync(before, schemaWithExtraField());
    const { code, output } = await schemaCheck(['--against', before]);
    expect(code).toBe(1);
    expect(output).toMatch(/error: breaking against .*: Package\.legacyRating \[FIELD_REMOVED\]/);
  }, 60_000);

  it('lets a removal through when it is accepted with its reason', async () => {
    const change = { type: 'FIELD_REMOVED', path: 'Package.legacyRating', reason: 'no client ever asked for it' };
    const comparison = await compareSchemas(schemaWithExtraField(), schemaText(), [change]);
    expect(comparison.breaking).toEqual([]);
    expect(comparison.accepted.map((a) => [a.change.path, a.reason])).toEqual([
      ['Package.legacyRating', 'no client ever asked for it'],
    ]);
    const unaccepted = await compareSchemas(schemaWithExtraField(), schemaText(), []);
    expect(unaccepted.breaking.map((c) => c.path)).toEqual(['Package.legacyRating']);
  });

  it('finds a client document that asks for a field the schema lacks', () => {
    const problems = invalidDocuments(schema, {
      good: '{ packages(limit: 1) { count } }',
      stale: '{ packages(limit: 1) { results { legacyRating } } }',
      broken: '{ packages(',
    });
    expect(problems).toHaveLength(2);
    expect(problems[0]).toMatch(/^stale: Cannot query field "legacyRating" on type "Package"/);
    expect(problems[1]).toMatch(/^broken: Syntax Error/);
  });
});
