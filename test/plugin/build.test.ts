import { mkdir, readFile, rm, stat, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join, relative, sep } from 'node:path'
import { pathToFileURL } from 'node:url'
import * as esbuild from 'esbuild'
import { rollup } from 'rollup'
import { beforeAll, describe, expect, test } from 'vitest'
import webpack from 'webpack'
import { compile } from '../../src/api.js'
import oacEsbuild from '../../src/esbuild.js'
import oacRollup from '../../src/rollup.js'
import oacWebpack from '../../src/webpack.js'
import { copyProject, repoRoot } from '../util/project.js'
import { APP_BUNDLE, BUNDLERS, type BundlerName, buildWith, exists, readTree } from './bundlers.js'

const fixture = join(repoRoot, 'test/fixtures/plugin-basic')
const registry = './agents/registry.ts:registry'
const MANIFEST = '.oac/manifest.oac-tools.json'

/** The tree the fixture's two agents (forecaster, calculator) and two tools (weather: zod, add: TypeBox) give, vendor files aside. */
const EXPECTED_PATHS = [
  MANIFEST,
  '.claude/agents/calculator.md',
  '.claude/agents/forecaster.md',
  '.cline/plugins/oac-tools.ts',
  '.codex/agents/calculator.toml',
  '.codex/agents/forecaster.toml',
  '.codex/config.toml',
  '.gemini/agents/calculator.md',
  '.gemini/agents/forecaster.md',
  '.gemini/settings.json',
  '.github/agents/calculator.agent.md',
  '.github/agents/forecaster.agent.md',
  '.kilo/agents/calculator.md',
  '.kilo/agents/forecaster.md',
  '.kilo/tools/add.ts',
  '.kilo/tools/weather.ts',
  '.mcp.json',
  '.omp/tools/add/index.ts',
  '.omp/tools/weather/index.ts',
  '.opencode/agent/calculator.md',
  '.opencode/agent/forecaster.md',
  '.opencode/tool/add.ts',
  '.opencode/tool/weather.ts',
  '.pi/extensions/oac-tools.ts',
  '.qwen/agents/calculator.md',
  '.qwen/agents/forecaster.md',
  '.qwen/settings.json',
  '.vscode/mcp.json',
  'prompts/calculator.md',
  'prompts/forecaster.md',
  'scripts/add.mjs',
  'scripts/mcp_tools_server.cjs',
  'scripts/tools/add.mjs',
  'scripts/tools/add.mjs.map',
  'scripts/tools/weather.mjs',
  'scripts/tools/weather.mjs.map',
  'scripts/weather.mjs',
].sort()

const leaveOutApp = (path: string) => path === APP_BUNDLE
const withoutVendor = (tree: Map<string, string>) => [...tree.keys()].filter((path) => !path.startsWith('scripts/vendor/'))

function expectSameTree(actual: Map<string, string>, expected: Map<string, string>, label: string): void {
  expect([...actual.keys()], `${label}: the same files`).toEqual([...expected.keys()])
  for (const [path, content] of expected) expect(actual.get(path), `${label}: ${path}`).toBe(content)
}

describe('real builds of the plugin-basic fixture', () => {
  let checkoutA: string
  let checkoutB: string
  const emitted = new Map<BundlerName, Map<string, string>>()
  const manifests = new Map<BundlerName, unknown>()
  const written = new Map<BundlerName, Map<string, string>>()

  beforeAll(async () => {
    checkoutA = await copyProject(fixture, 'oac-a-')
    // A second checkout at a longer, different absolute path.
    checkoutB = await copyProject(fixture, 'oac-second-checkout-of-the-project-')
  })

  test.each(BUNDLERS)('%s emits the agent tree into its output folder and the manifest into the app', async (bundler) => {
    const outDir = join(checkoutA, `dist-${bundler}`)
    await buildWith(bundler, { root: checkoutA, outDir, options: { registry } })
    const tree = await readTree(outDir, leaveOutApp)
    expect(withoutVendor(tree)).toEqual(EXPECTED_PATHS)
    expect([...tree.keys()].some((path) => path.startsWith('scripts/vendor/zod@'))).toBe(true)
    emitted.set(bundler, tree)

    const app = (await import(pathToFileURL(join(outDir, APP_BUNDLE)).href)) as { default: Record<string, unknown> }
    manifests.set(bundler, app.default)
    const manifest = app.default as {
      serverName: string
      agents: { name: string; tools: string[] }[]
      tools: { name: string; script: string; schemaKind: string; schema: { properties: Record<string, unknown> } }[]
      files: string[]
    }
    expect(manifest.serverName).toBe('oac-tools')
    expect(manifest.agents.map((a) => [a.name, a.tools])).toEqual([
      ['forecaster', ['weather']],
      ['calculator', ['add', 'weather']],
    ])
    expect(manifest.tools.map((t) => [t.name, t.schemaKind, t.script, Object.keys(t.schema.properties)])).toEqual([
      ['weather', 'zod', 'scripts/weather.mjs', ['city', 'days']],
      ['add', 'typebox', 'scripts/add.mjs', ['a', 'b']],
    ])
    expect([...manifest.files, MANIFEST].sort()).toEqual([...tree.keys()])
  })

  test.each(BUNDLERS)('%s gives the same manifest under the ~oac alias', async (bundler) => {
    const outDir = join(checkoutA, `dist-alias-${bundler}`)
    await buildWith(bundler, { root: checkoutA, outDir, entry: 'src/main-alias.js', options: { registry } })
    const app = (await import(pathToFileURL(join(outDir, APP_BUNDLE)).href)) as { default: unknown }
    expect(app.default).toEqual(manifests.get(bundler))
    expect(app.default).toEqual(manifests.get('vite'))
  })

  test('the emitted trees are byte-identical across all six bundlers', () => {
    const reference = emitted.get('vite')!
    for (const bundler of BUNDLERS) expectSameTree(emitted.get(bundler)!, reference, bundler)
  })

  test.each(BUNDLERS)('%s writes a target outside its output folder after the build', async (bundler) => {
    const target = `tree-${bundler}`
    await buildWith(bundler, { root: checkoutA, outDir: join(checkoutA, `out-${bundler}`), options: { registry, target } })
    const tree = await readTree(join(checkoutA, target))
    expect(withoutVendor(tree)).toEqual(EXPECTED_PATHS)
    written.set(bundler, tree)
    expect(await readTree(join(checkoutA, `out-${bundler}`))).toEqual(new Map([[APP_BUNDLE, expect.any(String)]]))
  })

  test('every tree, emitted or written, is the one `oac compile` writes, byte for byte', async () => {
    await compile({ registry, root: checkoutA, target: 'tree-cli' })
    const cli = await readTree(join(checkoutA, 'tree-cli'))
    for (const bundler of BUNDLERS) {
      expectSameTree(written.get(bundler)!, cli, `${bundler} written`)
      expectSameTree(emitted.get(bundler)!, cli, `${bundler} emitted`)
    }
  })

  test.each(BUNDLERS)('%s gives the same bytes from a second checkout at another path', async (bundler) => {
    const outDir = join(checkoutB, `dist-${bundler}`)
    await buildWith(bundler, { root: checkoutB, outDir, options: { registry } })
    expectSameTree(await readTree(outDir, leaveOutApp), emitted.get(bundler)!, bundler)
    const text = [...(await readTree(outDir, leaveOutApp)).values()].join('\n')
    // Relative paths to packages outside the project (esbuild's module keys) are fine; absolute ones are not.
    for (const folder of [checkoutB, repoRoot, tmpdir()]) expect(text).not.toMatch(new RegExp(`(?<!\\.\\.)${folder.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`))
  })

  test.each(['rollup', 'esbuild', 'webpack'] as const)('%s writes nothing when the app build fails', async (bundler) => {
    const root = await copyProject(fixture, `oac-broken-${bundler}-`)
    await writeFile(join(root, 'src/broken.js'), "import './does-not-exist.js'\nimport manifest from '~oac'\nexport default manifest\n")
    const build = buildWith(bundler, { root, outDir: join(root, 'dist'), entry: 'src/broken.js', options: { registry, target: 'tree' } })
    await expect(build).rejects.toThrow(/does-not-exist/)
    expect(await exists(join(root, 'tree'))).toBe(false)
  })
})

describe('merging into files the user already has', () => {
  const userServer = { command: 'node', args: ['my-server.js'] }

  test('vite: merges into the .mcp.json copied from publicDir', async () => {
    const root = await copyProject(fixture, 'oac-public-')
    await mkdir(join(root, 'public'))
    await writeFile(join(root, 'public/.mcp.json'), `// my servers\n${JSON.stringify({ mcpServers: { mine: userServer } }, null, 2)}\n`)
    await buildWith('vite', { root, outDir: join(root, 'dist'), options: { registry } })
    const merged = await readFile(join(root, 'dist/.mcp.json'), 'utf8')
    expect(merged.startsWith('// my servers\n')).toBe(true)
    const servers = (JSON.parse(merged.replace('// my servers\n', '')) as { mcpServers: Record<string, unknown> }).mcpServers
    expect(Object.keys(servers).sort()).toEqual(['mine', 'oac-tools'])
    expect(servers.mine).toEqual(userServer)
  })

  test.each(['rollup', 'rolldown', 'esbuild', 'webpack', 'rspack'] as const)(
    '%s: merges into the .mcp.json already in the output folder, twice without change',
    async (bundler) => {
      const root = await copyProject(fixture, `oac-merge-${bundler}-`)
      const outDir = join(root, 'dist')
      await mkdir(outDir)
      const userText = `${JSON.stringify({ mcpServers: { mine: userServer }, other: true }, null, 2)}\n`
      await writeFile(join(outDir, '.mcp.json'), userText)
      await buildWith(bundler, { root, outDir, options: { registry } })
      const first = await readFile(join(outDir, '.mcp.json'), 'utf8')
      const parsed = JSON.parse(first) as { mcpServers: Record<string, unknown>; other: boolean }
      expect(Object.keys(parsed.mcpServers).sort()).toEqual(['mine', 'oac-tools'])
      expect(parsed.other).toBe(true)
      const before = (await stat(join(outDir, '.mcp.json'))).mtimeMs
      await buildWith(bundler, { root, outDir, options: { registry } })
      expect(await readFile(join(outDir, '.mcp.json'), 'utf8')).toBe(first)
      if (bundler === 'esbuild') expect((await stat(join(outDir, '.mcp.json'))).mtimeMs).toBe(before)
    },
  )

  test('rollup: merges into a .mcp.json asset another plugin put in the bundle', async () => {
    const root = await copyProject(fixture, 'oac-asset-')
    const outDir = join(root, 'dist')
    const userText = `${JSON.stringify({ mcpServers: { mine: userServer } }, null, 2)}\n`
    const copyPlugin = {
      name: 'copy-mcp-json',
      buildStart(this: { emitFile(file: { type: 'asset'; fileName: string; source: string }): string }) {
        this.emitFile({ type: 'asset', fileName: '.mcp.json', source: userText })
      },
    }
    const bundle = await rollup({ input: join(root, 'src/main.js'), plugins: [oacRollup({ registry, root }), copyPlugin] })
    await bundle.write({ dir: outDir, format: 'es' })
    await bundle.close()
    const servers = (JSON.parse(await readFile(join(outDir, '.mcp.json'), 'utf8')) as { mcpServers: Record<string, unknown> }).mcpServers
    expect(Object.keys(servers).sort()).toEqual(['mine', 'oac-tools'])
  })

  test('webpack: merges into a .mcp.json asset a copy plugin emits', async () => {
    const root = await copyProject(fixture, 'oac-webpack-asset-')
    const outDir = join(root, 'dist')
    const userText = `${JSON.stringify({ mcpServers: { mine: userServer } }, null, 2)}\n`
    // What copy-webpack-plugin does: an asset added at the ADDITIONAL stage.
    const copyPlugin = {
      apply(compiler: webpack.Compiler) {
        compiler.hooks.thisCompilation.tap('copy', (compilation) => {
          compilation.hooks.processAssets.tap({ name: 'copy', stage: webpack.Compilation.PROCESS_ASSETS_STAGE_ADDITIONAL }, () => {
            compilation.emitAsset('.mcp.json', new webpack.sources.RawSource(userText))
          })
        })
      },
    }
    const compiler = webpack({
      context: root,
      mode: 'production',
      entry: './src/main.js',
      output: { path: outDir, filename: APP_BUNDLE },
      plugins: [oacWebpack({ registry }), copyPlugin],
    })
    await new Promise<void>((resolve, reject) => compiler.run((error, stats) => (error || stats?.hasErrors() ? reject(error ?? new Error(stats?.toString())) : resolve())))
    await new Promise((resolve) => compiler.close(resolve))
    const servers = (JSON.parse(await readFile(join(outDir, '.mcp.json'), 'utf8')) as { mcpServers: Record<string, unknown> }).mcpServers
    expect(Object.keys(servers).sort()).toEqual(['mine', 'oac-tools'])
  })

  test('esbuild with write: false: the tree joins the output files and nothing is written', async () => {
    const root = await copyProject(fixture, 'oac-nowrite-')
    const outDir = join(root, 'dist')
    const result = await esbuild.build({
      absWorkingDir: root,
      entryPoints: ['src/main.js'],
      bundle: true,
      format: 'esm',
      outdir: 'dist',
      write: false,
      logLevel: 'silent',
      plugins: [oacEsbuild({ registry })],
    })
    const paths = result.outputFiles.map((file) => relative(outDir, file.path).split(sep).join('/'))
    expect(paths.filter((path) => path !== 'main.js' && !path.startsWith('scripts/vendor/')).sort()).toEqual(EXPECTED_PATHS.filter((path) => path !== MANIFEST))
    expect(result.outputFiles.find((file) => file.path === join(outDir, '.mcp.json'))?.text).toContain('"oac-tools"')
    expect(await exists(outDir)).toBe(false)
    // A target outside outdir is not written either: a build that writes nothing writes no tree.
    await esbuild.build({ absWorkingDir: root, entryPoints: ['src/main.js'], bundle: true, outdir: 'dist', write: false, logLevel: 'silent', plugins: [oacEsbuild({ registry, target: 'tree' })] })
    expect(await exists(join(root, 'tree'))).toBe(false)
  })

  test('removes a deleted tool\'s files on the next build (emitted tree, no watch)', async () => {
    const root = await copyProject(fixture, 'oac-delete-')
    const outDir = join(root, 'dist')
    await buildWith('rollup', { root, outDir, options: { registry } })
    expect(await exists(join(outDir, 'scripts/add.mjs'))).toBe(true)
    const source = await readFile(join(root, 'agents/registry.ts'), 'utf8')
    await writeFile(join(root, 'agents/registry.ts'), source.replace('tools: [add, weather]', 'tools: [weather]'))
    await buildWith('rollup', { root, outDir, options: { registry } })
    for (const gone of ['scripts/add.mjs', 'scripts/tools/add.mjs', '.opencode/tool/add.ts', '.omp/tools/add/index.ts']) expect(await exists(join(outDir, gone)), gone).toBe(false)
    expect(await exists(join(outDir, '.omp/tools/add'))).toBe(false)
    expect(await exists(join(outDir, 'scripts/weather.mjs'))).toBe(true)
    await rm(root, { recursive: true, force: true })
  })
})
