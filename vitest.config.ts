import { defineConfig } from 'vitest/config';

// Node-side tests. Browser tests drive real Chromium through playwright-core
// from inside these same test files, so one runner reports everything.
export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/global-setup.ts'],
    testTimeout: 120_000,
    hookTimeout: 300_000,
    pool: 'forks',
    // Two cores: more workers only fight over them.
    maxWorkers: 2,
  },
});
