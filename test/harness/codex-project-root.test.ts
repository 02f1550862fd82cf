import { execFile } from 'node:child_process'
import { mkdir, rm, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { stringify as stringifyToml } from 'smol-toml'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { compile } from '../../src/api.js'
import { harness } from '../../src/compile/harnesses/index.js'
import type { Plan } from '../../src/compile/plan.js'
import { copyProject, repoRoot } from '../util/project.js'
import { installHarnessPackage, isolatedHome } from './cache.js'
import { threadServers } from './codex-app-server.js'

/*
 * Where the real Codex 0.171 looks for a project's `.codex/` (codex-rs/config/src/loader/mod.rs:
 * `find_project_root` walks up from the thread's folder to the nearest folder holding one of
 * `project_root_markers`, default `[".git"]` (project_root_markers.rs), else takes the folder itself;
 * `load_project_layers` reads `.codex/config.toml` only in the folders from that root down to the
 * thread's). So a thread started in a subfolder of the target sees our server only where the target
 * is inside such a root; compile warns `codex-no-project-root` where it is not (src/target.ts).
 *   npx vitest run --config vitest.harness.config.ts test/harness/codex-project-root.test.ts
 */

const SERVER = 'oac-tools'

let codex: string
let dir: string
let plan: Plan
let subfolder: string
const cleanup: string[] = []

beforeAll(async () => {
  const { cli } = harness('codex').proof
  codex = join(await installHarnessPackage(cli.package, cli.version), 'node_modules/.bin', cli.bin)
  // The playground, not a git repository (compiledProject would make it one).
  dir = await copyProject(join(repoRoot, 'playground'), 'oac-codex-root-')
  cleanup.push(dir)
  const compiled = await compile({ root: dir, registry: 'agents/registry.ts:registry', config: 'prod', harnesses: ['codex'] })
  plan = compiled.plan
  expect(compiled.diagnostics.map((d) => d.code)).toContain('codex-no-project-root')
  subfolder = join(dir, 'src', 'deeper')
  await mkdir(subfolder, { recursive: true })
})

afterAll(async () => {
  for (const folder of cleanup) await rm(folder, { recursive: true, force: true })
})


/** Our server's tools as a thread in `cwd` lists them (none: the server is not in its config), with the target trusted and `userConfig` in the user's config. */
async function toolsIn(cwd: string, userConfig: Record<string, unknown> = {}): Promise<string[]> {
  const { home, env } = await isolatedHome()
  cleanup.push(home)
  await mkdir(env.CODEX_HOME!, { recursive: true })
  await writeFile(join(env.CODEX_HOME!, 'config.toml'), stringifyToml({ ...userConfig, projects: { [dir]: { trust_level: 'trusted' } } }))
  const { servers } = await threadServers(codex, home, env, cwd)
  const ours = servers.find((server) => server.name === SERVER)
  if (!ours) return []
  expect(ours.toolsError).toBeNull()
  return Object.values(ours.tools).map((tool) => tool.name).sort()
}

describe(`Codex ${harness('codex').proof.cli.version}: a thread in a subfolder of the target`, () => {
  const served = () => plan.tools.filter((tool) => tool.json).map((tool) => tool.name).sort()

  it('sees no tool of ours while the target is in no project root, though a thread in the target itself does', async () => {
    expect(await toolsIn(dir)).toEqual(served())
    expect(await toolsIn(subfolder)).toEqual([])
  })

  it('sees our tools once the target holds a marker that project_root_markers in the user config names, and not by the file alone', async () => {
    await writeFile(join(dir, 'package.json'), '{"private":true}\n')
    try {
      expect(await toolsIn(subfolder)).toEqual([])
      expect(await toolsIn(subfolder, { project_root_markers: ['.git', 'package.json'] })).toEqual(served())
    } finally {
      await rm(join(dir, 'package.json'))
    }
  })

  it('sees our tools once the target is a git repository (the default marker)', async () => {
    await promisify(execFile)('git', ['init', '-q', dir])
    expect(await toolsIn(subfolder)).toEqual(served())
    // And compile no longer warns.
    const again = await compile({ root: dir, registry: 'agents/registry.ts:registry', config: 'prod', harnesses: ['codex'] })
    expect(again.diagnostics.map((d) => d.code)).not.toContain('codex-no-project-root')
  })
})
