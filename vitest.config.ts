import { defineConfig } from 'vitest/config'

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    exclude: ['test/harness/**', 'test/fixtures/**', 'test/.tmp/**', 'node_modules/**'],
    // The run gets its own temp folder and fails if a test leaves anything in it (test/global-setup.ts);
    // folders a file's beforeAll made go after its last test (test/setup.ts, test/util/temp.ts).
    globalSetup: ['test/global-setup.ts'],
    setupFiles: ['test/setup.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
  },
})
