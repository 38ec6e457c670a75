// Before the container tests: podman must be there (`.ci/run` installs it), the stand-in base images are made
// when missing (test/containers/stand-ins/build.sh: debootstrap and the npm registry, tagged with the official
// names), and the image is built from the Dockerfile as a user builds it, in Docker's format (for HEALTHCHECK).
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { CONTRACT_CHECKER, IMAGE, note, podman, ROOT, removeLeftovers } from './podman.js';

const NODE_BASE = 'docker.io/library/node:24-bookworm-slim';

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
  timed(`podman build ${IMAGE}`, () =>
    execFileSync('podman', ['build', '--format', 'docker', '-q', '-t', IMAGE, ROOT], {
      stdio: ['ignore', 'ignore', 'inherit'],
      timeout: 1_800_000,
    }),
  );
  const size = (image: string) => Number(podman(['image', 'inspect', '--format', '{{.Size}}', image]));
  const mb = (bytes: number) => Math.round(bytes / 1e6);
  note(`image ${mb(size(IMAGE))} MB, of which ${mb(size(IMAGE) - size(NODE_BASE))} MB above ${NODE_BASE}`);
}
