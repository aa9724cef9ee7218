import { defineConfig } from 'vitest/config';

/** Test files that replace modules (vi.mock): each runs in a fresh module registry. */
const ISOLATED = ['test/unit/cli/program.test.ts'];

export default defineConfig({
  test: {
    globalSetup: ['test/helpers/global-setup.ts'],
    reporters: ['default', './test/helpers/summary-reporter.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
    // Transformed sources are kept in node_modules/.experimental-vitest-cache,
    // keyed by their content: a second run transforms only what changed (about
    // 8 s of the run's CPU time less, summed over the workers).
    experimental: { fsModuleCache: true },
    // Two cores on CI. Most tests run the CLI in-process, but some wait on
    // child processes (concurrent logins, serve, the keyring session): a third
    // worker keeps both cores busy meanwhile (27-28 s against 30-31 s with two).
    maxWorkers: 3,
    projects: [
      { extends: true, test: { name: 'isolated', include: ISOLATED } },
      {
        extends: true,
        test: {
          name: 'shared',
          include: ['test/unit/**/*.test.ts', 'test/e2e/**/*.test.ts'],
          exclude: ISOLATED,
          // The other files share their worker's loaded modules: each file
          // would otherwise load and transform the same sources again (about
          // 40% of the suite's CPU time).
          isolate: false,
        },
      },
    ],
  },
});
