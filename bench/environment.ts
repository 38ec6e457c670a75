// Where a bench run ran, for its section in bench/results.md: the machine, the versions, the commit.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { ROOT } from './harness.js';
import type { Engine } from './report.js';

/** The machine the bench runs on: CPUs, memory, kernel, load at the start. */
export function machine(): string {
  const cpu = /^model name\s*:\s*(.+)$/m.exec(readFileSync('/proc/cpuinfo', 'utf8'))?.[1] ?? os.cpus()[0]?.model;
  const gib = (os.totalmem() / 2 ** 30).toFixed(1);
  const load = os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');
  return `${os.availableParallelism()} CPUs (${cpu}), ${gib} GiB RAM, ${os.type()} ${os.release()}; load average at start ${load}`;
}

/** Node, the engines and the packages that matter for the figures. */
export function versions(engineVersions: Map<Engine, string>): string {
  const packageVersion = (name: string) =>
    (JSON.parse(readFileSync(join(ROOT, 'node_modules', name, 'package.json'), 'utf8')) as { version: string }).version;
  const engines = [...engineVersions.values()];
  const packages = [
    'graphql',
    'graphql-yoga',
    'graphql-jit',
    '@pothos/core',
    '@prisma/client',
    'pg',
    'dataloader',
    'autocannon',
  ].filter((name) => existsSync(join(ROOT, 'node_modules', name, 'package.json')));
  return [`Node ${process.version}`, ...engines, ...packages.map((name) => `${name} ${packageVersion(name)}`)].join(
    ', ',
  );
}

/** HEAD, and whether the served code differs from it (read-only git: no optional locks, nothing written). */
export function commit(): string {
  const git = (args: string[]) =>
    execFileSync('git', ['--no-optional-locks', ...args], { cwd: ROOT, encoding: 'utf8', stdio: 'pipe' });
  try {
    const head = git(['rev-parse', '--short', 'HEAD']).trim();
    try {
      git(['diff', '--quiet', 'HEAD', '--', 'src', 'prisma', 'package.json']);
      return head;
    } catch {
      return `${head} with uncommitted changes in src/, prisma/ or package.json`;
    }
  } catch {
    return 'unknown';
  }
}
