import { writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import * as esbuild from 'esbuild'
import { rollup, type RollupLog } from 'rollup'
import { beforeAll, describe, expect, test } from 'vitest'
import webpack from 'webpack'
import oacEsbuild from '../../src/esbuild.js'
import oacRollup from '../../src/rollup.js'
import oacWebpack from '../../src/webpack.js'
import { copyProject, repoRoot } from '../util/project.js'
import { BUNDLERS, buildWith, exists } from './bundlers.js'
import { BAD_REGISTRY, WARNING_REGISTRY } from './registries.js'



describe('diagnostics reach the bundler with the definition\'s file and line', () => {
  let root: string

  beforeAll(async () => {
    root = await copyProject(join(repoRoot, 'test/fixtures/plugin-basic'), 'oac-diagnostics-')
    await writeFile(join(root, 'agents/bad.ts'), BAD_REGISTRY)
    await writeFile(join(root, 'agents/lossy.ts'), WARNING_REGISTRY)
  })

  test.each(BUNDLERS)('%s fails the build on an error, naming agents/bad.ts:5, and writes nothing', async (bundler) => {
    const build = buildWith(bundler, { root, outDir: join(root, `dist-${bundler}`), options: { registry: './agents/bad.ts:registry', target: `tree-${bundler}` } })
    // Rollup writes the place as `agents/bad.ts (5:16)`, the others as `agents/bad.ts:5:16`.
    await expect(build).rejects.toThrow(/agents\/bad\.ts(:5:\d+| \(5:\d+\))/)
    await expect(build).rejects.toThrow(/bad name/)
    expect(await exists(join(root, `tree-${bundler}`))).toBe(false)
  })

  test('rollup gets the error as a log with the absolute file and line', async () => {
    const failure = await rollup({ input: join(root, 'src/main.js'), plugins: [oacRollup({ registry: './agents/bad.ts:registry', root })] }).then(
      () => undefined,
      (error: RollupLog) => error,
    )
    expect(failure?.plugin).toBe('unplugin-oac')
    expect(failure?.loc).toMatchObject({ file: join(root, 'agents/bad.ts'), line: 5 })
  })

  test('rollup gets warnings through onwarn, with their location', async () => {
    const warnings: RollupLog[] = []
    const bundle = await rollup({
      input: join(root, 'src/main.js'),
      plugins: [oacRollup({ registry: './agents/lossy.ts:registry', root, target: 'tree-lossy-rollup' })],
      onwarn: (warning) => void warnings.push(warning),
    })
    await bundle.close()
    const ours = warnings.filter((w) => w.plugin === 'unplugin-oac')
    expect(ours.length).toBeGreaterThan(0)
    expect(ours[0]!.message).toMatch(/agents\/lossy\.ts \(5:\d+\): \[tool-schema-/)
    expect(ours[0]!.loc).toMatchObject({ file: join(root, 'agents/lossy.ts'), line: 5 })
  })

  test("rollup gets the write's warning that the target is in no project root Codex finds from a subfolder", async () => {
    const warnings: RollupLog[] = []
    const bundle = await rollup({
      input: join(root, 'src/main.js'),
      plugins: [oacRollup({ registry: './agents/registry.ts:registry', root, target: 'tree-no-root' })],
      onwarn: (warning) => void warnings.push(warning),
    })
    await bundle.write({ dir: join(root, 'dist-no-root') })
    await bundle.close()
    const ours = warnings.filter((w) => w.plugin === 'unplugin-oac' && w.message.includes('[codex-no-project-root]'))
    expect(ours).toHaveLength(1)
    expect(ours[0]!.message).toContain(`The target folder ${join(root, 'tree-no-root')} is in no Codex project root`)
  })

  test("the diagnostics option turns a compile warning off and a write warning down to a note, which rollup logs as info, not as a warning", async () => {
    const logs: Array<{ level: string; message: string }> = []
    const bundle = await rollup({
      input: join(root, 'src/main.js'),
      plugins: [oacRollup({ registry: './agents/lossy.ts:registry', root, target: 'tree-noted', diagnostics: { 'tool-schema-construct': 'off', 'codex-no-project-root': 'note' } })],
      onLog: (level, log) => void (log.plugin === 'unplugin-oac' && logs.push({ level, message: log.message })),
    })
    await bundle.write({ dir: join(root, 'dist-noted') })
    await bundle.close()
    expect(logs.filter((log) => log.level === 'warn')).toEqual([])
    const notes = logs.filter((log) => log.level === 'info' && log.message.includes('note [codex-no-project-root]'))
    expect(notes).toHaveLength(1)
    expect(logs.some((log) => log.message.includes('tool-schema-'))).toBe(false)
  })

  test('esbuild reports warnings as its own messages with a location', async () => {
    const result = await esbuild.build({
      absWorkingDir: root,
      entryPoints: ['src/main.js'],
      bundle: true,
      write: false,
      outdir: 'dist-lossy',
      logLevel: 'silent',
      plugins: [oacEsbuild({ registry: './agents/lossy.ts:registry', target: 'tree-lossy-esbuild' })],
    })
    const ours = result.warnings.filter((w) => w.pluginName === 'unplugin-oac')
    expect(ours.length).toBeGreaterThan(0)
    // esbuild shows locations relative to absWorkingDir.
    expect(ours[0]!.location).toMatchObject({ file: 'agents/lossy.ts', line: 5 })
    expect(ours[0]!.text).toContain('const')
  })

  test('webpack lists warnings in its stats, naming the file and line', async () => {
    const compiler = webpack({
      context: root,
      mode: 'production',
      entry: './src/main.js',
      output: { path: join(root, 'dist-lossy-webpack') },
      plugins: [oacWebpack({ registry: './agents/lossy.ts:registry', target: 'tree-lossy-webpack' })],
    })
    const stats = await new Promise<webpack.Stats>((resolve, reject) => compiler.run((error, result) => (error ? reject(error) : resolve(result!))))
    await new Promise((resolve) => compiler.close(resolve))
    expect(stats.hasErrors()).toBe(false)
    expect(stats.toString('errors-warnings')).toMatch(/WARNING in agents\/lossy\.ts:5:\d+\n\[unplugin-oac\] \[tool-schema-/)
  })
})
