// Before the container tests: podman must be there (`.ci/run` installs it), the stand-in base images are made
// when missing (test/containers/stand-ins/build.sh: debootstrap and the npm registry, tagged with the official
// names), and both images are built from the Dockerfile as a user builds them, in Docker's format (for
// HEALTHCHECK): the default (production) target and the demo target, with the commit as SOURCE_COMMIT.
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import {
  CONTRACT_CHECKER,
  DEMO_IMAGE,
  IMAGE,
  imageBytes,
  mbAboveBase,
  NODE_BASE,
  note,
  podman,
  ROOT,
  removeLeftovers,
  sourceCommit,
} from './podman.js';

function timed<T>(what: string, work: () => T): T {
  const started = Date.now();
  const result = work();
  note(`${what}: ${Math.round((Date.now() - started) / 1000)} s`);
  return result;
}

export default function setup(): void {
  try {
    podman(['--version']);
  } catch {
    throw new Error('podman is not installed: apt-get install podman runc (see docs/development.md, "Containers")');
  }
  if (!existsSync(CONTRACT_CHECKER)) throw new Error(`the v2 contract checker is missing: ${CONTRACT_CHECKER}`);
  removeLeftovers();
  timed('stand-in base images', () =>
    execFileSync(join(ROOT, 'test/containers/stand-ins/build.sh'), { stdio: 'inherit', timeout: 1_800_000 }),
  );
  const commit = sourceCommit();
  const build = (image: string, target: string[]) =>
    timed(`podman build ${target.join(' ')} ${image}`, () =>
      execFileSync(
        'podman',
        [
          'build',
          '--format',
          'docker',
          '-q',
          ...(commit ? ['--build-arg', `SOURCE_COMMIT=${commit}`] : []),
          ...target,
          '-t',
          image,
          ROOT,
        ],
        { stdio: ['ignore', 'ignore', 'inherit'], timeout: 1_800_000 },
      ),
    );
  build(IMAGE, []);
  build(DEMO_IMAGE, ['--target', 'demo']);
  for (const image of [IMAGE, DEMO_IMAGE]) {
    note(`image ${image}: ${Math.round(imageBytes(image) / 1e6)} MB, ${mbAboveBase(image)} MB above ${NODE_BASE}`);
  }
}
