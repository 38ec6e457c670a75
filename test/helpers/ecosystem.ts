// The tools of the checks against other projects' software (test/ecosystem/package.json: a federation router and
// composition, relay-compiler, Apollo Client and urql, the Kubernetes API models) are not among the project's
// dependencies: they weigh more than all of those together, and a few tests alone use them. They are pinned in
// test/ecosystem/package-lock.json and installed there when a check first needs them, as CI installs Debian's
// packages: once, by the first test process that asks, while the others wait on its lock. Where they cannot be
// installed (no registry), a check is skipped with one line saying how to install them; under CI=true it fails.
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ECOSYSTEM_DIR = fileURLToPath(new URL('../ecosystem', import.meta.url));
const LOCKFILE = join(ECOSYSTEM_DIR, 'package-lock.json');
// npm writes it last, after every package is in place: its presence, newer than the lock file, means a complete
// install of the pinned versions.
const INSTALLED = join(ECOSYSTEM_DIR, 'node_modules/.package-lock.json');
const BUSY = join(ECOSYSTEM_DIR, '.installing');
const FAILED = join(ECOSYSTEM_DIR, '.install-failed');
const WAIT_MS = 10 * 60_000;
const inCi = process.env.CI === 'true';

const INSTALL_HINT = 'npm run tools:ecosystem';

export interface EcosystemTools {
  /** Whether they are installed: a check that needs them is skipped where they are not. */
  available: boolean;
  /** Imports a module of theirs (typed by the caller: `typeof import('...')`); an empty one where unavailable. */
  load<T>(specifier: string): Promise<T>;
  /** A file inside their node_modules, e.g. `.bin/relay-compiler`. */
  path(relative: string): string;
}

const load = createRequire(import.meta.url)(join(ECOSYSTEM_DIR, 'load.cjs')) as (specifier: string) => Promise<never>;
const path = (relative: string) => join(ECOSYSTEM_DIR, 'node_modules', relative);

function installed(): boolean {
  return existsSync(INSTALLED) && statSync(INSTALLED).mtimeMs >= statSync(LOCKFILE).mtimeMs;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

function holder(): number {
  try {
    return Number(readFileSync(join(BUSY, 'pid'), 'utf8'));
  } catch {
    return 0;
  }
}

/** Takes the install lock (a directory: made atomically), unless a live process holds it. A dead one's is taken. */
function takeLock(): boolean {
  try {
    mkdirSync(BUSY);
  } catch {
    const pid = holder();
    // No pid yet: made an instant ago, by a process about to write it in.
    const fresh = Date.now() - (statSync(BUSY, { throwIfNoEntry: false })?.mtimeMs ?? 0) < 5000;
    if (pid ? alive(pid) : fresh) return false;
    rmSync(BUSY, { recursive: true, force: true });
    return takeLock();
  }
  writeFileSync(join(BUSY, 'pid'), String(process.pid));
  return true;
}

function npmCi(): Promise<void> {
  const args = ['ci', '--prefix', ECOSYSTEM_DIR, '--ignore-scripts', '--no-audit', '--no-fund', '--loglevel=error'];
  return new Promise((resolve, reject) => {
    execFile('npm', args, { timeout: WAIT_MS, maxBuffer: 16 << 20 }, (error, _stdout, stderr) => {
      // npm's own lines that say why (its code, the failed request's reason), not its advice and log path.
      const why = stderr
        .split('\n')
        .map((line) => line.replace(/^npm error ?/, '').trim())
        .filter((line) => /^code |reason: /.test(line));
      if (error) reject(new Error(`npm ci failed: ${why.join('; ') || error.message}`));
      else resolve();
    });
  });
}

/**
 * Installs the pinned tools unless they are there; one process at a time. Rejects with npm's complaint when the
 * install fails, or with the one a concurrent install left, so that a run without a registry tries once.
 */
export async function installEcosystemTools(): Promise<void> {
  const asked = Date.now();
  for (;;) {
    if (installed()) return;
    if (existsSync(FAILED) && statSync(FAILED).mtimeMs >= asked) throw new Error(readFileSync(FAILED, 'utf8'));
    if (takeLock()) break;
    if (Date.now() - asked > WAIT_MS) throw new Error(`another process has been installing them for ${WAIT_MS} ms`);
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  try {
    if (installed()) return;
    rmSync(FAILED, { force: true });
    await npmCi().catch((error: Error) => {
      writeFileSync(FAILED, error.message);
      throw error;
    });
  } finally {
    rmSync(BUSY, { recursive: true, force: true });
  }
}

/**
 * The ecosystem tools for `check`, installed on first need; unavailable where they cannot be (the check is then
 * skipped, with one line saying so). Under CI a failed install throws: a check must not pass by being skipped.
 */
export async function ecosystemTools(check: string): Promise<EcosystemTools> {
  try {
    await installEcosystemTools();
    return { available: true, load, path };
  } catch (error) {
    const reason = `${check} needs the ecosystem tools (test/ecosystem/), which could not be installed`;
    if (inCi) throw new Error(`${reason}: ${(error as Error).message}`);
    console.warn(`${check} skipped: ${reason} (${(error as Error).message}); install them with \`${INSTALL_HINT}\`.`);
    return { available: false, load: async <T>() => ({}) as T, path };
  }
}
