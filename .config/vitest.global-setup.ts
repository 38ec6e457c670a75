// Before the suite: compile src/ to dist/ as `npm run build` does, so the tests that start real processes run the
// very JavaScript production runs (and never a stale build); and make the migrated template databases the tests
// copy (test/helpers/templates.ts).
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { ensureTemplates } from '../test/helpers/templates.js';

export default async function setup(): Promise<void> {
  const root = fileURLToPath(new URL('..', import.meta.url));
  execFileSync('npm', ['run', '--silent', 'build'], { cwd: root, stdio: 'inherit' });
  await ensureTemplates();
}
