import { AsyncLocalStorage } from 'node:async_hooks'
import { execFile } from 'node:child_process'
import { readdir, readFile, symlink } from 'node:fs/promises'
import { join, resolve } from 'node:path'
import { pathToFileURL } from 'node:url'
import { promisify } from 'node:util'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { z } from 'zod'
import { compile } from '../../src/api.js'
import type { Diagnostic } from '../../src/diagnostics.js'
import { bridgedResult, bridgedToolName } from '../../src/runtime/mcp-bridge.js'
import { resolvedRef } from '../util/json-pointer.js'
import { repoRoot } from '../util/project.js'
import { tempDir } from '../util/temp.js'

/*
 * The MCP bridge (src/runtime/mcp-bridge.ts) as pi, oh-my-pi and Cline load it from a compiled tree, with real SDK
 * servers (test/fixtures/mcp-bridge/servers): one that answers, one that dies at its start, one that
 * never answers, and an HTTP server nobody listens for. The hanging one would hold pi's session start
 * forever without the bridge's bound: that it ends at all is the proof, with no clock read here.
 * The bound is set wide (WAIT_MS), so that the live server starts within it on a loaded machine. The
 * live server's tools register and answer with what it sent; each other server is named in one message
 * saying why its tools are missing. oh-my-pi's and Cline's runs leave the hanging server out, so their
 * wait never ends by the clock.
 */

const fixture = resolve(repoRoot, 'test/fixtures/mcp-bridge')
const NOTE = 'bridge-note-in-the-environment-only'
/** The bridge's wait in these runs (`OAC_MCP_BRIDGE_WAIT_MS`): many times a server's start on a busy machine. */
const WAIT_MS = 10_000
let target: string
/** The same servers but the hanging one. */
let noHanging: string
let diagnostics: Diagnostic[]

beforeAll(async () => {
  target = await tempDir('oac-bridge-')
  noHanging = await tempDir('oac-bridge-')
  process.env.BRIDGE_SERVERS = join(fixture, 'servers')
  process.env.BRIDGE_NOTE = NOTE
  try {
    ;({ diagnostics } = await compile({ registry: 'registry.ts:registry', root: fixture, target, config: 'test', harnesses: ['pi', 'omp', 'cline'] }))
    await compile({ registry: 'registry.ts:registry', root: fixture, target: noHanging, config: 'no-hanging', harnesses: ['omp', 'cline'] })
  } finally {
    delete process.env.BRIDGE_SERVERS
    delete process.env.BRIDGE_NOTE
  }
})

/** Runs `load` with the note and the wait in the environment, and what the bridge reports on stderr in `reports`. */
async function withBridgeEnvironment(reports: string[], load: () => Promise<void>): Promise<void> {
  Object.assign(process.env, { BRIDGE_NOTE: NOTE, OAC_MCP_BRIDGE_WAIT_MS: String(WAIT_MS) })
  const error = console.error
  console.error = (message: string) => reports.push(message)
  try {
    await load()
  } finally {
    console.error = error
    delete process.env.BRIDGE_NOTE
    delete process.env.OAC_MCP_BRIDGE_WAIT_MS
  }
}

/** Every file written, relative to the target. */
async function written(): Promise<string[]> {
  const entries = await readdir(target, { recursive: true, withFileTypes: true })
  return entries.filter((entry) => entry.isFile()).map((entry) => join(entry.parentPath, entry.name).slice(target.length + 1).split('\\').join('/'))
}

it('writes one bridge script that the three harnesses require, and no value of a variable', async () => {
  const files = await written()
  const extensions = ['.pi/extensions/oac-tools-mcp.ts', '.omp/extensions/oac-tools-mcp.ts', '.cline/plugins/oac-tools-mcp.ts']
  expect(files).toEqual(expect.arrayContaining(['scripts/mcp_bridge.cjs', ...extensions]))
  // The servers, what starts the stdio ones, and the runtime with the SDK's client, which loads while they start.
  expect(files.filter((file) => file.includes('mcp-bridge') || file.includes('mcp_bridge')).sort()).toEqual([
    'scripts/mcp_bridge.cjs',
    expect.stringMatching(/^scripts\/vendor\/unplugin-oac@[^/]+\/mcp-bridge-start\.cjs$/),
    expect.stringMatching(/^scripts\/vendor\/unplugin-oac@[^/]+\/mcp-bridge\.mjs$/),
  ])
  for (const extension of extensions) expect(await readFile(join(target, extension), 'utf8')).toContain('scripts/mcp_bridge.cjs')
  for (const file of files) expect(await readFile(join(target, file), 'utf8'), file).not.toContain(NOTE)
  // The script names the variable, never its value.
  expect(await readFile(join(target, 'scripts/mcp_bridge.cjs'), 'utf8')).toContain('"env": "BRIDGE_NOTE"')
})

/** True once the process `pid` has ended (a zombie nobody reaps has ended too), asked every 50 ms, up to 100 times. */
async function ends(pid: number): Promise<boolean> {
  for (let asked = 0; asked < 100; asked++) {
    try {
      process.kill(pid, 0)
      if ((await readFile(`/proc/${pid}/stat`, 'utf8').catch(() => '')).replace(/^.*\) /s, '').startsWith('Z')) return true
    } catch {
      return true
    }
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
  return false
}

it('stops a server that does not end with its stdin when the harness exits', async () => {
  const start = (await written()).find((file) => file.endsWith('/mcp-bridge-start.cjs'))!
  // A harness that starts the hanging server as the bridge does, says its pid, and exits.
  const harness = [
    `const { startServers } = (await import("node:module")).createRequire(import.meta.url)(${JSON.stringify(join(target, start))})`,
    `const [{ spawned }] = startServers([{ name: "hanging", transport: "stdio", command: process.execPath, args: [${JSON.stringify(join(fixture, 'servers/hanging.mjs'))}], env: {} }], process.cwd()).servers`,
    `await spawned.spawned`,
    `console.log(spawned.process.pid)`,
    `process.exit(0)`,
  ].join('\n')
  const { stdout } = await promisify(execFile)(process.execPath, ['--input-type=module', '-e', harness])
  expect(await ends(Number(stdout.trim()))).toBe(true)
})

it("goes to each harness's home folder for a user, the bridge script in the home's scripts folder", async () => {
  const home = await tempDir('oac-bridge-home-')
  process.env.BRIDGE_SERVERS = join(fixture, 'servers')
  try {
    await compile({ registry: 'registry.ts:registry', root: fixture, target: home, scope: 'user', config: 'test', harnesses: ['pi', 'omp', 'cline'] })
  } finally {
    delete process.env.BRIDGE_SERVERS
  }
  for (const extension of ['.pi/agent/extensions/oac-tools-mcp.ts', '.omp/agent/extensions/oac-tools-mcp.ts', '.cline/plugins/oac-tools-mcp.ts']) {
    expect(await readFile(join(home, extension), 'utf8')).toContain('join(homedir(), ".local/share/oac/oac-tools/mcp_bridge.cjs")')
  }
  expect(await readFile(join(home, '.local/share/oac/oac-tools/mcp_bridge.cjs'), 'utf8')).toContain('"name": "live"')
})

it("warns that Cline's tools return text, for each server", () => {
  const textOnly = diagnostics.filter((d) => d.code === 'mcp-bridge-text-only')
  expect(textOnly.map((d) => d.message)).toEqual(['live', 'dead', 'hanging', 'unreachable'].map((name) => expect.stringContaining(`MCP server "${name}"`)))
})

/** What each server other than the live one is reported for. */
function expectReports(reports: string[], hanging: boolean): void {
  expect(reports).toHaveLength(hanging ? 3 : 2)
  expect(reports).toEqual(
    expect.arrayContaining([
      expect.stringMatching(/MCP server "dead" could not be reached: .*dead: no database at db:\/\/nowhere.*left out of this session/),
      ...(hanging ? [expect.stringContaining(`MCP server "hanging" did not list its tools within ${WAIT_MS / 1000} s: its tools are left out of this session.`)] : []),
      expect.stringMatching(/MCP server "unreachable" could not be reached: .*Not set in this environment: BRIDGE_TOKEN\./),
    ]),
  )
}

describe('pi', () => {
  interface Registered {
    name: string
    parameters: unknown
    execute(id: string, params: unknown, signal: AbortSignal | undefined, onUpdate: undefined): Promise<{ content: unknown[] }>
  }
  const tools: Registered[] = []
  const handlers = new Map<string, (event: { toolCallId?: string }, ctx?: { hasUI: boolean }) => unknown>()
  const reports: string[] = []
  let beforeSessionStart: number | undefined
  let sessionStartGave: unknown

  beforeAll(() =>
    withBridgeEnvironment(reports, async () => {
      const extension = (await import(pathToFileURL(join(target, '.pi/extensions/oac-tools-mcp.ts')).href)) as { default(pi: unknown): void }
      // The part of pi's ExtensionAPI the generated extension calls. pi emits session_start once the
      // extensions are loaded and before_agent_start before each prompt, and awaits what each handler
      // returns; a tool registered after session_start is among the session's tools at once.
      extension.default({
        on: (event: string, handler: (event: { toolCallId?: string }) => unknown) => handlers.set(event, handler),
        registerTool: (tool: Registered) => tools.push(tool),
        getAllTools: () => tools.map(({ name }) => ({ name })),
      })
      beforeSessionStart = tools.length
      sessionStartGave = handlers.get('session_start')?.({}, { hasUI: false })
      await handlers.get('before_agent_start')?.({})
    }),
  )

  it("leaves pi's start alone (its factory and session_start return at once), and has the tools registered by the first prompt", () => {
    expect(beforeSessionStart).toBe(0)
    // Nothing for pi to await: the hanging server, which holds the bridge to its bound, does not hold up the session.
    expect(sessionStartGave).toBeUndefined()
    expect(tools.length).toBeGreaterThan(0)
  })
  afterAll(async () => {
    await handlers.get('session_shutdown')?.({})
  })

  it("registers the live server's tools as <server>_<tool>, with the server's schema", () => {
    expect(tools.map((tool) => tool.name).sort()).toEqual(['live_broken', 'live_picture', 'live_read_note'])
    expect(tools[0]!.parameters).toMatchObject({ type: 'object' })
  })

  it('names each other server and why, once', () => {
    expectReports(
      reports.map((report) => report.replace(/^pi: /, '')),
      true,
    )
  })

  it('forwards a call and its text, filled from the environment at run time', async () => {
    const result = await tools.find((tool) => tool.name === 'live_read_note')!.execute('call-1', {}, undefined, undefined)
    expect(result.content).toEqual([{ type: 'text', text: `note: ${NOTE}` }])
    expect(handlers.get('tool_result')?.({ toolCallId: 'call-1' })).toBeUndefined()
  })

  it('forwards images and failures', async () => {
    const picture = await tools.find((tool) => tool.name === 'live_picture')!.execute('call-2', {}, undefined, undefined)
    expect(picture.content).toEqual([{ type: 'text', text: 'a dot' }, { type: 'image', data: 'iVBORw0KGgo=', mimeType: 'image/png' }])
    const broken = await tools.find((tool) => tool.name === 'live_broken')!.execute('call-3', {}, undefined, undefined)
    expect(broken.content).toEqual([{ type: 'text', text: 'the tool broke' }])
    expect(handlers.get('tool_result')?.({ toolCallId: 'call-3' })).toEqual({ isError: true })
  })
})

describe('oh-my-pi', () => {
  interface Registered {
    name: string
    loadMode: string
    execute(id: string, params: unknown, signal: AbortSignal | undefined, onUpdate: undefined): Promise<{ content: unknown[]; isError?: boolean }>
  }
  type Handler = (event: unknown, ctx?: { hasUI: boolean }) => unknown
  /**
   * omp 18.2.3 activates a tool registered within an extension's handler before the handler's event
   * completes, and one registered outside any handler (from a promise a finished handler started) later,
   * on its own: its runner tells them apart by an AsyncLocalStorage around each handler
   * (extensions/runner.ts `#toolRegistrationScope`), as this one does.
   */
  const handler = new AsyncLocalStorage<{ event: string; open: boolean }>()
  const registered: Array<{ tool: Registered; within: string | undefined }> = []
  const handlers = new Map<string, Handler>()
  const reports: string[] = []
  let beforeSessionStart: number | undefined
  let sessionStartGave: unknown

  /** Runs the extension's handler of `event` as omp's runner does, awaiting what it returns. */
  async function emit(event: string, ctx?: { hasUI: boolean }): Promise<unknown> {
    const scope = { event, open: true }
    try {
      return await handler.run(scope, () => handlers.get(event)?.({}, ctx))
    } finally {
      scope.open = false
    }
  }
  const namesWithin = (within: string | undefined) =>
    registered
      .filter((entry) => entry.within === within)
      .map(({ tool }) => tool.name)
      .sort()

  beforeAll(() =>
    withBridgeEnvironment(reports, async () => {
      const extension = (await import(pathToFileURL(join(noHanging, '.omp/extensions/oac-tools-mcp.ts')).href)) as { default(pi: unknown): void }
      extension.default({
        on: (event: string, on: Handler) => handlers.set(event, on),
        registerTool: (tool: Registered) => {
          const scope = handler.getStore()
          registered.push({ tool, within: scope?.open ? scope.event : undefined })
        },
        // The prompt comes before omp has activated what was registered outside a handler: none of the tools yet.
        getAllTools: () => [],
      })
      beforeSessionStart = registered.length
      const scope = { event: 'session_start', open: true }
      sessionStartGave = handler.run(scope, () => handlers.get('session_start')?.({}, { hasUI: false }))
      scope.open = false
      await emit('before_agent_start')
      await emit('before_agent_start')
    }),
  )
  afterAll(async () => {
    await handlers.get('session_shutdown')?.({})
  })

  it("leaves omp's start alone, registers the tools once listed, and again within the first prompt's before_agent_start, which omp awaits", () => {
    expect(beforeSessionStart).toBe(0)
    expect(sessionStartGave).toBeUndefined()
    const names = ['live_broken', 'live_picture', 'live_read_note']
    expect(namesWithin(undefined)).toEqual(names)
    // omp has them active before that prompt goes to the model; the second prompt registers nothing.
    expect(namesWithin('before_agent_start')).toEqual(names)
    expect(registered).toHaveLength(2 * names.length)
    expect(registered.every(({ tool }) => tool.loadMode === 'essential')).toBe(true)
  })

  it('names each other server and why, once', () => {
    expectReports(
      reports.map((report) => report.replace(/^omp: /, '')),
      false,
    )
  })

  it('forwards a call, images and failures, marked failed', async () => {
    const tool = (name: string) => registered.find((entry) => entry.tool.name === name)!.tool
    expect(await tool('live_read_note').execute('call-1', {}, undefined, undefined)).toEqual({ content: [{ type: 'text', text: `note: ${NOTE}` }] })
    const picture = await tool('live_picture').execute('call-2', {}, undefined, undefined)
    expect(picture.content).toEqual([{ type: 'text', text: 'a dot' }, { type: 'image', data: 'iVBORw0KGgo=', mimeType: 'image/png' }])
    expect(await tool('live_broken').execute('call-3', {}, undefined, undefined)).toEqual({ content: [{ type: 'text', text: 'the tool broke' }], isError: true })
  })
})

describe('Cline', () => {
  const tools: Array<{ name: string; execute(input: unknown): Promise<string> }> = []
  const reports: string[] = []

  beforeAll(() =>
    withBridgeEnvironment(reports, async () => {
      const plugin = (await import(pathToFileURL(join(noHanging, '.cline/plugins/oac-tools-mcp.ts')).href)) as { default: { setup(api: unknown, ctx: unknown): Promise<void> } }
      // The part of Cline's plugin API the generated module calls.
      await plugin.default.setup({ registerTool: (tool: (typeof tools)[number]) => tools.push(tool) }, { workspaceInfo: { rootPath: noHanging } })
    }),
  )

  it('registers the live tools, and names the others', () => {
    expect(tools.map((tool) => tool.name).sort()).toEqual(['live_broken', 'live_picture', 'live_read_note'])
    expectReports(
      reports.map((report) => report.replace(/^cline: /, '')),
      false,
    )
  })

  it('returns text, an image as a line naming it, and throws a failure', async () => {
    expect(await tools.find((tool) => tool.name === 'live_picture')!.execute({})).toBe('a dot\n[an image, image/png]')
    await expect(tools.find((tool) => tool.name === 'live_broken')!.execute({})).rejects.toThrow('the tool broke')
  })
})

describe('Kilo', () => {
  // Kilo's project config carries `live`; `echo` needs a renamed variable, which it refuses there.
  let kiloTarget: string
  let kiloDiagnostics: Diagnostic[]
  interface KiloTool {
    description: string
    args: Record<string, z.ZodType>
    execute(args: unknown, context: unknown): Promise<{ output: string; attachments: unknown[] }>
  }
  let kiloTools: Record<string, KiloTool>
  let showTool: (input: { toolID: string }, output: { jsonSchema?: unknown }) => Promise<void>
  const reports: string[] = []
  const asked: string[] = []
  const context = { abort: new AbortController().signal, metadata: () => undefined, ask: async ({ permission }: { permission: string }) => void asked.push(permission) }

  beforeAll(async () => {
    kiloTarget = await tempDir('oac-bridge-kilo-')
    process.env.BRIDGE_SERVERS = join(fixture, 'servers')
    try {
      ;({ diagnostics: kiloDiagnostics } = await compile({ registry: 'registry.ts:registry', root: fixture, target: kiloTarget, config: 'kilo', harnesses: ['kilo'] }))
    } finally {
      delete process.env.BRIDGE_SERVERS
    }
    // Kilo installs its plugin package beside the project's plugins; here the repository's stands in for it.
    await symlink(join(repoRoot, 'node_modules'), join(kiloTarget, 'node_modules'), 'dir')
    process.env.BRIDGE_ECHO_NOTE = NOTE
    try {
      await withBridgeEnvironment(reports, async () => {
        const plugin = (await import(pathToFileURL(join(kiloTarget, '.kilo/plugins/oac-tools-mcp.ts')).href)) as Record<string, (ctx: { directory: string }) => Promise<{ tool: Record<string, KiloTool>; 'tool.definition': typeof showTool }>>
        ;({ tool: kiloTools, 'tool.definition': showTool } = await plugin.OacMcpBridge!({ directory: kiloTarget }))
      })
    } finally {
      delete process.env.BRIDGE_ECHO_NOTE
    }
  })

  it('puts the server it can carry in its config and bridges the other, with no warning and no value in a file', async () => {
    expect(kiloDiagnostics.filter((d) => d.code === 'mcp-server-left-out')).toEqual([])
    expect(Object.keys(JSON.parse(await readFile(join(kiloTarget, '.kilo/kilo.json'), 'utf8')).mcp)).toEqual(['live'])
    const plugin = await readFile(join(kiloTarget, '.kilo/plugins/oac-tools-mcp.ts'), 'utf8')
    expect(plugin).toContain('servers: ["echo"]')
    expect(plugin).not.toContain(NOTE)
    expect(await readFile(join(kiloTarget, 'scripts/mcp_bridge.cjs'), 'utf8')).toContain('"env": "BRIDGE_ECHO_NOTE"')
  })

  /**
   * The JSON Schema Kilo 7.7.7 sends the model for a plugin tool: the one it makes of the tool's zod
   * arguments, unless a `tool.definition` hook hands back another (its tool registry calls every plugin's
   * hook with `{ jsonSchema }` and sends the one there when it changed).
   */
  async function sentSchema(name: string): Promise<Record<string, unknown>> {
    const output = { jsonSchema: z.toJSONSchema(z.object(kiloTools[name]!.args), { io: 'input' }) as unknown }
    await showTool({ toolID: name }, output)
    return output.jsonSchema as Record<string, unknown>
  }

  it("registers the bridged server's tools as Kilo names an MCP server's, and shows the model the server's own schema", async () => {
    expect(reports).toEqual([])
    expect(Object.keys(kiloTools).sort()).toEqual(['echo_echo', 'echo_line'])
    expect(await sentSchema('echo_echo')).toMatchObject({ properties: { text: { type: 'string', description: 'What to echo.' }, times: { type: 'integer' } }, required: ['text'] })
    // Kilo checks a call's input against the zod arguments: a property the server requires must be there.
    expect(z.object(kiloTools.echo_echo!.args).safeParse({ times: 2 }).success).toBe(false)
    expect(z.object(kiloTools.echo_echo!.args).safeParse({ text: 'a' }).success).toBe(true)
  })

  it("keeps a server's shared definitions: each $ref of the schema sent resolves in it", async () => {
    const schema = await sentSchema('echo_line')
    const { from, to } = schema.properties as Record<string, { $ref?: string }>
    // The SDK lists the one point schema under `definitions` and `$ref`s it from both properties.
    for (const point of [from, to]) expect(resolvedRef(schema, point?.$ref)).toEqual({ type: 'object', properties: { x: { type: 'number' }, y: { type: 'number' } }, required: ['x', 'y'] })
    expect(schema.required).toEqual(['from', 'to'])
    // Another plugin's tool is left as Kilo made it.
    const theirs = { jsonSchema: { made: 'by Kilo' } as unknown }
    await showTool({ toolID: 'bash' }, theirs)
    expect(theirs.jsonSchema).toEqual({ made: 'by Kilo' })
    const result = await kiloTools.echo_line!.execute({ from: { x: 0, y: 0 }, to: { x: 1, y: 2 } }, { ...context, ask: async () => undefined })
    expect(result.output).toBe('from 0,0 to 1,2')
  })

  it('asks under the tool name, and forwards a call with the variable from the environment at run time', async () => {
    const result = await kiloTools.echo_echo!.execute({ text: 'ab', times: 2 }, context)
    expect(result.output).toBe(`${NOTE}: abab`)
    expect(asked).toEqual(['echo_echo'])
  })
})

describe("a plugin folder's module for opencode and Kilo", () => {
  // No bridge there: the `config` hook adds `live` and `echo` to the config each goes on with, whose MCP
  // service starts them; Kilo takes `echo` (a renamed variable) too, its reference filled by the hook.
  const ECHO_NOTE = 'echo-note-in-the-environment-only'
  type Entry = { type: string; command: string[]; environment?: Record<string, string> }
  let pluginDiagnostics: Diagnostic[]
  let pluginDir: string

  beforeAll(async () => {
    pluginDir = await tempDir('oac-bridge-plugin-')
    // The values are in the environment during the compile, and must reach no file.
    Object.assign(process.env, { BRIDGE_SERVERS: join(fixture, 'servers'), BRIDGE_NOTE: NOTE, BRIDGE_ECHO_NOTE: ECHO_NOTE })
    try {
      ;({ diagnostics: pluginDiagnostics } = await compile({ registry: 'registry.ts:registry', root: fixture, target: pluginDir, config: 'kilo', harnesses: ['opencode', 'kilo'], plugin: { name: 'bridge-kit', version: '1.0.0' } }))
    } finally {
      for (const name of ['BRIDGE_SERVERS', 'BRIDGE_NOTE', 'BRIDGE_ECHO_NOTE']) delete process.env[name]
    }
  })

  /** The `mcp` the module's config hook leaves in `config`, loaded and called in the harness's process (Kilo's sets KILO_PID), with the notes in its environment. */
  async function mcpAfterHook(harness: 'opencode' | 'kilo', config: { mcp?: Record<string, unknown> }): Promise<Record<string, Entry>> {
    Object.assign(process.env, { BRIDGE_NOTE: NOTE, BRIDGE_ECHO_NOTE: ECHO_NOTE, ...(harness === 'kilo' && { KILO_PID: String(process.pid) }) })
    try {
      // Each process loads the module anew: a query apart.
      const module = (await import(`${pathToFileURL(join(pluginDir, 'opencode/index.mjs')).href}?${harness}`)) as Record<string, () => Promise<{ config?(config: unknown): Promise<void> }>>
      expect(Object.keys(module)).toEqual(['OacConfig'])
      await (await module.OacConfig!()).config!(config)
    } finally {
      for (const name of ['BRIDGE_NOTE', 'BRIDGE_ECHO_NOTE', 'KILO_PID']) delete process.env[name]
    }
    return config.mcp as Record<string, Entry>
  }

  it('carries every server with no warning, and no value in a file', async () => {
    expect(pluginDiagnostics.filter((d) => ['plugin-unsupported', 'mcp-server-left-out'].includes(d.code))).toEqual([])
    const entries = await readdir(pluginDir, { recursive: true, withFileTypes: true })
    const files = entries.filter((entry) => entry.isFile()).map((entry) => join(entry.parentPath, entry.name))
    expect(files.some((file) => file.endsWith('mcp_bridge.mjs') || file.includes('mcp-bridge'))).toBe(false)
    for (const file of files) {
      const text = await readFile(file, 'utf8')
      expect(text, file).not.toContain(NOTE)
      expect(text, file).not.toContain(ECHO_NOTE)
    }
  })

  it("adds the servers as each one's config holds them, each reference filled from its environment, the user's own server of a name kept", async () => {
    const mine = { type: 'local', command: ['my-live'] }
    const opencode = await mcpAfterHook('opencode', { mcp: { live: mine } })
    expect(opencode).toEqual({ live: mine, echo: { type: 'local', command: ['node', join(fixture, 'servers/echo.mjs')], environment: { BRIDGE_NOTE: ECHO_NOTE } } })
    const kilo = await mcpAfterHook('kilo', {})
    // Kilo's stdio server inherits its environment: `live`'s variable, under its own name, needs no entry.
    expect(kilo).toEqual({ live: { type: 'local', command: ['node', join(fixture, 'servers/live.mjs')] }, echo: opencode.echo })
  })

  it('gives an entry that starts the server as opencode and Kilo start a local one (their environment and the entry\'s)', async () => {
    const { echo } = await mcpAfterHook('kilo', {})
    const [command, ...args] = echo!.command
    const inherited = Object.fromEntries(Object.entries(process.env).filter((entry): entry is [string, string] => entry[1] !== undefined))
    const client = new Client({ name: 'harness', version: '1.0.0' })
    await client.connect(new StdioClientTransport({ command: command!, args, env: { ...inherited, ...echo!.environment } }))
    try {
      const result = await client.callTool({ name: 'echo', arguments: { text: 'ab' } })
      expect(result.content).toEqual([{ type: 'text', text: `${ECHO_NOTE}: ab` }])
    } finally {
      await client.close()
    }
  })
})

describe('what the bridge hands a harness', () => {
  it('names a tool <server>_<tool>, each character a provider refuses as _, cut to the limit', () => {
    expect(bridgedToolName('github', 'list_issues', 64)).toBe('github_list_issues')
    expect(bridgedToolName('docs', 'search.v2/all', 64)).toBe('docs_search_v2_all')
    expect(bridgedToolName('tracker', 'x'.repeat(80), 64)).toBe(`tracker_${'x'.repeat(56)}`)
  })

  it('turns every other kind of block into text naming it, and structured content alone into its JSON', () => {
    const result = bridgedResult({
      content: [
        { type: 'audio', data: 'AAAA', mimeType: 'audio/wav' },
        { type: 'resource_link', uri: 'file:///notes.md', name: 'notes' },
        { type: 'resource', resource: { uri: 'file:///a.txt', text: 'the text of a' } },
        { type: 'resource', resource: { uri: 'file:///b.bin', blob: 'AAAA', mimeType: 'application/octet-stream' } },
      ],
    })
    expect(result.content).toEqual([
      { type: 'text', text: '[audio, audio/wav]' },
      { type: 'text', text: '[resource file:///notes.md (notes)]' },
      { type: 'text', text: 'the text of a' },
      { type: 'text', text: '[resource file:///b.bin, application/octet-stream]' },
    ])
    expect(result.isError).toBe(false)
    expect(bridgedResult({ content: [], structuredContent: { open: 3 } })).toEqual({ isError: false, content: [{ type: 'text', text: '{"open":3}' }], text: '{"open":3}' })
  })
})
