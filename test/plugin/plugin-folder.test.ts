import { join } from 'node:path'
import { beforeAll, describe, expect, test } from 'vitest'
import { main } from '../../src/cli.js'
import { copyProject, repoRoot } from '../util/project.js'
import { BUNDLERS, type BundlerName, buildWith, readTree } from './bundlers.js'

/*
 * A plugin folder (`plugin: { dir }`, `--plugin <dir>`) is the same bytes from every bundler and from
 * the CLI: each build of the plugin-basic fixture writes one, and every tree is compared with the CLI's.
 */

const fixture = join(repoRoot, 'test/fixtures/plugin-basic')
const registry = './agents/registry.ts:registry'
const identity = { name: 'basic-tools', version: '1.0.0' }

describe('a plugin folder from every bundler', () => {
  let root: string
  let cli: Map<string, string>
  const trees = new Map<BundlerName, Map<string, string>>()

  beforeAll(async () => {
    root = await copyProject(fixture, 'oac-plugin-folder-')
    const code = await main(['compile', registry, '--root', root, '--plugin', 'plugin-cli', '--plugin-name', identity.name, '--plugin-version', identity.version], () => {}, () => {})
    expect(code).toBe(0)
    cli = await readTree(join(root, 'plugin-cli'))
  })

  test('the CLI writes a plugin folder: its package.json, the formats and the scripts', () => {
    expect(JSON.parse(cli.get('package.json')!)).toMatchObject(identity)
    expect(cli.has('scripts/mcp_tools_server.cjs')).toBe(true)
    expect(cli.has('opencode/index.mjs')).toBe(true)
    // No file of a project's.
    expect([...cli.keys()].filter((path) => /^(\.opencode|\.kilo|\.claude\/agents|prompts)\//.test(path) || path === '.mcp.json')).toEqual([])
  })

  test.each(BUNDLERS)('%s writes the folder after its build', async (bundler) => {
    const dir = `plugin-${bundler}`
    await buildWith(bundler, { root, outDir: join(root, `dist-${bundler}`), options: { registry, plugin: { dir, ...identity } } })
    trees.set(bundler, await readTree(join(root, dir)))
  })

  test('every bundler\'s folder is the CLI\'s, byte for byte', () => {
    for (const bundler of BUNDLERS) {
      const tree = trees.get(bundler)!
      expect([...tree.keys()], bundler).toEqual([...cli.keys()])
      for (const [path, content] of cli) expect(tree.get(path), `${bundler}: ${path}`).toBe(content)
    }
  })
})
