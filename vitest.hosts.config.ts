import { defineConfig } from 'vitest/config';

// `npm run test:hosts`: the real host CLIs against the scripted model (test/hosts/). Kept out of
// `npm test`: it installs the pinned hosts on first use (about 900 MB) and runs them one by one.
export default defineConfig({
  test: {
    include: ['test/hosts/**/*.test.ts'],
    // One host at a time: each runs its own MCP server and hook processes on two shared cores.
    fileParallelism: false,
    maxWorkers: 1,
    minWorkers: 1,
    testTimeout: 60_000,
    hookTimeout: 15 * 60_000,
  },
});
