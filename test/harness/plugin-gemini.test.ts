import { execFile } from 'node:child_process'
import { rm, writeFile } from 'node:fs/promises'
import { basename, join, resolve } from 'node:path'
import { promisify } from 'node:util'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { compile } from '../../src/api.js'
import { gemini } from '../../src/compile/harnesses/gemini.js'
import { targetOf } from '../../src/compile/target.js'
import { qwen } from '../../src/compile/harnesses/qwen.js'
import type { Plan } from '../../src/compile/plan.js'
import { copyProject, repoRoot } from '../util/project.js'
import { tempDir } from '../util/temp.js'
import { installHarnessPackage, isolatedHome } from './cache.js'
import { conversationOf } from './conversation.js'
import { harnessRun, installQwen, NODE22 } from './drivers.js'
import { offlineRun } from './offline.js'
import type { BoundedRun } from './project.js'
import { type ScriptedModel, startScriptedModel, type ToolCall, type Turn } from './scripted-model.js'

/**
 * The real Gemini CLI and Qwen Code install the plugin folder as an extension, offline, with a fresh
 * home each time: their own validate, link/install and list commands, and headless runs in an
 * unrelated project whose scripted model calls the extension's tools. Opt-in tier:
 * `npx vitest run --config vitest.harness.config.ts test/harness/plugin-gemini.test.ts`.
 */

const GEMINI_VERSION = gemini.proof.cli.version
const QWEN_VERSION = qwen.proof.cli.version
const PLUGIN = 'weather-kit'
const SERVER = 'oac-tools'

let plugin: string
let plan: Plan
/** The user's project: a folder of its own, with nothing of ours in it. */
let work: string
let bin: string
const cleanup: string[] = []

beforeAll(async () => {
  const project = await copyProject(resolve(repoRoot, 'test/fixtures/plugin-gemini'), 'oac-plugin-gemini-')
  plugin = await tempDir('oac-plugin-gemini-dir-')
  ;({ plan } = await compile({ root: project, registry: 'agents/registry.ts:registry', config: 'test', harnesses: ['gemini', 'qwen'], plugin: {}, target: plugin }))
  work = await tempDir('oac-plugin-gemini-work-')
  await promisify(execFile)('git', ['init', '-q', work])
  bin = join(await installHarnessPackage(gemini.proof.cli.package, GEMINI_VERSION), 'node_modules', '.bin', 'gemini')
})

afterAll(async () => {
  for (const dir of cleanup) await rm(dir, { recursive: true, force: true })
})

/** A call of one of the extension's tools, by the name Gemini shows its model: the server keeps its own name. */
const tool = (name: string, input: Record<string, unknown>): ToolCall => ({ name: `mcp_${SERVER}_${name}`, input })

async function geminiHome(): Promise<NodeJS.ProcessEnv> {
  const { home, env } = await isolatedHome()
  cleanup.push(home)
  return { ...env, GEMINI_CLI_HOME: home }
}

/** Runs the CLI in the user's project; it prints its messages on stdout or stderr, by command: both are returned as `output`. */
async function runGemini(args: string[], env: NodeJS.ProcessEnv, stdin?: string) {
  const run = await offlineRun(bin, args, { cwd: work, env, ...(stdin !== undefined && { stdin }) })
  return { ...run, output: run.stdout + run.stderr }
}

describe(`Gemini CLI ${GEMINI_VERSION} and the plugin folder`, () => {
  it('validates it, links it, and lists the extension, its server (connected, under its own name) and its skill', async () => {
    const env = await geminiHome()
    const validated = await runGemini(['extensions', 'validate', plugin], env)
    expect(validated.code, validated.stderr).toBe(0)
    expect(validated.output).toContain(`Extension ${plugin} has been successfully validated.`)

    const linked = await runGemini(['extensions', 'link', plugin, '--consent'], env)
    expect(linked.code, linked.stderr).toBe(0)
    expect(linked.output).toContain(`Extension "${PLUGIN}" linked successfully and enabled.`)

    const listed = await runGemini(['extensions', 'list'], env)
    expect(listed.code, listed.stderr).toBe(0)
    expect(listed.output).toContain(`✓ ${PLUGIN} (1.2.0)`)
    expect(listed.output).toMatch(new RegExp(`MCP servers:\\n\\s+${SERVER}\\n`))
    expect(listed.output).toMatch(/Agent skills:\n\s+weather-reports: Writes short weather reports/)

    // A trusted project folder: Gemini starts a stdio server only there.
    const servers = await runGemini(['mcp', 'list'], { ...env, GEMINI_CLI_TRUST_WORKSPACE: 'true' })
    expect(servers.output).toMatch(new RegExp(`✓ ${SERVER} \\(from ${PLUGIN}\\): node ${plugin}/scripts/mcp_tools_server\\.cjs \\(stdio\\) - Connected$`, 'm'))
  })

  it('installed (copied into its home), gives a headless run in an unrelated project its tools, hook, approval rule and agent', async () => {
    const env = await installedHome()
        const { model, run } = await headless(env, 'Plan the week.', {
      main: [
        { calls: [tool('forecast', { city: 'Oslo' })] },
        { calls: [tool('delete_report', { name: 'prod-1' })] },
        { calls: [tool('delete_report', { name: 'draft-1' })] },
        { calls: [{ name: 'invoke_agent', input: { agent_name: 'planner', prompt: 'Plan Bergen.' } }] },
        { text: 'Done.' },
      ],
      planner: [{ calls: [tool('forecast', { city: 'Bergen' })] }, { calls: [{ name: 'complete_task', input: { result: 'Go on Monday.' } }] }],
    })
    // The names the description gives (prompts, allow-lists and hook matchers are made from them) are those the model was shown.
    expect(model.conversation('main')[0]!.tools.map((shownTool) => shownTool.name)).toContain(gemini.modelToolName(targetOf(plan).shownServerName('gemini'), 'forecast'))
    const results = (conversation: string) => model.conversation(conversation).flatMap((request) => request.toolResults)
    const [oslo, kept, asked, delegated] = results('main')
    // Started by path from the installed copy, in the user's project, with the user's variable forwarded.
    expect(oslo).toMatchObject({ name: tool('forecast', {}).name, isError: false })
    expect(oslo!.text).toContain(`Forecast for Oslo: sunny, units imperial, run in ${basename(work)}.`)
    // The hook of hooks/hooks.json blocks; the ask rule of policies/ holds even in yolo mode (a headless run cannot ask).
    expect(kept).toMatchObject({ isError: true, text: 'Tool execution blocked: prod reports are kept' })
    expect(asked!.isError).toBe(true)
    expect(asked!.text).toContain('requires user confirmation, which is not supported in non-interactive mode')
    // The extension's agent: shown its own tools alone, by the names its prompt documents.
    const [shown] = model.conversation('planner')
    expect(shown!.tools.map((shownTool) => shownTool.name).sort()).toEqual(['complete_task', tool('delete_report', {}).name, tool('forecast', {}).name])
    expect(shown!.system).toContain(`Call the tool \`${tool('forecast', {}).name}\``)
    expect(results('planner')[0]!.text).toContain(`Forecast for Bergen: sunny, units imperial, run in ${basename(work)}.`)
    expect(delegated!.text).toContain('Go on Monday.')
    expect(JSON.parse(run.stdout)).toMatchObject({ response: 'Done.' })
  })

  it("installed, starts its command headless, activates its skill, and runs the skill's copy of a tool script in the user's project", async () => {
    const env = await installedHome()
    const folder = join(env.GEMINI_CLI_HOME!, '.gemini', 'extensions', PLUGIN, 'skills', 'weather-reports')
    const shell = { name: 'run_shell_command', input: { command: `node ${folder}/scripts/forecast.mjs --city Oslo`, description: 'Run the forecast' } }
    const { model } = await headless(env, '/forecast Oslo', { main: [{ calls: [{ name: 'activate_skill', input: { name: 'weather-reports' } }] }, { calls: [shell] }, { text: 'Done.' }] })
    const [asked, activated, ran] = model.conversation('main')
    // commands/forecast.toml, its {{args}} filled.
    expect(JSON.stringify(asked!.body)).toContain('Get the forecast for Oslo and summarise it in two lines.')
    // skills/weather-reports, read from the installed copy.
    const [skill] = activated!.toolResults
    expect(skill).toMatchObject({ name: 'activate_skill', isError: false })
    expect(skill!.text).toContain('Get the forecast of each city the user names')
    expect(skill!.text).toContain(folder)
    // The skill's launcher starts the extension's script, in the folder the shell runs in: the user's project.
    expect(ran!.toolResults[0]!.text).toContain(`Forecast for Oslo: sunny, units imperial, run in ${basename(work)}.`)
  })
})

/** A fresh home with the plugin folder installed (copied) into it, and the settings of a user with an API key. */
async function installedHome(): Promise<NodeJS.ProcessEnv> {
  const env = await geminiHome()
  // `--consent` takes the extension's warning; the folder's trust is asked apart, and answered as a user would.
  const installed = await runGemini(['extensions', 'install', plugin, '--consent'], env, 'y\n')
  expect(installed.code, installed.output).toBe(0)
  expect(installed.output).toContain(`Extension "${PLUGIN}" installed successfully and enabled.`)
  await writeFile(join(env.GEMINI_CLI_HOME!, '.gemini', 'settings.json'), JSON.stringify({ security: { auth: { selectedType: 'gemini-api-key' } } }))
  return env
}

/** One headless run in the user's project against a scripted model (yolo: the extension's own rules still apply), checked to end well. */
async function headless(env: NodeJS.ProcessEnv, prompt: string, scripts: Record<string, Turn[]>): Promise<{ model: ScriptedModel; run: BoundedRun }> {
  const model = await startScriptedModel({ conversationOf: conversationOf(plan), scripts })
  try {
    const run = await harnessRun(model, bin, ['-p', prompt, '-o', 'json', '--approval-mode', 'yolo', '-m', 'gemini-2.5-flash'], {
      cwd: work,
      env: { ...env, GEMINI_CLI_TRUST_WORKSPACE: 'true', GEMINI_API_KEY: 'scripted-model-key', GOOGLE_GEMINI_BASE_URL: model.url, FORECAST_UNITS: 'imperial' },
    })
    expect(run.timedOut, run.stderr).toBe(false)
    expect(run.code, `${run.stdout}\n${run.stderr}`).toBe(0)
    return { model, run }
  } finally {
    await model.close()
  }
}

describe(`Qwen Code ${QWEN_VERSION} under Node ${NODE22} and the plugin folder`, () => {
  let node = ''
  let cli = ''
  beforeAll(async () => {
    ;({ node, cli } = await installQwen())
  })

  async function qwenHome(): Promise<NodeJS.ProcessEnv> {
    const { home, env } = await isolatedHome()
    cleanup.push(home)
    return env
  }

  async function runQwen(args: string[], env: NodeJS.ProcessEnv) {
    const run = await offlineRun(node, [cli, ...args], { cwd: work, env: { ...env, PATH: `${join(node, '..')}:${env.PATH}` } })
    return { ...run, output: run.stdout + run.stderr }
  }

  it('installs it as it is (its qwen-extension.json), lists the extension with its command, skill, agent and server, and connects the server', async () => {
    const env = await qwenHome()
    const installed = await runQwen(['extensions', 'install', plugin, '--consent'], env)
    expect(installed.code, installed.output).toBe(0)
    expect(installed.output).toContain(`Extension "${PLUGIN}" installed successfully and enabled.`)
    const listed = await runQwen(['extensions', 'list'], env)
    expect(listed.code, listed.output).toBe(0)
    // Origin QwenCode: taken as a Qwen extension, not converted from Gemini's manifest.
    expect(listed.output).toMatch(new RegExp(`✓ ${PLUGIN} \\(1\\.2\\.0\\)\\n[^✓]*Origin: QwenCode\\n`))
    expect(listed.output).toMatch(/Commands:\n\s+\/forecast\n\s*Skills:\n\s+weather-reports\n\s*Agents:\n\s+planner\n\s*MCP servers:\n\s+oac-tools/)
    // An extension's server needs no approval (a project's does).
    const servers = await runQwen(['mcp', 'list'], env)
    expect(servers.output).toMatch(new RegExp(`✓\\S* ${SERVER}: node ${join(env.HOME!, '.qwen', 'extensions', PLUGIN)}/scripts/mcp_tools_server\\.cjs \\(stdio\\) - Connected$`, 'm'))
  })

  it("a headless run in an unrelated project calls the extension's tool and gets its result; its hook blocks; its command starts; its agent gets none of the tools", async () => {
    const env = await qwenHome()
    const installed = await runQwen(['extensions', 'install', plugin, '--consent'], env)
    expect(installed.code, installed.output).toBe(0)
    await writeFile(join(env.HOME!, '.qwen', 'settings.json'), JSON.stringify({ memory: { enableManagedAutoMemory: false, enableManagedAutoDream: false }, model: { generationConfig: { modalities: { image: true } } } }))
    // Qwen names the extension's server as it is: mcp__<server>__<tool>.
    const call = (name: string, input: Record<string, unknown>): ToolCall => ({ name: `mcp__${SERVER}__${name}`, input })
    const model = await startScriptedModel({
      conversationOf: conversationOf(plan),
      scripts: {
        main: [
          { calls: [call('forecast', { city: 'Oslo' })] },
          { calls: [call('delete_report', { name: 'prod-1' })] },
          { calls: [{ name: 'agent', input: { subagent_type: 'planner', description: 'Ask the planner', prompt: 'Go.', run_in_background: false } }] },
          { text: 'Done.' },
        ],
      },
    })
    try {
      const run = await harnessRun(model, node, [cli, '-p', '/forecast Oslo', '--yolo'], {
        cwd: work,
        env: { ...env, PATH: `${join(node, '..')}:${env.PATH}`, OPENAI_API_KEY: 'scripted-model-key', OPENAI_BASE_URL: `${model.url}/v1`, OPENAI_MODEL: 'scripted', QWEN_CODE_SUPPRESS_YOLO_WARNING: '1', FORECAST_UNITS: 'imperial' },
      })
      expect(run.code, `${run.stdout}\n${run.stderr}`).toBe(0)
    } finally {
      await model.close()
    }
    // Named to the model (its MCP tools are deferred: listed in a reminder, called by name) as the description names them.
    expect(JSON.stringify(model.conversation('main')[0]!.body)).toContain(qwen.modelToolName(targetOf(plan).shownServerName('qwen'), 'forecast'))
    const [asked, forecast, blocked] = model.conversation('main')
    // commands/forecast.toml, read as TOML (no conversion), its {{args}} filled.
    expect(JSON.stringify(asked!.body)).toContain('Get the forecast for Oslo and summarise it in two lines.')
    expect(forecast!.toolResults[0]).toMatchObject({ name: call('forecast', {}).name, text: `Forecast for Oslo: sunny, units imperial, run in ${basename(work)}.` })
    // The hook of qwen-extension.json, under Qwen's event name.
    expect(blocked!.toolResults[0]).toMatchObject({ name: call('delete_report', {}).name, text: 'prod reports are kept' })
    // The caveat compile warns of: the agent is Gemini's file, its tools named as Gemini names them, so Qwen shows it none of ours.
    const planner = model.requests.find((request) => request.system.includes(plan.agents[0]!.prompt))
    expect(planner, 'the planner was started').toBeDefined()
    expect(planner!.tools.filter((shownTool) => shownTool.name.startsWith('mcp__'))).toEqual([])
  })
})
