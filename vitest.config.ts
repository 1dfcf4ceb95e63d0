import { defineConfig } from 'vitest/config';
import { testFilesByTier } from './test/tiers.ts';

// Node-side tests in three tiers (test/tiers.ts). Browser tests drive real Chromium through
// playwright-core from inside their test files, so one runner reports everything.
const tiers = testFilesByTier(import.meta.dirname);

const bounds = {
  // 5 min: a bound, not a speed check (speed is npm run bench). On two cores with both workers
  // busy, a four-build merge test took 119.6 s of the former 120 s limit.
  testTimeout: 300_000,
  hookTimeout: 300_000,
  // These tiers start real servers, builds and Chromium on two cores, and some tests wait on the
  // clock (a retry's back-off, a kill after a moment). A test that fails once and passes on its
  // second run is reported by name with its first failure (.ci/run prints them); one that fails
  // twice fails the run. Unit tests are pure and get no second run.
  retry: 1,
};

export default defineConfig({
  test: {
    pool: 'forks',
    // Two cores: more workers only fight over them.
    maxWorkers: 2,
    projects: [
      // No global setup: nothing is built before these run.
      { test: { name: 'unit', include: tiers.unit, testTimeout: 30_000, pool: 'forks' } },
      {
        test: {
          name: 'integration',
          include: tiers.integration,
          globalSetup: ['test/global-setup.ts'],
          ...bounds,
          pool: 'forks',
        },
      },
      {
        test: {
          name: 'browser',
          include: tiers.browser,
          globalSetup: ['test/global-setup.ts'],
          ...bounds,
          pool: 'forks',
        },
      },
    ],
  },
});
