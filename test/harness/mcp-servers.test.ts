import { execFile } from 'node:child_process'
import { randomUUID } from 'node:crypto'
import { mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises'
import { join, resolve } from 'node:path'
import { promisify } from 'node:util'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { compile } from '../../src/api.js'
import type { Harness } from '../../src/define/types.js'
import { resolvedRef } from '../util/json-pointer.js'
import { copyProject, repoRoot } from '../util/project.js'
import { isolatedHome } from './cache.js'
import { conversationOf } from './conversation.js'
import { DRIVERS, installQwen } from './drivers.js'
import { type McpFront, serverToolCall, startMcpFront } from './mcp-front.js'
import { bounded, type BoundedRun, compiledProject, type CompiledProject } from './project.js'
import { type ScriptedModel, type SeenRequest, startScriptedModel, type ToolCall, type Turn } from './scripted-model.js'

/*
 * MCP servers someone else wrote (`defineMcpServer`), through each harness's real CLI against the
 * scripted model: a stdio server (fixtures/mcp-servers/servers/notes.mjs) and a loopback
 * streamable-HTTP server (below) that answers 401 without the right bearer token. Both are the plain
 * MCP SDK. The token and the note exist only in the CLI's environment (`fromEnv`); no compiled file
 * holds them, though they were set during the compile. The model is shown each server's tool, calls
 * it and gets its result back: from the harness's own MCP client (route `config`), or from our bridge
 * extension (pi, oh-my-pi, Cline: route `bridge`, src/runtime/mcp-bridge.ts; Kilo's HTTP server, whose
 * token its project config cannot carry: `unfilledRoute`).
 *   npx vitest run --config vitest.harness.config.ts test/harness/mcp-servers.test.ts
 * It prints `MCP servers tier: stdio x/10, HTTP y/10` at the end.
 */

const fixture = resolve(import.meta.dirname, 'fixtures/mcp-servers')
const TESTED = ['claude', 'codex', 'gemini', 'copilot', 'qwen', 'opencode', 'kilo', 'pi', 'omp', 'cline'] as const satisfies readonly Harness[]
type Tested = (typeof TESTED)[number]
type Transport = 'stdio' | 'http'

const TOKEN = `tier-token-${randomUUID()}`
const NOTE = `tier-note-${randomUUID()}`
const TICKET = 'ticket 7 is open'
/** Each server's one tool, as its server describes it, and the text it answers with. */
const SERVERS: Record<Transport, { server: string; tool: string; description: string; result: string }> = {
  stdio: { server: 'notes', tool: 'read_note', description: 'Reads the note.', result: `note: ${NOTE}` },
  http: { server: 'tracker', tool: 'open_ticket', description: 'Opens the ticket.', result: TICKET },
}

/**
 * How a CLI shows the model an MCP server's tool: among the request's tools, or (Qwen Code 0.24) held
 * back behind its `tool_search`, named with its description in a `<system-reminder>` of deferred tools
 * ("### MCP servers", `- "<name>": "<description>"`), which the model may call by that name directly.
 */
const DEFERRED: ReadonlySet<Tested> = new Set(['qwen'])

/** Whether the model was shown the tool `call` calls, as `id` shows it. */
function shown(id: Tested, request: SeenRequest, call: ToolCall, description: string): boolean {
  const inTools = request.tools.some((tool) => tool.name === call.name && tool.namespace === call.namespace)
  if (!DEFERRED.has(id)) return inTools
  const listed = JSON.stringify(request.body).includes(JSON.stringify(`- "${call.name}": "${description}"`).slice(1, -1))
  return !inTools && listed
}

/* ---------------------------------------------------------------- the project */

let front: McpFront
let project: CompiledProject
const cleanup: string[] = []
const passed: Record<Transport, Tested[]> = { stdio: [], http: [] }

/** Every file of a folder, but the linked node_modules and git's own. */
async function filesOf(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true })
  return entries.filter((entry) => entry.isFile() && !/(^|[\\/])(node_modules|\.git)([\\/]|$)/.test(join(entry.parentPath, entry.name).slice(dir.length))).map((entry) => join(entry.parentPath, entry.name))
}

beforeAll(async () => {
  front = await startMcpFront({ ...SERVERS.http, token: TOKEN })
  const compileEnv = { MCP_TIER_NOTES_SCRIPT: join(fixture, 'servers/notes.mjs'), MCP_TIER_TRACKER_URL: `${front.url}/tracker/mcp`, MCP_TIER_TOKEN: TOKEN, MCP_TIER_NOTE: NOTE }
  Object.assign(process.env, compileEnv)
  try {
    project = await compiledProject(fixture, 'oac-harness-mcp-', { config: 'test', harnesses: [...TESTED] })
  } finally {
    for (const name of Object.keys(compileEnv)) delete process.env[name]
  }
  cleanup.push(project.dir)
})

afterAll(async () => {
  console.log(`MCP servers tier: stdio ${passed.stdio.length}/${TESTED.length} (${passed.stdio.join(', ')}), HTTP ${passed.http.length}/${TESTED.length} (${passed.http.join(', ')})`)
  await front?.close()
  for (const dir of cleanup) await rm(dir, { recursive: true, force: true })
})

it('compiles both servers with the token and the note only as references, though both were in the environment', async () => {
  expect(project.plan.mcpServers?.map((server) => server.name)).toEqual(['notes', 'tracker'])
  const files = await filesOf(project.dir)
  expect(files.some((file) => file.endsWith('.mcp.json'))).toBe(true)
  for (const file of files) {
    const text = await readFile(file, 'utf8')
    expect(text.includes(TOKEN), file).toBe(false)
    expect(text.includes(NOTE), file).toBe(false)
  }
  // Kilo refuses any environment reference in a project's config: the HTTP server (a bearer token) goes
  // through our bridge plugin instead, and no server is left out of any CLI. The stdio server's variable
  // goes under its own name, which Kilo's servers inherit, so its config carries it with no reference.
  expect(project.diagnostics.filter((d) => d.code === 'mcp-server-left-out')).toEqual([])
  expect(Object.keys(JSON.parse(await readFile(join(project.dir, '.kilo/kilo.json'), 'utf8')).mcp)).toEqual(['notes'])
  expect(await readFile(join(project.dir, '.kilo/plugins/oac-tools-mcp.ts'), 'utf8')).toContain('servers: ["tracker"]')
})

/* ---------------------------------------------------------------- one run per CLI */

/** The one-time steps a user takes for a project's servers beyond what the driver does. */
async function userSteps(id: Tested, home: string, env: NodeJS.ProcessEnv): Promise<void> {
  if (id === 'claude') {
    // Lets the servers' tools run without a prompt (the driver allows our own server's).
    await mkdir(join(home, '.claude'), { recursive: true })
    await writeFile(join(home, '.claude/settings.json'), JSON.stringify({ permissions: { allow: Object.values(SERVERS).map(({ server }) => `mcp__${server}`) } }))
  }
  if (id === 'qwen') {
    // A project's servers wait for `qwen mcp approve <name>`, which binds to the config as filled from this environment.
    const { node, cli } = await installQwen()
    for (const { server } of Object.values(SERVERS)) {
      const approved = await bounded(node, [cli, 'mcp', 'approve', server], { cwd: project.dir, env: { ...env, PATH: `${join(node, '..')}:${env.PATH}` }, timeoutMs: 120_000 })
      expect(approved.stdout + approved.stderr).toContain(`Approved MCP server "${server}"`)
    }
  }
}

for (const id of TESTED) {
  const driver = DRIVERS[id]
  const carried = Object.keys(SERVERS) as Transport[]

  describe(driver.title, () => {
    let model: ScriptedModel
    let result: BoundedRun
    let mcpRequests: McpFront['mcpRequests']

    beforeAll(async () => {
      await driver.install()
      const { home, env } = await isolatedHome()
      cleanup.push(home)
      const runEnv = { ...env, MCP_TIER_TOKEN: TOKEN, MCP_TIER_NOTE: NOTE }
      await userSteps(id, home, runEnv)
      const calls: Turn[] = carried.map((transport) => ({ calls: [serverToolCall(id, SERVERS[transport].server, SERVERS[transport].tool)] }))
      model = await startScriptedModel({ scripts: { main: [...calls, { text: 'done' }] }, conversationOf: conversationOf(project.plan), maxRequests: 20 })
      front.model = model
      front.mcpRequests = []
      try {
        result = await driver.run({ ...model, url: front.url, socket: front.socket }, { project: project.dir, plan: project.plan, home, env: runEnv })
      } finally {
        await model.close()
      }
      mcpRequests = front.mcpRequests
    })

    it('runs to the end of the script', () => {
      expect(result.timedOut, result.stderr).toBe(false)
      expect(result.code, `${result.stdout}\n${result.stderr}`).toBe(0)
      expect(model.refused).toEqual([])
      expect(model.conversation('main')).toHaveLength(carried.length + 1)
    })

    for (const transport of Object.keys(SERVERS) as Transport[]) {
      const { server, tool, description, result: expected } = SERVERS[transport]
      const call = serverToolCall(id, server, tool)

      it(`is shown the ${transport} server's tool and gets its result back`, () => {
        const requests = model.conversation('main')
        expect(shown(id, requests[0]!, call, description), JSON.stringify(requests[0]?.tools.map((t) => [t.namespace, t.name]))).toBe(true)
        const answered = requests[carried.indexOf(transport) + 1]
        expect(answered?.toolResults).toHaveLength(1)
        expect(driver.resultText(answered!.toolResults[0]!.text).trim()).toBe(expected)
        if (transport === 'http') {
          // The CLI sent the token from its environment; every call it made carried it.
          expect(mcpRequests.some((r) => r.method === 'tools/call')).toBe(true)
          expect(mcpRequests.filter((r) => r.method === 'tools/call').every((r) => r.authorized)).toBe(true)
        }
        passed[transport].push(id)
      })
    }
  })
}

/*
 * Kilo's bridge plugin and a server's shared definitions: test/mcp/bridge.test.ts's `echo` server (a
 * renamed variable, so Kilo's project config cannot carry it) lists `line`, whose two points `$ref` one
 * definition. Kilo 7.7.7 sends the model the schema the plugin's `tool.definition` hook hands back, whole.
 */
describe(`${DRIVERS.kilo.title}: a bridged server's shared definitions`, () => {
  it("shows the model the server's schema with its definitions, and runs the call", async () => {
    const fixture = resolve(repoRoot, 'test/fixtures/mcp-bridge')
    const dir = await copyProject(fixture, 'oac-harness-mcp-defs-')
    cleanup.push(dir)
    await promisify(execFile)('git', ['init', '-q', dir])
    process.env.BRIDGE_SERVERS = join(fixture, 'servers')
    let plan: CompiledProject['plan']
    try {
      ;({ plan } = await compile({ registry: 'registry.ts:registry', root: dir, config: 'kilo', harnesses: ['kilo'] }))
    } finally {
      delete process.env.BRIDGE_SERVERS
    }
    await DRIVERS.kilo.install()
    const { home, env } = await isolatedHome()
    cleanup.push(home)
    const line = { name: 'echo_line', input: { from: { x: 0, y: 0 }, to: { x: 1, y: 2 } } }
    const model = await startScriptedModel({ scripts: { main: [{ calls: [line] }, { text: 'done' }] }, conversationOf: conversationOf(plan), maxRequests: 10 })
    try {
      const run = await DRIVERS.kilo.run(model, { project: dir, plan, home, env: { ...env, BRIDGE_ECHO_NOTE: 'echo-note' } })
      expect(run.code, `${run.stdout}\n${run.stderr}`).toBe(0)
    } finally {
      await model.close()
    }
    const [first, second] = model.conversation('main')
    const schema = first!.tools.find((tool) => tool.name === 'echo_line')?.schema as Record<string, unknown>
    const { from, to } = schema.properties as Record<string, { $ref?: string }>
    for (const point of [from, to]) expect(resolvedRef(schema, point?.$ref)).toEqual({ type: 'object', properties: { x: { type: 'number' }, y: { type: 'number' } }, required: ['x', 'y'] })
    expect(second!.toolResults.map((result) => result.text)).toEqual(['from 0,0 to 1,2'])
  })
})
