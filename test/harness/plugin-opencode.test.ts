import { execFile } from 'node:child_process'
import { randomUUID } from 'node:crypto'
import { existsSync } from 'node:fs'
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { dirname, join, resolve } from 'node:path'
import { promisify } from 'node:util'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { compile } from '../../src/api.js'
import { harness } from '../../src/compile/harnesses/index.js'
import type { Plan } from '../../src/compile/plan.js'
import { copyProject } from '../util/project.js'
import { installHarnessPackage, isolatedHome, pluginTemplate, preinstallPlugin } from './cache.js'
import { converse, conversationOf } from './conversation.js'
import { DRIVERS, KILO_PLUGIN, toolCall } from './drivers.js'
import { type McpFront, serverToolCall, startMcpFront } from './mcp-front.js'
import { bounded, RUN_TIMEOUT_MS } from './project.js'
import { startScriptedModel } from './scripted-model.js'

/*
 * Proof of the opencode format of a plugin folder (issue 28): opencode 1.18.33 and Kilo 7.7.7 load
 * `opencode/index.mjs` (package.json `main`) from the folder named in the user's `"plugin": [...]`,
 * list its tools for an agent, and, against the scripted model, run one from a project that is not
 * the plugin's, its afterTool hook adding to the result, told which of the two it runs in; and start
 * the MCP servers someone else wrote that its `config` hook adds (issue 35), whose tools the model calls.
 *   npm run build && npx vitest run --config vitest.harness.config.ts test/harness/plugin-opencode.test.ts
 */

const fixture = resolve(import.meta.dirname, 'fixtures/hooks')
const TOOLS = ['count_words', 'delete_report', 'stamp', 'repeat']

/**
 * The hooks tier's registry and one more tool, whose optional field tells the schema the plugin gives
 * back in `tool.definition` from the one opencode would make of `args` (every property required), and
 * an agent, a command and a skill, which the plugin's `config` hook adds.
 */
const REGISTRY = `import { defineAgent, defineCommand, defineRegistry, defineSkill, defineTool } from 'unplugin-oac'
import { z } from 'zod'
import { registry } from './registry.ts'
import { countWords } from './tools/text.ts'

const repeat = defineTool({
  name: 'repeat',
  description: 'Repeats a text.',
  input: z.object({ text: z.string(), times: z.number().int().optional() }),
  run: ({ text, times }) => text.repeat(times ?? 2),
})

const counter = defineAgent({ name: 'counter', description: 'Counts words.', prompt: 'You count words.', tools: [countWords] })
const count = defineCommand({ name: 'count', description: 'Counts the words of a text', prompt: 'Count the words of {{args}}.', agent: counter })
const wordHelp = defineSkill({ name: 'word-help', description: 'Helps with words. Use for any question about words.', instructions: 'Count them.' })

export const plugin = defineRegistry({ ...registry, agents: [counter], tools: [...registry.tools!, repeat], skills: [wordHelp], commands: [count] })
`

/** opencode and Kilo: the config folder in `$XDG_CONFIG_HOME` and its config file, and the plugin package each installs there. */
const FAMILY = {
  opencode: { bin: 'opencode', config: 'opencode.json', plugin: '@opencode-ai/plugin', pluginVersion: harness('opencode').proof.cli.version },
  kilo: { bin: 'kilo', config: 'kilo.json', plugin: '@kilocode/plugin', pluginVersion: KILO_PLUGIN },
} as const

let pluginDir = ''
/** The folder as `npm pack` makes it into a package, which a user's config names by npm spec. */
let tarball = ''
let plan: Plan
const cleanup: string[] = []

beforeAll(async () => {
  const source = await copyProject(fixture, 'oac-plugin-opencode-src-')
  cleanup.push(source)
  await writeFile(join(source, 'agents/plugin.ts'), REGISTRY)
  // The folder outside the project that compiled it, as a user's copy of a published plugin is.
  const parent = await mkdtemp(join(tmpdir(), 'oac-plugin-opencode-'))
  cleanup.push(parent)
  pluginDir = join(parent, 'word-tools')
  const result = await compile({ root: source, registry: 'agents/plugin.ts:plugin', config: 'test', harnesses: ['opencode', 'kilo'], target: pluginDir, plugin: { name: 'word-tools', version: '1.0.0' } })
  expect(result.diagnostics.filter((d) => d.severity === 'error')).toEqual([])
  plan = result.plan
  const { stdout } = await promisify(execFile)('npm', ['pack', '--silent', '--ignore-scripts', '--pack-destination', parent], { cwd: pluginDir })
  tarball = join(parent, stdout.trim())
})

afterAll(async () => {
  for (const dir of cleanup) await rm(dir, { recursive: true, force: true })
})

for (const id of ['opencode', 'kilo'] as const) {
  const family = FAMILY[id]
  const { cli } = harness(id).proof

  describe(`${harness(id).title} ${cli.version} loads the plugin folder`, () => {
    let bin = ''
    let project = ''
    let env: NodeJS.ProcessEnv = {}
    let home = ''

    beforeAll(async () => {
      bin = join(await installHarnessPackage(cli.package, cli.version), 'node_modules/.bin', cli.bin)
      await DRIVERS[id].install()
      ;({ home, env } = await isolatedHome())
      cleanup.push(home)
      // A user's project that knows nothing of the plugin: an empty git repository.
      project = await mkdtemp(join(tmpdir(), `oac-plugin-user-${id}-`))
      cleanup.push(project)
      await promisify(execFile)('git', ['init', '-q', project])
      // The plugin, by its path, in the user's own config, as docs/plugins.md says.
      const userConfig = join(env.XDG_CONFIG_HOME!, family.bin)
      await mkdir(userConfig, { recursive: true })
      await writeFile(join(userConfig, family.config), JSON.stringify({ plugin: [pluginDir] }))
      // Offline, opencode and Kilo would wait to install their own plugin package into each config folder.
      const template = await pluginTemplate(family.plugin, family.pluginVersion)
      await preinstallPlugin(template, userConfig)
      env = { ...env, [`${id.toUpperCase()}_DISABLE_AUTOUPDATE`]: '1', [`${id.toUpperCase()}_DISABLE_MODELS_FETCH`]: '1' }
    })

    it("lists the plugin's tools for its default agent (`debug agent build`)", async () => {
      const listed = await bounded(bin, ['debug', 'agent', 'build'], { cwd: project, env, timeoutMs: RUN_TIMEOUT_MS })
      expect(listed.code, listed.stderr).toBe(0)
      for (const tool of TOOLS) expect(listed.stdout, tool).toMatch(new RegExp(`"${tool}":\\s*true`))
    })

    it("has the plugin's agent, with its tool and none of the others (`debug agent counter`)", async () => {
      const listed = await bounded(bin, ['debug', 'agent', 'counter'], { cwd: project, env, timeoutMs: RUN_TIMEOUT_MS })
      expect(listed.code, listed.stderr).toBe(0)
      expect(listed.stdout).toContain('You count words.')
      expect(listed.stdout).toMatch(/"count_words":\s*true/)
      expect(listed.stdout).toMatch(/"stamp":\s*false/)
    })

    it("has the plugin's command in the config it goes on with (`debug config`)", async () => {
      const shown = await bounded(bin, ['debug', 'config'], { cwd: project, env, timeoutMs: RUN_TIMEOUT_MS })
      expect(shown.code, shown.stderr).toBe(0)
      const { command } = JSON.parse(shown.stdout) as { command: Record<string, unknown> }
      expect(command.count).toEqual({ template: 'Count the words of $ARGUMENTS.', description: 'Counts the words of a text', agent: 'counter' })
    })

    it("runs the plugin's command as the plugin's agent (`run --command count`)", async () => {
      const model = await converse(DRIVERS[id], { project, plan, home, env, args: ['--command', 'count'], prompt: 'one two three' }, { counter: [{ text: 'Three words.' }], main: [{ text: 'done' }] })
      // The agent is a sub-agent: the command runs it as a task, whose answer the main agent reads.
      const [request] = model.conversation('counter')
      expect(request!.system).toContain('You count words.')
      expect(JSON.stringify(request!.body)).toMatch(/Count the words of \W*one two three/)
      expect(model.conversation('main')[0]!.toolResults[0]?.text).toContain('Three words.')
    })

    it(id === 'opencode' ? "lists the plugin's skill (`debug skill`)" : 'does not list the skill the config hook adds (`debug skill`): Kilo 7.7.7 leaves a plugin\'s skills path out', async () => {
      const listed = await bounded(bin, ['debug', 'skill'], { cwd: project, env, timeoutMs: RUN_TIMEOUT_MS })
      expect(listed.code, listed.stderr).toBe(0)
      const skills = JSON.parse(listed.stdout) as Array<{ name: string; location: string }>
      const skill = skills.find((entry) => entry.name === 'word-help')
      if (id === 'opencode') expect(skill?.location).toBe(join(pluginDir, 'opencode/skills/word-help/SKILL.md'))
      else expect(skill).toBeUndefined()
    })

    it('runs a tool of the plugin in the user\'s project, with the whole input schema shown, and its afterTool hook adds to the result', async () => {
      await mkdir(join(project, 'reports'), { recursive: true })
      await writeFile(join(project, 'reports/draft.md'), '# draft\n')
      const main = [
        { calls: [toolCall(id, plan, 'count_words', { text: 'one two three' })] },
        { calls: [toolCall(id, plan, 'delete_report', { name: 'draft' })] },
        { text: 'done' },
      ]
      // No agent of ours is in a plugin for opencode: every request with tools is the main conversation.
      const model = await converse(DRIVERS[id], { project, plan: { ...plan, agents: [] }, home, env }, { main })
      const [first, second, third] = model.conversation('main')
      // The schema of the `tool.definition` hook: the tool's own, its optional field not required.
      const schemaOf = (name: string) => first!.tools.find((tool) => tool.name === name)?.schema
      expect(schemaOf('count_words')).toMatchObject({ type: 'object', properties: { text: { type: 'string' } }, required: ['text'] })
      expect(schemaOf('repeat')).toMatchObject({ type: 'object', properties: { text: { type: 'string' }, times: { type: 'integer' } }, required: ['text'] })
      const [result] = second!.toolResults
      expect(result?.text).toContain('3 words')
      expect(result?.text).toContain(`HOOK-AFTER ${id} read`)
      // The session hook ran from the plugin, too: its context is in the first request.
      expect(first!.system).toContain(`HOOK-SESSION ${id}`)
      // The tool's script ran in the user's project, not in the plugin folder.
      expect(third!.toolResults[0]?.text).toContain('Deleted reports/draft.md.')
      expect(existsSync(join(project, 'reports/draft.md'))).toBe(false)
    })
  })
}

for (const id of ['opencode', 'kilo'] as const) {
  const family = FAMILY[id]
  const { cli } = harness(id).proof

  describe(`${harness(id).title} ${cli.version} loads the plugin as an npm package`, () => {
    it('installs it from the npm spec in "plugin" (the packed folder, offline), loads its main and runs a tool from its scripts', async () => {
      const bin = join(await installHarnessPackage(cli.package, cli.version), 'node_modules/.bin', cli.bin)
      const { home, env: homeEnv } = await isolatedHome()
      cleanup.push(home)
      const project = await mkdtemp(join(tmpdir(), `oac-plugin-npm-${id}-`))
      cleanup.push(project)
      await promisify(execFile)('git', ['init', '-q', project])
      const userConfig = join(homeEnv.XDG_CONFIG_HOME!, family.bin)
      await mkdir(userConfig, { recursive: true })
      // An npm spec, not a path: installed into the CLI's package cache as a package from a registry is.
      await writeFile(join(userConfig, family.config), JSON.stringify({ plugin: [`word-tools@file:${tarball}`] }))
      await preinstallPlugin(await pluginTemplate(family.plugin, family.pluginVersion), userConfig)
      const env = { ...homeEnv, [`${id.toUpperCase()}_DISABLE_AUTOUPDATE`]: '1', [`${id.toUpperCase()}_DISABLE_MODELS_FETCH`]: '1' }
      // `debug agent <agent> --tool <id> --params <json>` runs one tool of the agent, no model needed.
      const ran = await bounded(bin, ['debug', 'agent', 'counter', '--tool', 'count_words', '--params', JSON.stringify({ text: 'one two three four' })], { cwd: project, env, timeoutMs: RUN_TIMEOUT_MS })
      expect(ran.code, ran.stderr).toBe(0)
      expect(ran.stdout).toContain('4 words')
    })
  })
}

/*
 * The MCP servers tier's two servers (fixtures/mcp-servers: `notes`, stdio, its note from the
 * environment; `tracker`, streamable HTTP, 401 without the bearer token) in a plugin folder: no file
 * holds the note or the token, though both were set during the compile; the module's `config` hook adds
 * both servers, filling their references from the CLI's environment, and the CLI starts them as its
 * config's. Kilo takes the token here, which its project config cannot hold.
 */
describe('the MCP servers of a plugin folder', () => {
  const TOKEN = `plugin-token-${randomUUID()}`
  const NOTE = `plugin-note-${randomUUID()}`
  const SERVERS = [
    { server: 'notes', tool: 'read_note', result: `note: ${NOTE}` },
    { server: 'tracker', tool: 'open_ticket', result: 'ticket 7 is open' },
  ]
  let front: McpFront
  let serversDir = ''
  let serversPlan: Plan

  beforeAll(async () => {
    front = await startMcpFront({ tool: 'open_ticket', description: 'Opens the ticket.', result: 'ticket 7 is open', token: TOKEN })
    const fixture = resolve(import.meta.dirname, 'fixtures/mcp-servers')
    const source = await copyProject(fixture, 'oac-plugin-mcp-src-')
    cleanup.push(source)
    serversDir = join(await mkdtemp(join(tmpdir(), 'oac-plugin-mcp-')), 'server-kit')
    cleanup.push(dirname(serversDir))
    const compileEnv = { MCP_TIER_NOTES_SCRIPT: join(fixture, 'servers/notes.mjs'), MCP_TIER_TRACKER_URL: `${front.url}/tracker/mcp`, MCP_TIER_TOKEN: TOKEN, MCP_TIER_NOTE: NOTE }
    Object.assign(process.env, compileEnv)
    try {
      const result = await compile({ root: source, registry: 'agents/registry.ts:registry', config: 'test', harnesses: ['opencode', 'kilo'], target: serversDir, plugin: { name: 'server-kit', version: '1.0.0' } })
      expect(result.diagnostics.filter((d) => d.severity === 'error' || d.code === 'plugin-unsupported' || d.code === 'mcp-server-left-out')).toEqual([])
      serversPlan = result.plan
    } finally {
      for (const name of Object.keys(compileEnv)) delete process.env[name]
    }
  })

  afterAll(async () => {
    await front?.close()
  })

  it('holds neither the note nor the token in any file', async () => {
    const entries = await readdir(serversDir, { recursive: true, withFileTypes: true })
    for (const entry of entries.filter((item) => item.isFile())) {
      const text = await readFile(join(entry.parentPath, entry.name), 'utf8')
      expect(text.includes(TOKEN) || text.includes(NOTE), entry.name).toBe(false)
    }
  })

  for (const id of ['opencode', 'kilo'] as const) {
    const family = FAMILY[id]
    const { cli } = harness(id).proof

    it(`${harness(id).title} ${cli.version} shows the model each server's tool and returns its result`, async () => {
      await DRIVERS[id].install()
      const { home, env: homeEnv } = await isolatedHome()
      cleanup.push(home)
      const project = await mkdtemp(join(tmpdir(), `oac-plugin-mcp-user-${id}-`))
      cleanup.push(project)
      await promisify(execFile)('git', ['init', '-q', project])
      const userConfig = join(homeEnv.XDG_CONFIG_HOME!, family.bin)
      await mkdir(userConfig, { recursive: true })
      await writeFile(join(userConfig, family.config), JSON.stringify({ plugin: [serversDir] }))
      await preinstallPlugin(await pluginTemplate(family.plugin, family.pluginVersion), userConfig)
      const calls = SERVERS.map(({ server, tool }) => ({ calls: [serverToolCall(id, server, tool)] }))
      const model = await startScriptedModel({ scripts: { main: [...calls, { text: 'done' }] }, conversationOf: conversationOf(serversPlan), maxRequests: 20 })
      front.model = model
      front.mcpRequests = []
      try {
        // The note and the token are in the CLI's environment alone.
        const run = await DRIVERS[id].run({ ...model, url: front.url, socket: front.socket }, { project, plan: serversPlan, home, env: { ...homeEnv, MCP_TIER_TOKEN: TOKEN, MCP_TIER_NOTE: NOTE } })
        expect(run.timedOut, run.stderr).toBe(false)
        expect(run.code, `${run.stdout}\n${run.stderr}`).toBe(0)
      } finally {
        await model.close()
      }
      expect(model.refused).toEqual([])
      const requests = model.conversation('main')
      expect(requests).toHaveLength(SERVERS.length + 1)
      const shown = requests[0]!.tools.map((tool) => tool.name)
      SERVERS.forEach(({ server, tool, result }, index) => {
        expect(shown).toContain(serverToolCall(id, server, tool).name)
        expect(requests[index + 1]!.toolResults.map((answer) => answer.text.trim())).toEqual([result])
      })
      // Every call the CLI made to the HTTP server carried the token from its environment.
      expect(front.mcpRequests.filter((request) => request.method === 'tools/call').map((request) => request.authorized)).toEqual([true])
    })
  }
})
