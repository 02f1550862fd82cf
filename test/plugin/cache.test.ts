import { existsSync, readFileSync } from 'node:fs'
import { appendFile, cp, mkdir, readdir, readFile, symlink, unlink, writeFile } from 'node:fs/promises'
import { dirname, join, resolve } from 'node:path'
import { pathToFileURL } from 'node:url'
import { rollup, type RollupLog } from 'rollup'
import { describe, expect, test } from 'vitest'
import { compile } from '../../src/api.js'
import { recordFile } from '../../src/plugin/build-cache.js'
import type { OacPluginOptions } from '../../src/plugin/index.js'
import oacRollup from '../../src/rollup.js'
import { repoRoot } from '../util/project.js'
import { tempDir } from '../util/temp.js'
import { APP_BUNDLE, BUNDLERS, type BundlerName, buildWith, readTree } from './bundlers.js'
import { WARNING_REGISTRY } from './registries.js'
import { backdate, settle, startWatch, waitFor } from './watchers.js'

const fixture = join(repoRoot, 'test/fixtures/plugin-basic')
const registry = './agents/registry.ts:registry'
/** Outside every output folder: a tree the build writes, which the cache can vouch for. */
const TARGET = 'agents-out'

/** Appended to the fixture's registry: each compile imports the registry afresh, and so counts one. */
const COUNT_LOADS = `
const counter = globalThis as { oacRegistryLoads?: number }
counter.oacRegistryLoads = (counter.oacRegistryLoads ?? 0) + 1
`
const registryLoads = () => (globalThis as { oacRegistryLoads?: number }).oacRegistryLoads ?? 0

/**
 * A copy of the fixture with a node_modules folder of its own (its entries linked to the repo's), so
 * the cache records land in this project, and a registry that counts its loads.
 */
async function project(): Promise<string> {
  const dir = await tempDir('oac-cache-')
  await cp(fixture, dir, { recursive: true, filter: (src) => !/[\\/](node_modules|dist)$/.test(src) })
  await mkdir(join(dir, 'node_modules'))
  for (const name of await readdir(join(repoRoot, 'node_modules'))) {
    if (name !== '.cache') await symlink(join(repoRoot, 'node_modules', name), join(dir, 'node_modules', name), 'dir')
  }
  await appendFile(join(dir, 'agents', 'registry.ts'), COUNT_LOADS)
  return dir
}

interface Built {
  /** How many times the build compiled (imported the registry). */
  compiles: number
  tree: Map<string, string>
  /** The manifest the app bundle got from virtual:oac. */
  manifest: unknown
}

let builds = 0

async function build(bundler: BundlerName, root: string, options: Partial<OacPluginOptions> = {}): Promise<Built> {
  const before = registryLoads()
  const outDir = join(root, `dist-${bundler}`)
  await buildWith(bundler, { root, outDir, options: { registry, target: TARGET, ...options } })
  const compiles = registryLoads() - before
  const app = (await import(`${pathToFileURL(join(outDir, APP_BUNDLE)).href}?build=${++builds}`)) as { default: unknown }
  return { compiles, tree: await readTree(join(root, options.target ?? TARGET)), manifest: app.default }
}

/** The tree `oac compile` writes for these options into an empty folder. */
async function expectedTree(root: string, options: Partial<OacPluginOptions> = {}): Promise<Map<string, string>> {
  const target = await tempDir('oac-cache-expected-')
  const { cache: _cache, ...rest } = options
  await compile({ registry, root, ...rest, target })
  return readTree(target)
}

async function records(root: string): Promise<string[]> {
  const folder = join(root, 'node_modules', '.cache', 'oac')
  return existsSync(folder) ? (await readdir(folder)).filter((name) => name.startsWith('build-')) : []
}

async function edit(file: string, from: string, to: string): Promise<void> {
  const text = await readFile(file, 'utf8')
  if (!text.includes(from)) throw new Error(`${file} does not contain ${JSON.stringify(from)}`)
  await writeFile(file, text.replace(from, to))
}

describe.each(BUNDLERS)('%s with the build cache', (bundler) => {
  test('a second build with unchanged inputs compiles nothing and leaves the same tree and manifest', async () => {
    const root = await project()
    const first = await build(bundler, root)
    expect(first.compiles).toBe(1)
    expect(first.tree).toEqual(await expectedTree(root))
    expect(await records(root)).toHaveLength(1)

    const second = await build(bundler, root)
    expect(second.compiles).toBe(0)
    expect(second.tree).toEqual(first.tree)
    expect(second.manifest).toEqual(first.manifest)

    await edit(join(root, 'agents', 'tools', 'weather.ts'), 'Report the weather for a city.', 'Report the weather for one city.')
    const edited = await build(bundler, root)
    expect(edited.compiles).toBe(1)
    expect(edited.tree).toEqual(await expectedTree(root))
    expect(JSON.stringify(edited.manifest)).toContain('Report the weather for one city.')
  })
})


describe.each(BUNDLERS)('%s in watch mode after a cached build', (bundler) => {
  test('the first build comes from the cache; an edit then compiles and updates the tree', async () => {
    const root = await project()
    const first = await build(bundler, root)
    await backdate(root)
    const before = registryLoads()
    const watching = await startWatch(bundler, { root, outDir: join(root, `dist-${bundler}`), options: { registry, target: TARGET } })
    try {
      await waitFor('the first build', () => watching.builds >= 1)
      await settle()
      expect(watching.lastError).toBe('')
      expect(registryLoads() - before).toBe(0)
      expect(await readTree(join(root, TARGET))).toEqual(first.tree)

      // The record's watch files are watched: an edit to a tool compiles once and reaches the tree.
      await edit(join(root, 'agents', 'tools', 'weather.ts'), 'Report the weather for a city.', 'Report the weather for one city.')
      const script = join(root, TARGET, '.opencode', 'tool', 'weather.ts')
      await waitFor('the edit in the tree', async () => (await readFile(script, 'utf8')).includes('Report the weather for one city.'))
      await settle()
      expect(registryLoads() - before).toBe(1)
      expect(await readTree(join(root, TARGET))).toEqual(await expectedTree(root))
    } finally {
      await watching.close()
    }
  })
})

describe('what makes a build compile again (vite)', () => {
  test('an edited prompt file', async () => {
    const root = await project()
    expect((await build('vite', root)).compiles).toBe(1)
    await appendFile(join(root, 'agents', 'calculator.md'), '\nAlways show your working.\n')
    const rebuilt = await build('vite', root)
    expect(rebuilt.compiles).toBe(1)
    expect(rebuilt.tree.get('.claude/agents/calculator.md')).toContain('Always show your working.')
    expect((await build('vite', root)).compiles).toBe(0)
  })

  test('a new or changed lockfile, and a changed package.json', async () => {
    const root = await project()
    expect((await build('vite', root)).compiles).toBe(1)
    await writeFile(join(root, 'pnpm-lock.yaml'), "lockfileVersion: '9.0'\n")
    expect((await build('vite', root)).compiles).toBe(1)
    expect((await build('vite', root)).compiles).toBe(0)
    await writeFile(join(root, 'pnpm-lock.yaml'), "lockfileVersion: '9.0'\npackages: {}\n")
    expect((await build('vite', root)).compiles).toBe(1)
    await edit(join(root, 'package.json'), '"private": true', '"private": true, "version": "1.0.0"')
    expect((await build('vite', root)).compiles).toBe(1)
    expect((await build('vite', root)).compiles).toBe(0)
  })

  test('a changed option, and back', async () => {
    const root = await project()
    expect((await build('vite', root)).compiles).toBe(1)
    const bashOnly = await build('vite', root, { nativeTools: false })
    expect(bashOnly.compiles).toBe(1)
    expect(bashOnly.tree).toEqual(await expectedTree(root, { nativeTools: false }))
    const back = await build('vite', root)
    expect(back.compiles).toBe(1)
    expect(back.tree).toEqual(await expectedTree(root))
  })

  test('a file of the tree deleted, or edited by hand', async () => {
    const root = await project()
    const first = await build('vite', root)
    const target = join(root, TARGET)

    await unlink(join(target, '.claude', 'agents', 'forecaster.md'))
    const restored = await build('vite', root)
    expect(restored.compiles).toBe(1)
    expect(restored.tree).toEqual(first.tree)

    await unlink(join(target, '.oac', 'manifest.oac-tools.json'))
    const remade = await build('vite', root)
    expect(remade.compiles).toBe(1)
    // The write makes a new manifest (which no longer claims the folders it found in place); the rest is as it was.
    expect([...remade.tree.keys()]).toEqual([...first.tree.keys()])
    for (const [path, content] of first.tree) if (!path.startsWith('.oac/')) expect(remade.tree.get(path), path).toBe(content)
    expect((await build('vite', root)).compiles).toBe(0)

    // The user's own server entry in .mcp.json is kept, as the write merges into it.
    const mcp = JSON.parse(first.tree.get('.mcp.json')!) as { mcpServers: Record<string, unknown> }
    mcp.mcpServers['their-server'] = { command: 'their-server' }
    await writeFile(join(target, '.mcp.json'), JSON.stringify(mcp, null, 2))
    const merged = await build('vite', root)
    expect(merged.compiles).toBe(1)
    expect(Object.keys((JSON.parse(merged.tree.get('.mcp.json')!) as typeof mcp).mcpServers).sort()).toEqual(['oac-tools', 'their-server'])
    expect((await build('vite', root)).compiles).toBe(0)

    // A hand edit to a file we own is the write's to report, not the cache's to hide.
    await appendFile(join(target, '.claude', 'agents', 'forecaster.md'), '\nmy note\n')
    await expect(build('vite', root)).rejects.toThrow(/edited by hand/)
  })

  test('a damaged record is ignored, and replaced', async () => {
    const root = await project()
    expect((await build('vite', root)).compiles).toBe(1)
    const record = recordFile({ root, target: resolve(root, TARGET), options: { registry, target: TARGET } })
    expect(existsSync(record)).toBe(true)
    const valid = readFileSync(record, 'utf8')

    for (const damage of ['garbage \u0000 not json', valid.slice(0, valid.length / 2), '{"format":1}', JSON.stringify({ ...JSON.parse(valid), inputs: [] })]) {
      await writeFile(record, damage)
      const built = await build('vite', root)
      expect(built.compiles).toBe(1)
      expect(built.tree).toEqual(await expectedTree(root))
      expect(readFileSync(record, 'utf8')).not.toBe(damage)
    }
    expect((await build('vite', root)).compiles).toBe(0)
  })

  test('a record of another project root is not used (the root is part of the key)', async () => {
    const root = await project()
    expect((await build('vite', root)).compiles).toBe(1)
    const moved = join(await tempDir('oac-cache-moved-'), 'project')
    await cp(root, moved, { recursive: true, verbatimSymlinks: true })
    expect((await build('vite', moved)).compiles).toBe(1)
  })
})


describe('warnings', () => {
  test('a build the cache serves reports the warnings of the compile it stands for', async () => {
    const root = await project()
    await writeFile(join(root, 'agents', 'lossy.ts'), WARNING_REGISTRY + COUNT_LOADS)
    const buildReporting = async () => {
      const warnings: RollupLog[] = []
      const before = registryLoads()
      const bundle = await rollup({
        input: join(root, 'src/main.js'),
        plugins: [oacRollup({ registry: './agents/lossy.ts:registry', root, target: TARGET })],
        onwarn: (warning) => void warnings.push(warning),
      })
      try {
        await bundle.write({ dir: join(root, 'dist'), format: 'es' })
      } finally {
        await bundle.close()
      }
      const ours = warnings.filter((w) => w.plugin === 'unplugin-oac').map(({ message, loc }) => ({ message, loc }))
      return { compiles: registryLoads() - before, ours }
    }
    const first = await buildReporting()
    expect(first.compiles).toBe(1)
    expect(first.ours.length).toBeGreaterThan(0)
    expect(first.ours[0]!.message).toMatch(/agents\/lossy\.ts \(5:\d+\): \[tool-schema-/)
    const second = await buildReporting()
    expect(second.compiles).toBe(0)
    expect(second.ours).toEqual(first.ours)
  })
})

describe('cache: false', () => {
  test('never writes a record, and never reads one', async () => {
    const root = await project()
    expect((await build('vite', root, { cache: false })).compiles).toBe(1)
    expect((await build('vite', root, { cache: false })).compiles).toBe(1)
    expect(await records(root)).toEqual([])

    expect((await build('vite', root)).compiles).toBe(1)
    expect(await records(root)).toHaveLength(1)
    const uncached = await build('vite', root, { cache: false })
    expect(uncached.compiles).toBe(1)
    expect(uncached.tree).toEqual(await expectedTree(root))
  })
})

describe('a tree emitted into the output folder', () => {
  test('is compiled every build (the bundle needs its bytes), and leaves no record', async () => {
    const root = await project()
    const outDir = join(root, 'dist')
    for (const round of [1, 2]) {
      const before = registryLoads()
      await buildWith('vite', { root, outDir, options: { registry } })
      expect(registryLoads() - before, `build ${round}`).toBe(1)
    }
    expect(await records(root)).toEqual([])
  })
})

describe('the built plugin entry', () => {
  test('loads none of the pipeline until something compiles', () => {
    const entry = join(repoRoot, 'dist', 'vite.js')
    const bare = new Set<string>()
    const seen = new Set<string>()
    const walk = (file: string) => {
      if (seen.has(file)) return
      seen.add(file)
      for (const [, specifier] of readFileSync(file, 'utf8').matchAll(/^import\s[^'"]*['"]([^'"]+)['"]/gm)) {
        if (specifier!.startsWith('.')) walk(resolve(dirname(file), specifier!))
        else bare.add(specifier!)
      }
    }
    walk(entry)
    expect([...bare].filter((specifier) => !specifier.startsWith('node:')).sort()).toEqual(['unplugin'])
  })
})
