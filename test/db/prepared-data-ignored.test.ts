// The prepared demo database is made beside the code that runs (src/db/prepared-data.ts): under src/ for a run from
// source (`npm run dev`, the tests), under dist/ for the build. Neither is ever committed, so both are ignored by
// git, and a developer's tree stays clean after a run.
import { spawnSync } from 'node:child_process';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { PREPARED_DATA } from '../../src/db/prepared-data.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
// Where the prepared data is, relative to the code root: the same under src/ and dist/.
const besideCode = relative(join(ROOT, 'src'), PREPARED_DATA);

describe('the prepared demo database', () => {
  it.each([
    ['a run from source', PREPARED_DATA],
    ['the build', join(ROOT, 'dist', besideCode)],
  ])('is ignored by git for %s', (_, root) => {
    const checked = spawnSync('git', ['check-ignore', '-q', join(root, 'manifest')], { cwd: ROOT, encoding: 'utf8' });
    expect(checked.stderr).toBe('');
    expect(checked.status, `${relative(ROOT, root)} is not ignored by git`).toBe(0);
  });
});
