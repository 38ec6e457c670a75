// The configuration doc's promise about the npm scripts (src/config-docs.ts READS_SETTINGS, READS_NO_SETTINGS):
// every compiled tool that reads the settings stops on a wrong value with the start's one line and exit code 1
// before it does anything; the ones that read none run as usual; every script that runs a tool is in one list.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { READS_NO_SETTINGS, READS_SETTINGS } from '../../src/config-docs.js';
import { runScript } from '../helpers/server-process.js';
import { ROOT } from './doc-examples.js';

const scripts = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).scripts as Record<string, string>;
const LINE = 'invalid configuration: PORT="abc" must be a whole number from 0 to 65535';
/** The compiled program an npm script runs, if it runs one. */
const programOf = (script: string) => /node (?:--\S+ )*dist\/(\S+)\.js/.exec(scripts[script] ?? '')?.[1];
const ARGS: Record<string, string[]> = {
  'api-key': ['--name', 'x'],
  import: ['--dry-run', 'README.md'],
  'check:v2': ['--help'],
};

describe('a wrong setting and the npm scripts', () => {
  it('lists every script that runs a tool of the project as reading the settings or not', () => {
    // `build` runs the compiler and writes the build's fingerprint: no tool of the product.
    const tools = Object.keys(scripts)
      .filter((name) => name !== 'build')
      .filter((name) => programOf(name) || /tsx (?:watch \S+ )?src\//.test(scripts[name] ?? ''));
    expect(tools.filter((name) => !READS_SETTINGS.includes(name) && !READS_NO_SETTINGS.includes(name))).toEqual([]);
    for (const name of [...READS_SETTINGS, ...READS_NO_SETTINGS]) expect(scripts[name], name).toBeDefined();
  });

  it.each(READS_SETTINGS.filter((name) => programOf(name)))('%s stops with one line and exit code 1', async (name) => {
    const { code, stdout, stderr } = await runScript(`src/${programOf(name)}.ts`, { PORT: 'abc' }, ARGS[name] ?? []);
    expect(code).toBe(1);
    const lines = `${stdout}${stderr}`.trim().split('\n');
    expect(lines).toHaveLength(1);
    const line = lines[0] as string;
    expect(line.startsWith('{') ? (JSON.parse(line) as { msg: string }).msg : line).toContain(LINE);
  });

  // db:demo-data makes the whole demo database: test/server/prepared-data.test.ts runs it with these wrong values.
  it.each(READS_NO_SETTINGS.filter((name) => programOf(name) && name !== 'check:v2' && name !== 'db:demo-data'))(
    '%s reads no setting: a wrong one does not stop it',
    async (name) => {
      const { code } = await runScript(
        `src/${programOf(name)}.ts`,
        { PORT: 'abc', API_KEYS: 'broken' },
        ARGS[name] ?? [],
      );
      expect(code).toBe(0);
    },
  );
});
