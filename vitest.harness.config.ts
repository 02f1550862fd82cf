import { defineConfig } from 'vitest/config'

// Opt-in tier: the real harness CLIs, installed into .harness-cache/ by test/harness/setup.ts.
export default defineConfig({
  test: {
    include: ['test/harness/**/*.test.ts'],
    testTimeout: 300_000,
    hookTimeout: 1_200_000,
    fileParallelism: false,
  },
})
