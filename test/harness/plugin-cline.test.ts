import { execFile } from 'node:child_process'
import { existsSync } from 'node:fs'
import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { compile } from '../../src/api.js'
import { harness } from '../../src/compile/harnesses/index.js'
import type { Plan } from '../../src/compile/plan.js'
import { copyProject, repoRoot } from '../util/project.js'
import { installHarnessPackage, isolatedHome } from './cache.js'
import { converse } from './conversation.js'
import { DRIVERS, harnessRun, toolCall } from './drivers.js'
import { startScriptedModel } from './scripted-model.js'

/*
 * The plugin folder of test/fixtures/plugin-folder (tools word_count and delete_note, the beforeTool
 * hook keep on delete_note, skills counting and tidy), compiled with --plugin for Cline and pi (whose
 * pi/extensions/*.ts Cline must not load), installed by `cline plugin install <dir>` in a fresh home,
 * then used from a folder of the user's that holds nothing of ours: the model is shown both tools and
 * the skills, word_count runs, and the hook blocks delete_note on a kept note. What Cline did is in
 * docs/cline.md.
 *   npx vitest run --config vitest.harness.config.ts test/harness/plugin-cline.test.ts
 */

const PLUGIN = { name: 'word-tools', version: '2.1.0', description: 'Counts words.' }
const driver = DRIVERS.cline
const cleanup: string[] = []
let out: string
let plan: Plan
let work: string
let home: string
let env: NodeJS.ProcessEnv
let cline: string

beforeAll(async () => {
  const root = await copyProject(join(repoRoot, 'test/fixtures/plugin-folder'), 'oac-plugin-cline-')
  cleanup.push(root)
  out = join(root, 'out')
  ;({ plan } = await compile({ root, registry: 'agents/registry.ts:registry', target: 'out', plugin: PLUGIN, harnesses: ['cline', 'pi'] }))
  work = await mkdtemp(join(tmpdir(), 'oac-plugin-cline-work-'))
  cleanup.push(work)
  await promisify(execFile)('git', ['init', '-q', work])
  ;({ home, env } = await isolatedHome())
  cleanup.push(home)
  const { package: name, version } = harness('cline').proof.cli
  cline = join(await installHarnessPackage(name, version), 'node_modules/.bin/cline')
  await driver.install()
})

afterAll(async () => {
  for (const dir of cleanup) await rm(dir, { recursive: true, force: true })
})

describe(`${driver.title}: the plugin folder`, () => {
  it('`cline plugin install <dir>` copies the folder into the home and takes the two modules package.json names, not pi\'s', async () => {
    // No model is asked: the endpoint only satisfies harnessRun's loopback rule. The install loads the
    // modules in the plugin sandbox (to sync MCP servers), with the driver's import timeout (see drivers.ts).
    const model = await startScriptedModel({ scripts: {}, conversationOf: () => undefined, maxRequests: 0 })
    try {
      const run = await harnessRun(model, cline, ['plugin', 'install', '--json', out], { cwd: work, env: { ...env, CLINE_SESSION_BACKEND_MODE: 'local', CLINE_PLUGIN_IMPORT_TIMEOUT_MS: '60000' } })
      expect(run.code, run.stderr).toBe(0)
      const installed = JSON.parse(run.stdout) as { installPath: string; entryPaths: string[]; mcpSyncFailures: unknown[] }
      expect(installed.installPath.startsWith(join(home, '.cline/plugins/_installed/local/'))).toBe(true)
      const copy = join(installed.installPath, 'package')
      expect(installed.entryPaths.sort()).toEqual([join(copy, 'cline/extensions/oac-tools-hooks.ts'), join(copy, 'cline/oac-tools.ts')])
      expect(installed.mcpSyncFailures).toEqual([])
      // The whole folder is copied, the scripts and pi's package with it.
      expect(existsSync(join(copy, 'scripts/word_count.mjs'))).toBe(true)
      expect(existsSync(join(copy, 'pi/extensions/oac-tools.ts'))).toBe(true)
      expect(existsSync(join(copy, 'skills/counting/SKILL.md'))).toBe(true)
      const manifest = JSON.parse(await readFile(join(installed.installPath, 'package.json'), 'utf8')) as { cline: { plugins: Array<{ paths: string[] }> } }
      expect(manifest.cline.plugins.flatMap((entry) => entry.paths).sort()).toEqual(['./package/cline/extensions/oac-tools-hooks.ts', './package/cline/oac-tools.ts'])
    } finally {
      await model.close()
    }
  })

  it("shows the model both tools and the plugin's skills, runs word_count in the user's folder, and its beforeTool hook blocks delete_note on a kept note", async () => {
    const calls = [toolCall('cline', plan, 'word_count', { text: 'one two three' }), toolCall('cline', plan, 'delete_note', { name: 'keep-list' })]
    const model = await converse(driver, { project: work, plan, home, env }, { main: [{ calls: [calls[0]!] }, { calls: [calls[1]!] }, { text: 'done' }] })
    const [first, second, third] = model.conversation('main')
    const names = first!.tools.map((tool) => tool.name)
    expect(names).toEqual(expect.arrayContaining(['word_count', 'delete_note']))
    // pi's extension registers the same names: Cline would refuse a second word_count.
    expect(names.filter((name) => name === 'word_count')).toHaveLength(1)
    // The skills tool's description lists the skills by name (OpenAI's chat format: `{ type, function: { name, description } }`).
    const tools = first!.body.tools as Array<{ function: { name: string; description: string } }>
    const listing = tools.find((tool) => tool.function.name === 'skills')!.function.description
    expect(listing).toContain('counting')
    expect(driver.resultText(second!.toolResults[0]!.text)).toBe(`3 words, counted in ${work}.`)
    expect(driver.resultText(third!.toolResults[0]!.text)).toContain('keep-list is kept')
  })
})
