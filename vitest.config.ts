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
    // Two cores on CI; the CLI runs in-process, so a worker per core keeps both busy.
    maxWorkers: 2,
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
