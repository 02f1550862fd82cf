import { join } from 'node:path'
import { describe, expect, test } from 'vitest'
import { copyProject, repoRoot } from '../util/project.js'
import { exists } from './bundlers.js'
import { serviceHeld, waitFor, webpackLikeCompiler } from './watchers.js'

const fixture = join(repoRoot, 'test/fixtures/plugin-basic')

/**
 * The Node API closes a watch with `watching.close()`, which does not close the compiler (webpack-cli
 * closes both): without `compiler.close()` no shutdown hook runs. Our esbuild service must end all the same,
 * or the process never exits.
 */
describe.each(['webpack', 'rspack'] as const)('%s: a watch closed through the Node API', (bundler) => {
  test('ends our esbuild service without compiler.close()', async () => {
    const root = await copyProject(fixture, `oac-watch-close-${bundler}-`)
    const outDir = join(root, 'dist')
    const compiler = webpackLikeCompiler(bundler, { root, outDir, options: { registry: './agents/registry.ts:registry' } })
    let builds = 0
    const watching = compiler.watch({ aggregateTimeout: 50 }, () => builds++)
    try {
      await waitFor('the first build', async () => builds >= 1 && (await exists(join(outDir, 'scripts/weather.mjs'))))
      expect(serviceHeld(), 'the esbuild service while watching').toBe(true)
      await new Promise<void>((resolve) => watching.close(() => resolve()))
      // Bounded, not timed: the service ends once its context is disposed, a round trip to it after the close.
      await waitFor('the esbuild service to end after watching.close()', () => !serviceHeld())
    } finally {
      await new Promise<void>((resolve) => compiler.close(() => resolve()))
    }
  })
})
