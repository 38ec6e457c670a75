import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { configDefaults, defineConfig } from 'vitest/config';

const require = createRequire(import.meta.url);

export default defineConfig({
  root: fileURLToPath(new URL('..', import.meta.url)),
  resolve: {
    // graphql ships CommonJS and ESM builds; the libraries (Pothos, yoga) load the CommonJS one in Node, so
    // the code under test must too, or graphql's instanceof checks see two "graphql" modules.
    alias: [{ find: /^graphql$/, replacement: require.resolve('graphql') }],
  },
  test: {
    include: ['test/**/*.test.ts'],
    // The image, the fleet and the manifests in real containers: `npm run test:containers`, its own run.
    exclude: [...configDefaults.exclude, 'test/containers/**'],
    globalSetup: ['.config/vitest.global-setup.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    // Each test file works on its own copy of a template database; files run in parallel workers. More workers
    // than cores: much of a test's time is spent waiting for the processes and servers it starts.
    pool: 'forks',
    maxWorkers: 3,
  },
});
