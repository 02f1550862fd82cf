import { spawn } from 'node:child_process'
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { JsonSchema, Plan } from '../../src/compile/plan.js'
import type { JsonValue } from '../../src/define/types.js'
import { zodGaps } from '../../src/emit/codegen/zod-code.js'
import { buildTarget, fixturePlan, type Run, run } from '../emit-native/fixture.js'
import { normalizeSchema } from '../emit-native/schema-tools.js'
import { installHarnessPackage, isolatedHome, pluginTemplate, preinstallPlugin } from './cache.js'
import { offlineRun } from './offline.js'

/*
 * The opt-in tier: the real harnesses load what the native emitters write, offline.
 *   npx vitest run --config vitest.harness.config.ts test/harness/opencode-pi-omp.test.ts
 * opencode-ai 1.18.33 (its Bun binary), pi 0.73.1 (@mariozechner/pi-coding-agent, the devDependency,
 * under Node), oh-my-pi 18.2.3 under bun 1.4.5. Each harness runs with a fresh home and, where
 * `unshare` allows it, with no network but loopback.
 */

const repoRoot = resolve(import.meta.dirname, '../..')
const OPENCODE = '1.18.33'
const TOKEN = 'harness-token'
const MODEL = 'anthropic/claude-sonnet-4-5'

/**
 * What the script prints when run directly, and `text`, the result every native form must give back:
 * the tool's text, as printed but for the line end the command line adds.
 */
async function direct(target: string, tool: string, input: Record<string, unknown>, env: NodeJS.ProcessEnv, cwd = target): Promise<Run & { text: string; progress: string[] }> {
  const result = await run('node', [join(target, 'scripts', `${tool}.mjs`), '--json'], { cwd, stdin: JSON.stringify(input), env })
  const progress = result.stderr
    .split('\n')
    .filter((line) => line.startsWith('oac:progress '))
    .map((line) => (JSON.parse(line.slice('oac:progress '.length)) as { message: string }).message)
  return { ...result, text: result.stdout.replace(/\n$/, ''), progress }
}

function schemaOf(plan: Plan, tool: string): JsonSchema {
  return plan.tools.find((t) => t.name === tool)!.schema
}

const TOOLS = ['forecast', 'add_note', 'count', 'explode']
const COUNT_INPUT = { to: 3 }

const bridges = ['process', 'inline'] as const
const targets = new Map<(typeof bridges)[number], { plan: Plan; dir: string }>()
let homeEnv: NodeJS.ProcessEnv = {}

const cleanup: string[] = []

beforeAll(async () => {
  const home = await isolatedHome()
  cleanup.push(home.home)
  homeEnv = { ...home.env, OAC_NATIVE_TOKEN: TOKEN }
  for (const bridge of bridges) {
    const plan = await fixturePlan({ bridge })
    // Outside the repository: nothing resolves from our node_modules.
    const dir = await mkdtemp(join(tmpdir(), `oac-harness-${bridge}-`))
    cleanup.push(dir)
    targets.set(bridge, { plan, dir: await buildTarget(plan, dir) })
  }
})

afterAll(async () => {
  for (const dir of cleanup) await rm(dir, { recursive: true, force: true })
})

/* ---------------------------------------------------------------- opencode */

describe('opencode 1.18.33', () => {
  let opencode = ''
  let env: NodeJS.ProcessEnv = {}

  beforeAll(async () => {
    const prefix = await installHarnessPackage('opencode-ai', OPENCODE, [`@opencode-ai/plugin@${OPENCODE}`])
    opencode = join(prefix, 'node_modules/.bin/opencode')
    env = { ...homeEnv, OPENCODE_DISABLE_AUTOUPDATE: '1', OPENCODE_DISABLE_MODELS_FETCH: '1' }
    const template = await pluginTemplate('@opencode-ai/plugin', OPENCODE)
    await preinstallPlugin(template, join(env.XDG_CONFIG_HOME!, 'opencode'))
    for (const { dir } of targets.values()) {
      await preinstallPlugin(template, join(dir, '.opencode'))
      // A configured model spares opencode the provider lookup.
      await writeFile(join(dir, 'opencode.json'), JSON.stringify({ model: MODEL }))
      await mkdir(join(dir, 'sub'), { recursive: true })
    }
  })

  async function debugAgent(cwd: string, agent: string, tool?: { name: string; params: unknown }): Promise<Record<string, unknown>> {
    const args = ['debug', 'agent', agent, ...(tool ? ['--tool', tool.name, '--params', JSON.stringify(tool.params)] : [])]
    const result = await offlineRun(opencode, args, { cwd, env })
    expect(result.code, result.stderr).toBe(0)
    return JSON.parse(result.stdout) as Record<string, unknown>
  }

  it('lists each generated agent with its allow-list allowed and every other tool denied', async () => {
    const { dir } = targets.get('process')!
    const planner = await debugAgent(dir, 'planner')
    expect(planner).toMatchObject({ name: 'planner', mode: 'subagent', description: 'Plans trips with forecasts and notes.', temperature: 0.2 })
    expect(planner.model).toEqual({ providerID: 'anthropic', modelID: 'claude-sonnet-4-5' })
    // Its own tools, and bash for the scripts its prompt documents; no other built-in (it names none).
    expect(planner.tools).toMatchObject({ forecast: true, add_note: true, count: false, explode: false, bash: true, read: false, edit: false })

    const scribe = await debugAgent(dir, 'scribe')
    expect(scribe.mode).toBe('primary')
    // builtinTools.opencode = ['read']: the other built-ins are denied.
    expect(scribe.tools).toMatchObject({ forecast: false, add_note: true, count: true, explode: true, read: true, bash: false, edit: false })
  })

  for (const bridge of bridges) {
    it(`runs a tool and returns what the script prints (${bridge} bridge), also from a subfolder`, async () => {
      const { dir } = targets.get(bridge)!
      // Started in a subfolder, opencode runs the tool there; the shim still finds the script from its own file.
      for (const cwd of [dir, join(dir, 'sub')]) {
        const ran = await debugAgent(cwd, 'scribe', { name: 'count', params: COUNT_INPUT })
        expect((ran.result as { output: string }).output).toBe((await direct(dir, 'count', COUNT_INPUT, env, cwd)).text)
      }
      const forecast = await debugAgent(dir, 'planner', { name: 'forecast', params: { city: 'Oslo', days: 2 } })
      // opencode's zod applies the default (unit "c") before the call, as the script would.
      expect((forecast.result as { output: string }).output).toBe((await direct(dir, 'forecast', { city: 'Oslo', days: 2 }, env)).text)
    })
  }

  it('refuses a tool the agent may not use', async () => {
    const { dir } = targets.get('process')!
    const result = await offlineRun(opencode, ['debug', 'agent', 'planner', '--tool', 'count', '--params', '{"to":1}'], { cwd: dir, env })
    expect(result.stdout + result.stderr).toContain('Tool count is disabled for agent planner')
  })

  it("sends the model each tool's canonical JSON Schema", async () => {
    const { dir, plan } = targets.get('process')!
    // Not in its own network namespace: the test has to reach the server (it listens on loopback only).
    const server = spawn(opencode, ['serve', '--port', '0', '--hostname', '127.0.0.1'], { cwd: dir, env })
    try {
      const url = await new Promise<string>((resolveUrl, reject) => {
        let output = ''
        server.stdout.setEncoding('utf8').on('data', (chunk: string) => {
          output += chunk
          const match = /listening on (http:\/\/\S+)/.exec(output)
          if (match) resolveUrl(match[1]!)
        })
        server.on('close', (code) => reject(new Error(`opencode serve exited with ${code}: ${output}`)))
      })
      const [provider, model] = MODEL.split('/')
      const response = await fetch(`${url}/experimental/tool?directory=${encodeURIComponent(dir)}&provider=${provider}&model=${model}`)
      const tools = (await response.json()) as Array<{ id: string; description: string; parameters: JsonSchema }>
      for (const name of TOOLS) {
        const tool = tools.find((t) => t.id === name)!
        const canonical = schemaOf(plan, name)
        expect(tool.description).toBe(plan.tools.find((t) => t.name === name)!.description)
        expect(zodGaps(canonical, 'zod4', 'shape')).toEqual([])
        expect(normalizeSchema(tool.parameters), name).toEqual(normalizeSchema(canonical))
      }
    } finally {
      server.kill()
    }
  })
})

/* ---------------------------------------------------------------- pi */

/** Loads the project through pi's own SDK (the same jiti loader as the CLI) and reports what it registered and what a call returns. */
const PI_CHECK = `
import { createAgentSession, SessionManager } from ${JSON.stringify(join(repoRoot, 'node_modules/@mariozechner/pi-coding-agent/dist/index.js'))}
const [cwd, callsJson] = process.argv.slice(2)
const { session, extensionsResult } = await createAgentSession({ cwd, agentDir: process.env.PI_CODING_AGENT_DIR, sessionManager: SessionManager.inMemory() })
const tools = session.getAllTools().map((tool) => ({ name: tool.name, path: tool.sourceInfo?.path, parameters: session.getToolDefinition(tool.name)?.parameters }))
const calls = []
for (const { tool, input } of JSON.parse(callsJson)) {
  const updates = []
  try {
    const result = await session.getToolDefinition(tool).execute('call', input, undefined, (partial) => updates.push(partial), { cwd })
    calls.push({ tool, result, updates })
  } catch (error) {
    calls.push({ tool, error: String(error && error.message), updates })
  }
}
console.log(JSON.stringify({ errors: extensionsResult.errors, tools, calls }))
process.exit(0)
`

describe('pi 0.73.1', () => {
  for (const bridge of bridges) {
    it(`registers every tool with no load errors, and execute returns the script's result (${bridge} bridge)`, async () => {
      const { dir, plan } = targets.get(bridge)!
      const scriptDir = await mkdtemp(join(tmpdir(), 'oac-pi-'))
      cleanup.push(scriptDir)
      const script = join(scriptDir, 'check.mjs')
      await writeFile(script, PI_CHECK)
      const calls = [
        { tool: 'count', input: COUNT_INPUT },
        { tool: 'forecast', input: { city: 'Oslo', days: 2, unit: 'f' } },
        { tool: 'add_note', input: { title: 'Pack', kind: 'idea', priority: 2 } },
        { tool: 'explode', input: { reason: 'boom' } },
      ]
      const result = await offlineRun('node', [script, dir, JSON.stringify(calls)], { cwd: dir, env: homeEnv })
      expect(result.code, result.stderr).toBe(0)
      const report = JSON.parse(result.stdout) as {
        errors: unknown[]
        tools: Array<{ name: string; path?: string; parameters: JsonSchema }>
        calls: Array<{ tool: string; result?: { content: Array<{ text: string }> }; error?: string; updates: Array<{ content: Array<{ text: string }> }> }>
      }
      expect(report.errors).toEqual([])
      for (const name of TOOLS) {
        const tool = report.tools.find((t) => t.name === name)
        expect(tool?.path).toBe(join(dir, '.pi/extensions/oac-tools.ts'))
        // TypeBox keeps the canonical schema whole.
        expect(tool?.parameters).toEqual(schemaOf(plan, name))
      }
      for (const call of report.calls.slice(0, 3)) {
        const expected = await direct(dir, call.tool, calls.find((c) => c.tool === call.tool)!.input, homeEnv)
        expect(call.result?.content.map((c) => c.text)).toEqual([expected.text])
        expect(call.updates.map((u) => u.content[0]!.text)).toEqual(expected.progress)
      }
      expect(report.calls[0]!.updates).toHaveLength(3)
      // A failure is a result whose text is the message (the extension's tool_result handler marks it failed; the shims' tests check that).
      expect(report.calls[3]!.error).toBeUndefined()
      expect(report.calls[3]!.result?.content.map((c) => c.text)).toEqual(['exploded: boom'])
    })
  }
})

/* ---------------------------------------------------------------- oh-my-pi */

/** Loads the project through omp's SDK under bun and reports its tool names, each tool's wire schema (what the model sees) and a call. */
function ompCheck(prefix: string): string {
  const root = join(prefix, 'node_modules/@oh-my-pi')
  return `
const { createAgentSession } = await import(${JSON.stringify(join(root, 'pi-coding-agent/src/sdk.ts'))})
const { SessionManager } = await import(${JSON.stringify(join(root, 'pi-coding-agent/src/session/session-manager.ts'))})
const { toolWireSchema } = await import(${JSON.stringify(join(root, 'pi-ai/src/utils/schema/wire.ts'))})
const [cwd, toolsJson, callJson] = process.argv.slice(2)
const { session } = await createAgentSession({ cwd, sessionManager: SessionManager.inMemory(cwd) })
const schemas = {}
for (const name of JSON.parse(toolsJson)) {
  const tool = session.getToolByName(name)
  if (tool) schemas[name] = toolWireSchema(tool)
}
const { tool, input } = JSON.parse(callJson)
const updates = []
const result = await session.getToolByName(tool).execute('call', input, undefined, (partial) => updates.push(partial))
// The tools the model is offered directly (custom tools are otherwise only "discoverable").
const visible = session.agent.state.tools.map((tool) => tool.name)
console.log(JSON.stringify({ names: session.getAllToolNames(), visible, schemas, call: { result, updates } }))
process.exit(0)
`
}

/** JSON Pointer segments of a gap path. */
function segments(pointer: string): string[] {
  return pointer === '/' ? [] : pointer.slice(1).split('/').map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'))
}

/** Keywords pi.zod leaves out of the schema without changing anything else. */
const DROPPED = new Set(['pattern', 'format', 'exclusiveMinimum', 'exclusiveMaximum', 'multipleOf', 'uniqueItems', 'title', 'examples', 'deprecated'])

/** The schema omp should send: the canonical one without the keywords pi.zod cannot say, and every object closed (omp's wire form). */
function ompExpected(schema: JsonSchema): JsonValue {
  const copy = structuredClone(schema) as JsonValue
  for (const gap of zodGaps(schema, 'omptype', 'object')) {
    expect(DROPPED.has(gap.keyword), `${gap.path} ${gap.keyword}`).toBe(true)
    let node = copy as Record<string, JsonValue>
    for (const segment of segments(gap.path)) node = node[segment] as Record<string, JsonValue>
    delete node[gap.keyword]
  }
  const close = (node: JsonValue): void => {
    if (Array.isArray(node)) return node.forEach(close)
    if (node === null || typeof node !== 'object') return
    if (node.type === 'object' && node.additionalProperties === undefined) node.additionalProperties = false
    for (const [key, value] of Object.entries(node)) if (key !== 'default' && key !== 'enum' && key !== 'const') close(value)
  }
  close(copy)
  return copy
}

describe('oh-my-pi 18.2.3 under bun 1.4.5', () => {
  let prefix = ''
  beforeAll(async () => {
    prefix = await installHarnessPackage('@oh-my-pi/pi-coding-agent', '18.2.3', ['bun@1.4.5'])
  })

  for (const bridge of bridges) {
    it(`lists every tool, sends its schema, and a call returns the script's result (${bridge} bridge)`, async () => {
      const { dir, plan } = targets.get(bridge)!
      const scriptDir = await mkdtemp(join(tmpdir(), 'oac-omp-'))
      cleanup.push(scriptDir)
      const script = join(scriptDir, 'check.ts')
      await writeFile(script, ompCheck(prefix))
      const bun = join(prefix, 'node_modules/.bin/bun')
      const result = await offlineRun(bun, [script, dir, JSON.stringify(TOOLS), JSON.stringify({ tool: 'count', input: COUNT_INPUT })], { cwd: dir, env: homeEnv })
      expect(result.code, result.stderr).toBe(0)
      const report = JSON.parse(result.stdout.slice(result.stdout.indexOf('{"names"'))) as {
        names: string[]
        visible: string[]
        schemas: Record<string, JsonSchema>
        call: { result: { content: Array<{ text: string }> }; updates: Array<{ content: Array<{ text: string }> }> }
      }
      expect(report.names).toEqual(expect.arrayContaining(TOOLS))
      expect(report.visible).toEqual(expect.arrayContaining(TOOLS))
      for (const name of TOOLS) {
        expect(normalizeSchema(report.schemas[name]!), name).toEqual(normalizeSchema(ompExpected(schemaOf(plan, name))))
      }
      const expected = await direct(dir, 'count', COUNT_INPUT, homeEnv)
      expect(report.call.result.content.map((c) => c.text)).toEqual([expected.text])
      expect(report.call.updates.map((u) => u.content[0]!.text)).toEqual(expected.progress)
    })
  }
})
