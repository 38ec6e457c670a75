// The builds a bench run serves: the current one (this checkout's dist/, built at the start of the run) and, with
// BENCH_BASELINE=<git ref>, an earlier commit built in a folder of its own outside the repository, so that a
// change's effect is read from one run on one database rather than across days. The baseline's folder
// (BENCH_BASELINE_DIR/listing-bench-baseline-<hash>) is made once per commit from `git archive` (read-only for the
// repository: no worktree is registered) and reused; its node_modules is a link to this checkout's when the two
// package-lock.json are the same, else its own `npm ci --ignore-scripts`; then its own generate, codegen and build
// scripts (the demo data is only for the embedded default, which a baseline does not serve).
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, ROOT, runCommandIn, type ServerProcess, startOptions, startProcess } from './harness.js';

export interface Build {
  role: 'current' | 'baseline';
  /** 'current', or 'baseline <short hash>'. */
  name: string;
  /** Added to the label of each row measured on this build: '' when the run has no baseline. */
  tag: string;
  /** The checkout whose dist/server.js is served. */
  dir: string;
  /** Its npm start's node options, then BENCH_NODE_ARGS. */
  nodeArgs: string[];
}

/** The baseline's commit: its short and full hash and its subject line. */
export interface BaselineCommit {
  short: string;
  hash: string;
  subject: string;
}

const git = (args: string[]) =>
  execFileSync('git', ['--no-optional-locks', ...args], { cwd: ROOT, encoding: 'utf8', stdio: 'pipe' }).trim();

/** The commit a ref names; throws with git's message when it names none. */
export function resolveBaseline(ref: string): BaselineCommit {
  let hash: string;
  try {
    hash = git(['rev-parse', '--verify', '--end-of-options', `${ref}^{commit}`]);
  } catch {
    throw new Error(`BENCH_BASELINE: ${ref} names no commit of this repository`);
  }
  return { hash, short: git(['rev-parse', '--short', hash]), subject: git(['log', '-1', '--format=%s', hash]) };
}

/** Writes the commit's tree into `dir` (git archive | tar -x). */
function extract(hash: string, dir: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const archive = spawn('git', ['archive', '--format=tar', hash], {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const tar = spawn('tar', ['-x', '-C', dir], { stdio: ['pipe', 'inherit', 'inherit'] });
    archive.stdout.pipe(tar.stdin);
    let pending = 2;
    const done = (what: string) => (code: number | null) => {
      if (code !== 0) return reject(new Error(`${what} exited with ${code} while extracting ${hash}`));
      if (--pending === 0) resolve();
    };
    archive.on('error', reject).on('exit', done('git archive'));
    tar.on('error', reject).on('exit', done('tar -x'));
  });
}

const read = (dir: string, file: string) => readFileSync(join(dir, file), 'utf8');
const sameLock = (dir: string) => read(dir, 'package-lock.json') === read(ROOT, 'package-lock.json');

/** Whether a folder made earlier can serve: built, and its linked node_modules still the ones it was built with. */
function reusable(dir: string): boolean {
  if (!existsSync(join(dir, 'dist/server.js'))) return false;
  return !lstatSync(join(dir, 'node_modules')).isSymbolicLink() || sameLock(dir);
}

/** Both builds must serve one database: the same migrations and the same read-model format. */
function checkCompatible(dir: string, short: string): void {
  const migrations = (root: string) => readdirSync(join(root, 'prisma/migrations')).sort().join(', ');
  if (migrations(dir) !== migrations(ROOT)) {
    throw new Error(
      `BENCH_BASELINE: ${short} has other migrations than the current build (${migrations(dir)} against ${migrations(ROOT)}); both must serve the same database`,
    );
  }
  const formatFile = 'src/db/write/read-model.ts';
  const format = (root: string) =>
    existsSync(join(root, formatFile)) ? /READ_MODEL_FORMAT = (\d+)/.exec(read(root, formatFile))?.[1] : undefined;
  if (format(dir) !== format(ROOT)) {
    throw new Error(
      `BENCH_BASELINE: ${short} keeps the read model in format ${format(dir)}, the current build in ${format(ROOT)}: each start would rebuild it for itself`,
    );
  }
}

/** The baseline's checkout, built (made now, or the one made by an earlier run). */
async function baselineDir(commit: BaselineCommit, log: (line: string) => void): Promise<string> {
  const parent = process.env.BENCH_BASELINE_DIR || tmpdir();
  const dir = join(parent, `listing-bench-baseline-${commit.hash.slice(0, 12)}`);
  if (existsSync(dir) && reusable(dir)) {
    log(`baseline: ${commit.short} built in ${dir} (made by an earlier run)`);
    return dir;
  }
  rmSync(dir, { recursive: true, force: true });
  const partial = `${dir}.partial-${process.pid}`;
  rmSync(partial, { recursive: true, force: true });
  mkdirSync(partial, { recursive: true });
  log(`baseline: building ${commit.short} (${commit.subject}) in ${dir} (once per commit)`);
  try {
    await extract(commit.hash, partial);
    if (sameLock(partial)) {
      symlinkSync(join(ROOT, 'node_modules'), join(partial, 'node_modules'), 'dir');
    } else {
      log('baseline: its package-lock.json differs from the current one: npm ci --ignore-scripts');
      await runCommandIn(partial, 'npm', ['ci', '--ignore-scripts', '--no-audit', '--no-fund'], {});
    }
    // What its npm install would run (postinstall), up to the build; the demo data serves only PGlite.
    const { scripts } = JSON.parse(read(partial, 'package.json')) as { scripts: Record<string, string> };
    for (const script of ['generate', 'codegen', 'build'].filter((name) => scripts[name])) {
      await runCommandIn(partial, 'npm', ['run', '--silent', script], {});
    }
    renameSync(partial, dir);
  } catch (error) {
    rmSync(partial, { recursive: true, force: true });
    throw error;
  }
  return dir;
}

/** The current build, and before it the baseline when BENCH_BASELINE names one: the order they are measured in. */
export async function chosenBuilds(
  baseline: BaselineCommit | undefined,
  extraNodeArgs: string[],
  log: (line: string) => void,
): Promise<Build[]> {
  const current: Build = {
    role: 'current',
    name: 'current',
    tag: baseline ? ' (current)' : '',
    dir: ROOT,
    nodeArgs: [...startOptions(), ...extraNodeArgs],
  };
  if (!baseline) return [current];
  const dir = await baselineDir(baseline, log);
  checkCompatible(dir, baseline.short);
  const name = `baseline ${baseline.short}`;
  const build: Build = {
    role: 'baseline',
    name,
    tag: ` (${name})`,
    dir,
    nodeArgs: [...startOptions(dir), ...extraNodeArgs],
  };
  return [build, current];
}

/** Starts a build's server (`node dist/server.js` in its checkout, as its npm start runs it) on a free port. */
export async function startBuild(build: Build, env: Record<string, string>): Promise<ServerProcess> {
  const port = await freePort();
  return startProcess(
    join(build.dir, 'dist/server.js'),
    { ...env, PORT: String(port) },
    `http://127.0.0.1:${port}`,
    build.nodeArgs,
    build.dir,
  );
}
