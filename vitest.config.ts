import { defineConfig } from 'vitest/config';

// Workspace packages export their TypeScript sources under the 'ferry-source' condition, so tests
// run against src/ without a build step. Tests run server-side, so the server conditions apply;
// 'module' is left out on purpose: it picks packages' untranspiled ESM builds (the AWS SDK's
// dist-es) that Node cannot load.
export default defineConfig({
  ssr: { resolve: { conditions: ['ferry-source', 'node', 'development|production'] } },
  test: {
    include: [
      'packages/*/test/**/*.test.ts',
      'examples/*/test/**/*.test.ts',
      'apps/*/test/**/*.test.ts',
      // The repository's own scripts (npm test's prerequisites) and documentation checks.
      'scripts/test/**/*.test.ts',
    ],
    // Type tests (*.test-d.ts: expectTypeOf) are compiled by tsc as part of the run, so a type
    // that drifts from its contract fails npm test, not only npm run lint.
    typecheck: {
      enabled: true,
      include: ['packages/*/test/**/*.test-d.ts', 'apps/*/test/**/*.test-d.ts'],
      tsconfig: 'tsconfig.json',
    },
    // The example servers are built first (the tests run them as ferry.config.json does).
    globalSetup: ['scripts/vitest-global-setup.mjs'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
