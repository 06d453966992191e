import { configDefaults, defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // The real-host suite runs on its own: `npm run test:hosts` (vitest.hosts.config.ts).
    // So does the reliability suite: `npm run test:reliability` (vitest.reliability.config.ts).
    exclude: [...configDefaults.exclude, 'test/hosts/**', 'test/reliability/**'],
    // e2e tests spawn real servers and clients; two cores do not like many at once.
    maxWorkers: 2,
    minWorkers: 1,
    // Hang detectors, not speed checks: a test of a dozen CLI runs takes 30 s and more on a
    // loaded 2-core machine (speed is checked against baselines inside the tests).
    testTimeout: 120_000,
    hookTimeout: 120_000,
  },
});
