import { cp, mkdir, readdir, readFile, rename, symlink, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { beforeAll, describe, expect, test } from 'vitest'
import type { Harness } from '../../src/define/types.js'
import { repoRoot } from '../util/project.js'
import { tempDir } from '../util/temp.js'
import { APP_BUNDLE, buildWith, exists, readTree } from './bundlers.js'
import { settle, startWatch, waitFor } from './watchers.js'

const registry = './agents/registry.ts:registry'

/**
 * The monorepo fixture in a temp folder, installed the way npm workspaces install it: node_modules at the
 * top holds the packages (linked from this repo) and a link to the workspace package @fixture/tools.
 */
async function installMonorepo(): Promise<string> {
  const root = await tempDir('oac-monorepo-')
  await cp(join(repoRoot, 'test/fixtures/monorepo'), root, { recursive: true })
  await mkdir(join(root, 'node_modules/@fixture'), { recursive: true })
  for (const name of await readdir(join(repoRoot, 'node_modules'))) {
    if (name !== '.cache' && name !== '.bin') await symlink(join(repoRoot, 'node_modules', name), join(root, 'node_modules', name))
  }
  await symlink(join(root, 'packages/tools'), join(root, 'node_modules/@fixture/tools'), 'dir')
  return root
}

interface AppManifest {
  serverName: string
  agents: { name: string; tools: string[] }[]
  tools: { name: string; script: string }[]
}

async function appManifest(outDir: string): Promise<AppManifest> {
  return ((await import(pathToFileURL(join(outDir, APP_BUNDLE)).href)) as { default: AppManifest }).default
}

describe('a monorepo: apps/a and apps/b share the tools of packages/tools', () => {
  let root: string

  beforeAll(async () => {
    root = await installMonorepo()
  })

  test('each app builds from its own root, whatever the current directory', async () => {
    expect(process.cwd()).not.toBe(join(root, 'apps/a'))
    // Vite takes the app folder as its root, esbuild its absWorkingDir, webpack its context, Rolldown its cwd.
    await buildWith('vite', { root: join(root, 'apps/a'), outDir: join(root, 'apps/a/dist'), options: { registry } })
    await buildWith('esbuild', { root: join(root, 'apps/b'), outDir: join(root, 'apps/b/dist'), options: { registry } })
    await buildWith('rspack', { root: join(root, 'apps/b'), outDir: join(root, 'apps/b/dist-rspack'), options: { registry } })
    await buildWith('rolldown', { root: join(root, 'apps/a'), outDir: join(root, 'apps/a/dist-rolldown'), options: { registry } })

    const a = await appManifest(join(root, 'apps/a/dist'))
    expect(a.agents).toEqual([expect.objectContaining({ name: 'glossary', tools: ['lookup'] })])
    const b = await appManifest(join(root, 'apps/b/dist'))
    expect(b.agents).toEqual([expect.objectContaining({ name: 'scheduler', tools: ['clock', 'lookup'] })])
    for (const [app, outDir] of [['a', 'dist'], ['b', 'dist'], ['b', 'dist-rspack'], ['a', 'dist-rolldown']] as const) {
      const tree = await readTree(join(root, 'apps', app, outDir))
      expect(tree.has('scripts/lookup.mjs'), `${app}/${outDir}`).toBe(true)
      expect(tree.has('.opencode/tool/lookup.ts'), `${app}/${outDir}`).toBe(true)
    }
    // Same app, same tree, whichever bundler.
    const rspackTree = await readTree(join(root, 'apps/b/dist-rspack'), (path) => path === APP_BUNDLE)
    expect(rspackTree).toEqual(await readTree(join(root, 'apps/b/dist'), (path) => path === APP_BUNDLE))
  })

  test('an edit in the shared package rebuilds the app that watches it', async () => {
    const app = join(root, 'apps/a')
    const watching = await startWatch('rollup', { root: app, outDir: join(app, 'dist-watch'), options: { registry } })
    try {
      await waitFor('the first build', async () => watching.builds >= 1 && (await exists(join(app, 'dist-watch/scripts/lookup.mjs'))))
      await settle()
      const source = join(root, 'packages/tools/index.ts')
      const temp = join(tmpdir(), `oac-monorepo-edit-${process.pid}`)
      await writeFile(temp, (await readFile(source, 'utf8')).replace('Look a term up in the team glossary.', 'Look a term up (edited in the shared package).'))
      await rename(temp, source)
      const shim = join(app, 'dist-watch/.opencode/tool/lookup.ts')
      await waitFor('the edit in app a', async () => watching.builds > 1 && (await readFile(shim, 'utf8')).includes('edited in the shared package'))
      await settle()
      expect(watching.builds).toBe(2)
    } finally {
      await watching.close()
    }
  })

  /**
   * Both apps put their trees into the repo root, where Claude Code reads one .mcp.json, each with its own
   * server name. A server name also gives the app its own scripts folder (scripts/<server>/) and pi
   * extension, so the trees do not claim each other's files and the entries merge side by side.
   */
  test('two apps writing into the repo root keep both server entries in one .mcp.json', async () => {
    const shared = await installMonorepo()
    const options = (app: 'a' | 'b') => ({ registry, target: '../..', serverName: `app-${app}-tools`, harnesses: ['claude', 'codex', 'pi'] as Harness[] })
    for (const app of ['a', 'b'] as const) {
      await buildWith(app === 'a' ? 'vite' : 'esbuild', { root: join(shared, 'apps', app), outDir: join(shared, 'apps', app, 'dist'), options: options(app) })
    }
    const servers = (JSON.parse(await readFile(join(shared, '.mcp.json'), 'utf8')) as { mcpServers: Record<string, unknown> }).mcpServers
    expect(Object.keys(servers).sort()).toEqual(['app-a-tools', 'app-b-tools'])
    for (const app of ['a', 'b']) {
      expect(await exists(join(shared, `scripts/app-${app}-tools/mcp_tools_server.cjs`))).toBe(true)
      expect(await exists(join(shared, `scripts/app-${app}-tools/lookup.mjs`))).toBe(true)
      expect(await exists(join(shared, `.pi/extensions/app-${app}-tools.ts`))).toBe(true)
    }
    // Building a again keeps b's entry.
    await buildWith('vite', { root: join(shared, 'apps/a'), outDir: join(shared, 'apps/a/dist'), options: options('a') })
    const again = (JSON.parse(await readFile(join(shared, '.mcp.json'), 'utf8')) as { mcpServers: Record<string, unknown> }).mcpServers
    expect(Object.keys(again).sort()).toEqual(['app-a-tools', 'app-b-tools'])
  })

  /**
   * opencode and omp name a tool by its file (.opencode/tool/lookup.ts), one per project: two apps that
   * both ship `lookup` into one folder really collide, and the second build says so instead of overwriting.
   */
  test('a tool both apps ship natively to opencode in one folder is a clear error naming the other app', async () => {
    const shared = await installMonorepo()
    const options = (app: 'a' | 'b') => ({ registry, target: '../..', serverName: `app-${app}-tools`, harnesses: ['opencode'] as Harness[] })
    await buildWith('vite', { root: join(shared, 'apps/a'), outDir: join(shared, 'apps/a/dist'), options: options('a') })
    const failure = buildWith('esbuild', { root: join(shared, 'apps/b'), outDir: join(shared, 'apps/b/dist'), options: options('b') })
    await expect(failure).rejects.toThrow(/\.opencode\/tool\/lookup\.ts belongs to the app whose MCP server is "app-a-tools" .* and this app \("app-b-tools"\) generates the same path/)
    // esbuild carries the fix as a note of the message (it prints notes below the code frame).
    const notes = await failure.then(
      () => [],
      (error: { errors: Array<{ notes: Array<{ text: string }> }> }) => error.errors.flatMap((e) => e.notes.map((n) => n.text)),
    )
    expect(notes.join('\n')).toMatch(/fix: Ship that tool or agent from one of the two apps only/)
  })
})
