import { defineConfig } from 'vitest/config';

// Node-side tests. Browser tests drive real Chromium through playwright-core
// from inside these same test files, so one runner reports everything.
export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/global-setup.ts'],
    // 5 min: a bound, not a speed check (speed is npm run bench). On two cores with both workers
    // busy, a four-build merge test took 119.6 s of the former 120 s limit.
    testTimeout: 300_000,
    hookTimeout: 300_000,
    pool: 'forks',
    // Two cores: more workers only fight over them.
    maxWorkers: 2,
  },
});
