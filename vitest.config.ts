import { defineConfig } from 'vitest/config'

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    exclude: ['test/harness/**', 'test/fixtures/**', 'test/.tmp/**', 'node_modules/**'],
    // The run gets its own temp folder and fails if a test leaves anything in it (test/global-setup.ts);
    // folders a file's beforeAll made go after its last test (test/setup.ts, test/util/temp.ts).
    globalSetup: ['test/global-setup.ts'],
    setupFiles: ['test/setup.ts'],
    // Bounds on a hang, not timings: tests run real bundlers, compilers and processes, and must pass on a
    // loaded 2-core machine (a second copy of the suite beside this one makes each step several times slower).
    testTimeout: 180_000,
    hookTimeout: 600_000,
  },
})
