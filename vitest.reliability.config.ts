import { defineConfig } from 'vitest/config';

// `npm run test:reliability`: the R-suite (test/reliability/), tried as an attacker and as a
// crashing machine would; prints a table of areas, cases, failures and figures at the end.
// FIRSTLIGHT_CLI=<path to dist/cli/main.js> runs it against another build.
export default defineConfig({
  test: {
    include: ['test/reliability/**/*.test.ts'],
    maxWorkers: 2,
    minWorkers: 1,
    testTimeout: 60_000,
    hookTimeout: 60_000,
    reporters: ['default', './test/reliability/table-reporter.ts'],
  },
});
