import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

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
    testTimeout: 60_000,
    hookTimeout: 120_000,
    // Each test file builds its own database; files run in parallel workers.
    pool: 'forks',
  },
});
