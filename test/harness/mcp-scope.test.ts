import { execFile } from 'node:child_process'
import { rm, writeFile } from 'node:fs/promises'
import { join, resolve } from 'node:path'
import { promisify } from 'node:util'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { compile } from '../../src/api.js'
import { harness } from '../../src/compile/harnesses/index.js'
import type { Plan } from '../../src/compile/plan.js'
import type { Harness } from '../../src/define/types.js'
import { copyProject } from '../util/project.js'
import { tempDir } from '../util/temp.js'
import { installHarnessPackage, isolatedHome } from './cache.js'
import { conversationOf } from './conversation.js'
import { DRIVERS, harnessRun, installQwen } from './drivers.js'
import { type McpFront, serverToolCall, startMcpFront } from './mcp-front.js'
import { offlineRun } from './offline.js'
import { bounded, compiledProject, type CompiledProject } from './project.js'
import { type ScriptedModel, type SeenRequest, startScriptedModel, type ToolCall } from './scripted-model.js'

/*
 * Per-agent scoping of the MCP servers someone else wrote, in each real CLI that scopes tools per agent,
 * against the scripted model: the agent `scribe` (fixtures/mcp-scope) is given the stdio server `notes`
 * alone; the main agent starts it, and the scribe must be shown `notes`' tool, not `tracker`'s (a
 * loopback streamable-HTTP server), and get the note back. The config's approval rules allow both
 * servers, which is what lets the calls run unasked where the harness reads rules from the project
 * (Claude Code, in a trusted folder). And the plugin folder, installed as a Gemini CLI extension and
 * into Claude Code from a local marketplace, whose `notes` reaches the model with its variable filled
 * from the CLI's environment.
 *   npx vitest run --config vitest.harness.config.ts test/harness/mcp-scope.test.ts
 * It prints `MCP scope tier: x/6` at the end.
 */

const fixture = resolve(import.meta.dirname, 'fixtures/mcp-scope')
const NOTES_SCRIPT = resolve(import.meta.dirname, 'fixtures/mcp-servers/servers/notes.mjs')
const SCOPED = ['claude', 'gemini', 'copilot', 'qwen', 'opencode', 'kilo'] as const satisfies readonly Harness[]
type Scoped = (typeof SCOPED)[number]

const NOTE = 'the note of the scope tier'
const NOTES = { server: 'notes', tool: 'read_note', description: 'Reads the note.' }
const TRACKER = { server: 'tracker', tool: 'open_ticket', description: 'Opens the ticket.' }

/**
 * Whether a request shows the model a tool: among its tools, or (Qwen Code, which holds MCP tools back
 * behind `tool_search`) named with its description in the request's text.
 */
function shows(request: SeenRequest, call: ToolCall, description: string): boolean {
  return request.tools.some((tool) => tool.name === call.name && tool.namespace === call.namespace) || JSON.stringify(request.body).includes(JSON.stringify(`"${call.name}": "${description}"`).slice(1, -1))
}

/* ---------------------------------------------------------------- the project */

let front: McpFront
let project: CompiledProject
const cleanup: string[] = []
const passed: Scoped[] = []

/** Compiles the fixture with the servers' places of this run in the environment (its registry reads them). */
async function withServerPlaces<T>(build: () => Promise<T>): Promise<T> {
  const places = { MCP_SCOPE_NOTES_SCRIPT: NOTES_SCRIPT, MCP_SCOPE_TRACKER_URL: `${front.url}/tracker/mcp` }
  Object.assign(process.env, places)
  try {
    return await build()
  } finally {
    for (const name of Object.keys(places)) delete process.env[name]
  }
}

beforeAll(async () => {
  front = await startMcpFront({ tool: TRACKER.tool, description: TRACKER.description, result: 'ticket 7 is open' })
  project = await withServerPlaces(() => compiledProject(fixture, 'oac-harness-mcp-scope-', { config: 'test', harnesses: [...SCOPED] }))
  cleanup.push(project.dir)
})

afterAll(async () => {
  console.log(`MCP scope tier: ${passed.length}/${SCOPED.length} (${passed.join(', ')})`)
  await front?.close()
  for (const dir of cleanup) await rm(dir, { recursive: true, force: true })
})

/** A project's servers wait for `qwen mcp approve <name>` (bound to the config as filled from this environment). */
async function approveQwenServers(env: NodeJS.ProcessEnv): Promise<void> {
  const { node, cli } = await installQwen()
  for (const server of [NOTES.server, TRACKER.server]) {
    const approved = await bounded(node, [cli, 'mcp', 'approve', server], { cwd: project.dir, env: { ...env, PATH: `${join(node, '..')}:${env.PATH}` }, timeoutMs: 120_000 })
    expect(approved.stdout + approved.stderr).toContain(`Approved MCP server "${server}"`)
  }
}

for (const id of SCOPED) {
  const driver = DRIVERS[id]
  // Kilo's project config takes no reference, so `notes` (its variable under its own name) is carried and `tracker` (no reference either) too.
  describe(driver.title, () => {
    let model: ScriptedModel
    beforeAll(async () => {
      await driver.install()
      const { home, env } = await isolatedHome()
      cleanup.push(home)
      const runEnv = { ...env, MCP_TIER_NOTE: NOTE }
      if (id === 'qwen') await approveQwenServers(runEnv)
      // The folder's trust, without which Claude Code reads no permission rule of the project's settings (the doctor's step).
      if (id === 'claude') await writeFile(join(home, '.claude.json'), JSON.stringify({ projects: { [project.dir]: { hasTrustDialogAccepted: true } } }))
      model = await startScriptedModel({
        scripts: { main: [...driver.startAgent!('scribe'), { text: 'done' }], scribe: [{ calls: [serverToolCall(id, NOTES.server, NOTES.tool)] }, driver.finishAgent('scribe finished')] },
        conversationOf: conversationOf(project.plan),
        maxRequests: 20,
      })
      front.model = model
      try {
        const result = await driver.run({ ...model, url: front.url, socket: front.socket }, { project: project.dir, plan: project.plan, home, env: runEnv })
        expect(result.timedOut, result.stderr).toBe(false)
        expect(result.code, `${result.stdout}\n${result.stderr}`).toBe(0)
      } finally {
        await model.close()
      }
    })

    it("shows the main agent both servers' tools, and the scribe notes' alone, whose call gets the note back", () => {
      const [main] = model.conversation('main')
      const [scribe, answered] = model.conversation('scribe')
      const notes = serverToolCall(id, NOTES.server, NOTES.tool)
      const tracker = serverToolCall(id, TRACKER.server, TRACKER.tool)
      // Both servers connected: the main agent, which lists no tools, is shown both.
      expect(shows(main!, tracker, TRACKER.description), 'main agent shown tracker').toBe(true)
      expect(shows(scribe!, notes, NOTES.description), JSON.stringify(scribe!.tools.map((tool) => tool.name))).toBe(true)
      expect(shows(scribe!, tracker, TRACKER.description), JSON.stringify(scribe!.tools.map((tool) => tool.name))).toBe(false)
      expect(answered!.toolResults).toHaveLength(1)
      expect(driver.resultText(answered!.toolResults[0]!.text).trim()).toBe(`note: ${NOTE}`)
      expect(model.conversation('main').at(-1)!.toolResults.map((result) => result.text).join('\n')).toContain('scribe finished')
      passed.push(id)
    })
  })
}

/* ---------------------------------------------------------------- a plugin folder */

describe('a plugin folder installed as a Gemini CLI extension', () => {
  const gemini = harness('gemini')
  let plugin: string
  let plan: Plan
  beforeAll(async () => {
    const source = await copyProject(fixture, 'oac-mcp-scope-plugin-src-')
    plugin = await tempDir('oac-mcp-scope-plugin-')
    cleanup.push(source, plugin)
    ;({ plan } = await withServerPlaces(() => compile({ root: source, registry: 'agents/registry.ts:registry', config: 'test', harnesses: ['gemini'], plugin: { name: 'scope-kit' }, target: plugin })))
  })

  it("starts the extension's notes server with its variable filled from the CLI's environment, and the model gets the note", async () => {
    const bin = join(await installHarnessPackage(gemini.proof.cli.package, gemini.proof.cli.version), 'node_modules', '.bin', 'gemini')
    const { home, env } = await isolatedHome()
    const work = await tempDir('oac-mcp-scope-work-')
    cleanup.push(home, work)
    await promisify(execFile)('git', ['init', '-q', work])
    const geminiEnv = { ...env, GEMINI_CLI_HOME: home }
    const installed = await offlineRun(bin, ['extensions', 'install', plugin, '--consent'], { cwd: work, env: geminiEnv, stdin: 'y\n' })
    expect(installed.code, installed.stdout + installed.stderr).toBe(0)
    await writeFile(join(home, '.gemini', 'settings.json'), JSON.stringify({ security: { auth: { selectedType: 'gemini-api-key' } } }))
    const call = serverToolCall('gemini', NOTES.server, NOTES.tool)
    const model = await startScriptedModel({ conversationOf: conversationOf(plan), scripts: { main: [{ calls: [call] }, { text: 'Done.' }] } })
    front.model = model
    try {
      const run = await harnessRun({ ...model, url: front.url, socket: front.socket }, bin, ['-p', 'Read the note.', '-o', 'json', '--approval-mode', 'yolo', '-m', 'gemini-2.5-flash'], {
        cwd: work,
        env: { ...geminiEnv, GEMINI_CLI_TRUST_WORKSPACE: 'true', GEMINI_API_KEY: 'scripted-model-key', GOOGLE_GEMINI_BASE_URL: front.url, MCP_TIER_NOTE: NOTE },
      })
      expect(run.code, `${run.stdout}\n${run.stderr}`).toBe(0)
    } finally {
      await model.close()
    }
    const [first, answered] = model.conversation('main')
    expect(shows(first!, call, NOTES.description)).toBe(true)
    expect(DRIVERS.gemini.resultText(answered!.toolResults[0]!.text).trim()).toBe(`note: ${NOTE}`)
  })
})

describe('a plugin folder installed in Claude Code from a local marketplace', () => {
  let plugin: string
  let plan: Plan
  beforeAll(async () => {
    const source = await copyProject(fixture, 'oac-mcp-scope-claude-src-')
    plugin = await tempDir('oac-mcp-scope-claude-')
    cleanup.push(source, plugin)
    ;({ plan } = await withServerPlaces(() => compile({ root: source, registry: 'agents/registry.ts:registry', config: 'test', harnesses: ['claude'], plugin: { name: 'scope-kit' }, target: plugin })))
    await DRIVERS.claude.install()
  })

  it("passes `claude plugin validate`, and its notes server, started with ${MCP_TIER_NOTE} filled from Claude's environment, answers the model", async () => {
    const cli = join(await installHarnessPackage(harness('claude').proof.cli.package, harness('claude').proof.cli.version), 'node_modules/.bin/claude')
    const { home, env } = await isolatedHome()
    const work = await tempDir('oac-mcp-scope-claude-work-')
    cleanup.push(home, work)
    await promisify(execFile)('git', ['init', '-q', work])
    const validated = await offlineRun(cli, ['plugin', 'validate', plugin], { cwd: work, env })
    expect(validated.code, validated.stdout + validated.stderr).toBe(0)
    for (const args of [['plugin', 'marketplace', 'add', plugin], ['plugin', 'install', 'scope-kit@scope-kit', '--scope', 'user']]) {
      const run = await offlineRun(cli, args, { cwd: work, env })
      expect(run.code, `${run.stdout}\n${run.stderr}`).toBe(0)
    }
    // A plugin's server is plugin_<plugin>_<server> (the description's plugin.serverName).
    const call = serverToolCall('claude', harness('claude').plugin.serverName('scope-kit', NOTES.server), NOTES.tool)
    const model = await startScriptedModel({ conversationOf: conversationOf(plan), scripts: { main: [{ calls: [call] }, { text: 'done' }] }, maxRequests: 10 })
    front.model = model
    try {
      const run = await harnessRun({ ...model, url: front.url, socket: front.socket }, cli, ['-p', 'Read the note.', '--output-format', 'stream-json', '--verbose', '--model', 'claude-sonnet-4-5', '--allowedTools', call.name], {
        cwd: work,
        env: { ...env, ANTHROPIC_BASE_URL: front.url, ANTHROPIC_API_KEY: 'scripted-model-key', CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1', MCP_CONNECTION_NONBLOCKING: 'false', ENABLE_TOOL_SEARCH: 'false', MCP_TIER_NOTE: NOTE },
      })
      expect(run.code, `${run.stdout}\n${run.stderr}`).toBe(0)
    } finally {
      await model.close()
    }
    const [first, answered] = model.conversation('main')
    expect(shows(first!, call, NOTES.description)).toBe(true)
    expect(DRIVERS.claude.resultText(answered!.toolResults[0]!.text).trim()).toBe(`note: ${NOTE}`)
  })
})
