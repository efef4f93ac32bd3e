import { defineConfig } from 'vitest/config';

// Tests start real servers as child processes; run files one at a time on this 2-core machine.
export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    fileParallelism: false,
    reporters: ['default', ['json', { outputFile: 'test-results/results.json' }]],
  },
});
