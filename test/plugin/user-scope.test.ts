import { join } from 'node:path'
import { afterEach, beforeAll, describe, expect, test } from 'vitest'
import { main } from '../../src/cli.js'
import { copyProject, repoRoot } from '../util/project.js'
import { tempDir } from '../util/temp.js'
import { buildWith, exists, readTree } from './bundlers.js'

/*
 * `scope: 'user'` in the build plugin installs into the home of whoever runs the build, as
 * `oac compile --scope user` does: the same bytes, and nothing in the project or its output folder.
 * The home is HOME, which os.homedir() reads: each build gets its own, set for its duration.
 */

const fixture = join(repoRoot, 'test/fixtures/plugin-basic')
const registry = './agents/registry.ts:registry'
const home = process.env.HOME

afterEach(() => {
  process.env.HOME = home
})

describe("a build plugin with scope 'user'", () => {
  let root: string
  let cli: Map<string, string>

  beforeAll(async () => {
    root = await copyProject(fixture, 'oac-user-scope-build-')
    process.env.HOME = await tempDir('oac-user-home-cli-')
    expect(await main(['compile', registry, '--root', root, '--scope', 'user'], () => {}, () => {})).toBe(0)
    cli = await readTree(process.env.HOME)
    process.env.HOME = home
  })

  test.each(['esbuild', 'vite'] as const)('%s installs what the CLI does into the home, and nothing into the project', async (bundler) => {
    process.env.HOME = await tempDir(`oac-user-home-${bundler}-`)
    await buildWith(bundler, { root, outDir: join(root, `dist-${bundler}`), options: { registry, scope: 'user', cache: false } })
    const tree = await readTree(process.env.HOME)
    expect([...tree.keys()]).toEqual([...cli.keys()])
    for (const [path, content] of cli) expect(tree.get(path), path).toBe(content)
    expect(cli.has('.local/share/oac/oac-tools/mcp_tools_server.cjs')).toBe(true)
    for (const path of ['.oac', '.mcp.json', 'scripts', `dist-${bundler}/scripts`, `dist-${bundler}/.claude`]) expect(await exists(join(root, path)), path).toBe(false)
  })
})
