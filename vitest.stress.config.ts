import { defineConfig } from 'vitest/config';

/** `npm run test:stress`: the stress tests of local state (each under a minute), apart from `npm test`. */
export default defineConfig({
  test: {
    globalSetup: ['test/helpers/global-setup.ts'],
    include: ['test/stress/**/*.test.ts'],
    testTimeout: 120_000,
    hookTimeout: 30_000,
    pool: 'forks',
    maxWorkers: 1,
  },
});
