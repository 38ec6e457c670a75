// What is running, for operators: the package's version (package.json beside the compiled code), the commit it was
// built from, and the Node.js that runs it; /metrics has it as build_info, /healthz and the start line name it.
// The image has no .git, so the commit is written at build time beside the build's fingerprint (`npm run build`:
// src/cli/fingerprint.ts), from SOURCE_COMMIT when the build is given one (a CI's commit, `docker build
// --build-arg`), else from the checkout's `git rev-parse HEAD`; a build that had neither says "unknown". Run from
// source (tests, `npm run dev`), the checkout's HEAD is read at the first ask.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CODE_ROOT, FINGERPRINT_FILE } from './build-fingerprint.js';

export interface BuildInfo {
  /** package.json's version. */
  version: string;
  /** The commit the build was made from, or "unknown". */
  commit: string;
  /** The Node.js version (process.version, as `v24.11.0`). */
  node: string;
}

export const UNKNOWN = 'unknown';

/** A commit as a label may carry it: a hash or a tag's few safe characters; anything else is unknown. */
const COMMIT = /^[0-9A-Za-z._-]{1,64}$/;

const asCommit = (text: string | undefined): string | undefined => {
  const trimmed = text?.trim();
  return trimmed && COMMIT.test(trimmed) ? trimmed : undefined;
};

/** The commit of the checkout at `root`, or undefined where there is none (no .git, no git). */
function checkoutCommit(root: string): string | undefined {
  try {
    const head = execFileSync('git', ['rev-parse', '--verify', 'HEAD'], {
      cwd: root,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
      timeout: 5000,
    });
    return asCommit(head);
  } catch {
    return undefined;
  }
}

/** The commit a build at `codeRoot` is made from: SOURCE_COMMIT, else its checkout's HEAD, else "unknown". */
export function commitAtBuild(codeRoot: string, env: NodeJS.ProcessEnv = process.env): string {
  return asCommit(env.SOURCE_COMMIT) ?? checkoutCommit(join(codeRoot, '..')) ?? UNKNOWN;
}

function packageVersion(): string {
  try {
    const { version } = JSON.parse(readFileSync(join(CODE_ROOT, '..', 'package.json'), 'utf8')) as {
      version?: unknown;
    };
    return typeof version === 'string' ? version : UNKNOWN;
  } catch {
    return UNKNOWN;
  }
}

/** The commit written at build time; read from the checkout when run from source (no file beside the code). */
function runningCommit(): string {
  const written = join(CODE_ROOT, FINGERPRINT_FILE);
  if (!existsSync(written)) return checkoutCommit(join(CODE_ROOT, '..')) ?? UNKNOWN;
  try {
    return asCommit((JSON.parse(readFileSync(written, 'utf8')) as { commit?: string }).commit) ?? UNKNOWN;
  } catch {
    return UNKNOWN;
  }
}

let known: BuildInfo | undefined;

/** This process's build, read once. */
export function buildInfo(): BuildInfo {
  known ??= { version: packageVersion(), commit: runningCommit(), node: process.version };
  return known;
}
