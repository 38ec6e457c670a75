// `npm run test:containers`: the image built from the Dockerfile and run under podman, the fleet of
// deploy/compose.yaml, and deploy/kubernetes/ played by podman (test/containers/). One file at a time: they share
// the images, the machine's two cores and port 8080. The global setup makes the stand-in base images and the image.
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  root: fileURLToPath(new URL('..', import.meta.url)),
  test: {
    include: ['test/containers/**/*.test.ts'],
    globalSetup: ['test/containers/setup.ts'],
    testTimeout: 300_000,
    hookTimeout: 900_000,
    pool: 'forks',
    maxWorkers: 1,
    fileParallelism: false,
  },
});
