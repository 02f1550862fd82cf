import { execFile } from 'node:child_process'
import { existsSync } from 'node:fs'
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { parse as parseJsonc } from 'jsonc-parser'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { compile } from '../../src/api.js'
import type { Plan } from '../../src/compile/plan.js'
import { copyProject, repoRoot } from '../util/project.js'
import { isolatedHome } from './cache.js'
import { conversationOf } from './conversation.js'
import { DRIVERS, toolCall } from './drivers.js'
import { direct } from './project.js'
import { type ScriptedModel, startScriptedModel, type Turn } from './scripted-model.js'

/*
 * A project `.gemini/settings.json` still in Gemini CLI's first settings layout (top-level `coreTools`,
 * `excludeTools`, `autoAccept`, `checkpointing`, ...), compiled into with the playground's `prod`
 * config, and the real Gemini CLI 0.61 run in it without yolo (the approval rules decide).
 *
 * What 0.61 does with such a file (its bundle, packages/cli/src/config/settings.ts): it has no
 * migration of the first layout any more. `_doLoadSettings` validates against a schema that passes
 * unknown top-level keys through, and `loadCliConfig` reads only the nested keys (`tools.core`,
 * `tools.allowed`, `general.checkpointing.enabled`, ...): the first layout's keys stay in the file and
 * do nothing, with our entries or without them. `migrateDeprecatedSettings` rewrites a workspace file
 * only for a few keys of the nested layout (`general.disableAutoUpdate`, `general.disableUpdateNag`,
 * `ui.accessibility.disableLoadingPhrases`, `context.fileFiltering.disableFuzzySearch`,
 * `tools.approvalMode`, `experimental.*`), through comment-json: comments kept, the whole file indented
 * again with two spaces.
 *   npx vitest run --config vitest.harness.config.ts test/harness/gemini-legacy-settings.test.ts
 */

/** A user's settings in the first layout: what 0.61 ignores, as a real project's file has it. */
const FIRST_LAYOUT = `{
  // The team's Gemini CLI settings.
  "theme": "GitHub",
  "autoAccept": true,
  "checkpointing": { "enabled": true },
  "coreTools": ["ReadFileTool", "GlobTool"],
  "excludeTools": ["run_shell_command"],
  "contextFileName": "AGENTS.md",
  "usageStatisticsEnabled": false
}
`
/** The same, plus a key of the nested layout that 0.61 migrates, and so writes the file again. */
const DEPRECATED_NESTED = FIRST_LAYOUT.replace('"usageStatisticsEnabled": false', '"usageStatisticsEnabled": false,\n  "general": { "disableAutoUpdate": true }')

const SETTINGS = '.gemini/settings.json'
// The server, the approval rules and the playground's hook (its `guard`), each after the user's keys.
const OURS = ['mcpServers', 'tools', 'hooks']
const KEPT = 'keep'
const driver = DRIVERS.gemini

const cleanup: string[] = []

afterAll(async () => {
  for (const dir of cleanup) await rm(dir, { recursive: true, force: true })
})

interface Project {
  dir: string
  plan: Plan
  /** The settings file as compile left it. */
  merged: string
}

/** The playground with the user's settings file, made a git repository and compiled for Gemini CLI with its `prod` config. */
async function projectWith(settings: string): Promise<Project> {
  const dir = await copyProject(join(repoRoot, 'playground'), 'oac-gemini-v1-')
  cleanup.push(dir)
  await promisify(execFile)('git', ['init', '-q', dir])
  await mkdir(join(dir, '.gemini'), { recursive: true })
  await writeFile(join(dir, SETTINGS), settings)
  const { plan } = await compile({ root: dir, registry: 'agents/registry.ts:registry', config: 'prod', harnesses: ['gemini'] })
  return { dir, plan, merged: await readFile(join(dir, SETTINGS), 'utf8') }
}

/** One headless run in the project, without yolo unless `yolo`, from a fresh home. */
async function run(project: Project, main: Turn[], yolo = false): Promise<ScriptedModel> {
  const { home, env } = await isolatedHome()
  cleanup.push(home)
  const model = await startScriptedModel({ scripts: { main }, conversationOf: conversationOf(project.plan), maxRequests: 20 })
  try {
    const result = await driver.run(model, { project: project.dir, plan: project.plan, home, env, keepApprovals: !yolo })
    expect(result.timedOut, result.stderr).toBe(false)
    expect(result.code, `${result.stdout}\n${result.stderr}`).toBe(0)
  } finally {
    await model.close()
  }
  expect(model.refused).toEqual([])
  expect(model.conversation('main')).toHaveLength(main.length)
  return model
}

const parse = (text: string) => parseJsonc(text) as Record<string, unknown>

describe(`${driver.title}: a settings file in the first layout`, () => {
  let project: Project
  beforeAll(async () => {
    await driver.install()
    project = await projectWith(FIRST_LAYOUT)
  })

  it("keeps every byte of the user's file before our entries, and each of the user's keys as it was", () => {
    const { merged } = project
    // Ours go after the user's last key: the user's text stands as it was up to its closing brace.
    const userText = FIRST_LAYOUT.slice(0, FIRST_LAYOUT.lastIndexOf('\n}'))
    expect(merged.startsWith(userText)).toBe(true)
    const user = parse(FIRST_LAYOUT)
    const written = parse(merged)
    expect(Object.keys(written)).toEqual([...Object.keys(user), ...OURS])
    for (const key of Object.keys(user)) expect(written[key], key).toEqual(user[key])
  })

  it('holds our approval rules without yolo: an allowed tool runs unasked, one that asks is refused, and Gemini leaves the file as it is', async () => {
    const { dir, plan, merged } = project
    await mkdir(join(dir, 'reports'), { recursive: true })
    await writeFile(join(dir, `reports/${KEPT}.md`), '# A report to keep\n')
    const converted = { value: 5, from: 'km', to: 'mi' }
    const main: Turn[] = [{ calls: [toolCall('gemini', plan, 'convert_units', converted)] }, { calls: [toolCall('gemini', plan, 'delete_report', { name: KEPT })] }, { text: 'done' }]
    const requests = (await run(project, main)).conversation('main')
    const ran = requests[1]!.toolResults[0]!
    expect(ran.isError).not.toBe(true)
    expect(driver.resultText(ran.text)).toBe((await direct(dir, 'convert_units', converted)).stdout.trimEnd())
    const refused = requests[2]!.toolResults[0]!
    expect(refused.isError).toBe(true)
    expect(refused.text).toMatch(/^Tool execution for "delete_report \(oac-tools MCP Server\)" requires user confirmation, which is not supported in non-interactive mode\.$/)
    expect(existsSync(join(dir, `reports/${KEPT}.md`))).toBe(true)
    expect(await readFile(join(dir, SETTINGS), 'utf8')).toBe(merged)
  })

  it("gives the user's settings the effect they have without our entries: 0.61 reads none of the first layout", async () => {
    const { dir, plan, merged } = project
    const shown = async (settings: string, yolo: boolean) => {
      await writeFile(join(dir, SETTINGS), settings)
      const [request] = (await run(project, [{ text: 'done' }], yolo)).conversation('main')
      return request!.tools.map((tool) => tool.name)
    }
    const ours = plan.tools.filter((tool) => tool.json).map((tool) => toolCall('gemini', plan, tool.name, {}).name)
    for (const yolo of [false, true]) {
      const without = await shown(FIRST_LAYOUT, yolo)
      const withOurs = await shown(merged, yolo)
      expect(withOurs.filter((name) => !ours.includes(name)), `yolo: ${yolo}`).toEqual(without)
      expect(withOurs.filter((name) => ours.includes(name)).sort(), `yolo: ${yolo}`).toEqual([...ours].sort())
      // `coreTools` would have left read_file and glob alone: 0.61 shows more (without yolo, the tools that
      // ask are left out in a headless run, whatever the settings).
      expect(without, `yolo: ${yolo}`).toEqual(expect.arrayContaining(['read_file', 'glob', 'list_directory', 'grep_search']))
      // `excludeTools` would have hidden the shell: 0.61 shows it where it shows the tools that ask.
      if (yolo) expect(without).toContain('run_shell_command')
    }
    await writeFile(join(dir, SETTINGS), merged)
  })
})

describe(`${driver.title}: a settings file it writes again`, () => {
  it('migrates its deprecated key and keeps our entries, which the next compile finds as they are', async () => {
    await driver.install()
    const project = await projectWith(DEPRECATED_NESTED)
    const { dir, plan, merged } = project
    await run(project, [{ text: 'done' }])
    const rewritten = await readFile(join(dir, SETTINGS), 'utf8')
    expect(rewritten).not.toBe(merged)
    const before = parse(merged)
    const after = parse(rewritten)
    // The one change: `general.disableAutoUpdate: true` became `general.enableAutoUpdate: false`; comments stay.
    expect(after).toEqual({ ...before, general: { enableAutoUpdate: false } })
    expect(rewritten).toContain("// The team's Gemini CLI settings.")
    const again = await compile({ root: dir, registry: 'agents/registry.ts:registry', config: 'prod', harnesses: ['gemini'] })
    expect(again.report.written).not.toContain(SETTINGS)
    expect(await readFile(join(dir, SETTINGS), 'utf8')).toBe(rewritten)
    expect(again.plan).toEqual(plan)
  })
})
