import { createHash } from 'node:crypto'
import { writeFileSync } from 'node:fs'
import { mkdir, readFile, realpath } from 'node:fs/promises'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { emitClaude } from '../../src/emit/claude.js'
import { buildFixtureServer, type BuiltServer, type Connection, connect, eventually, resultText } from './server-fixture.js'

const SERVED = ['echo', 'add', 'fail', 'noisy', 'stray_error', 'hang', 'wait_for_abort', 'steps', 'digest', 'fragile']

let built: BuiltServer
let server: Connection

beforeAll(async () => {
  built = await buildFixtureServer()
  server = await connect(built.target, { env: { OAC_MCP_TOKEN: 'token-from-env' } })
})

afterAll(async () => {
  await server?.close()
  await built?.remove()
})

async function call(name: string, args: Record<string, unknown>, connection = server) {
  return connection.client.callTool({ name, arguments: args })
}

describe('MCP server: tools/list', () => {
  it('announces itself under the plan server name', () => {
    expect(server.client.getServerVersion()?.name).toBe('oac-tools')
  })

  it('lists every JSON tool, and only those, each with its canonical schema as inputSchema', async () => {
    const { tools } = await server.client.listTools()
    expect(tools.map((t) => t.name)).toEqual(SERVED)
    for (const tool of tools) {
      const planned = built.plan.tools.find((t) => t.name === tool.name)!
      expect(tool.description).toBe(planned.description)
      expect(tool.inputSchema).toEqual(planned.schema)
    }
    // Independently of compile: what the fixture's definitions say.
    const add = tools.find((t) => t.name === 'add')!
    expect(add.inputSchema).toMatchObject({
      type: 'object',
      properties: { a: { type: 'number' }, b: { type: 'number', description: 'The second number' } },
      required: ['a', 'b'],
    })
    const echo = tools.find((t) => t.name === 'echo')!
    expect(echo.inputSchema).toMatchObject({
      type: 'object',
      properties: {
        text: { type: 'string', description: 'What to repeat' },
        times: { type: 'integer', minimum: 1, maximum: 5, default: 1 },
        tags: { type: 'array', items: { type: 'string' } },
      },
      required: ['text'],
    })
  })
})

describe('MCP server: tools/call', () => {
  it('runs a zod tool with its defaults applied, the declared env and the working folder', async () => {
    const result = await call('echo', { text: 'ab', times: 2, tags: ['x'] })
    expect(result.isError).toBeFalsy()
    expect(JSON.parse(resultText(result))).toEqual({ text: 'abab', tags: ['x'], cwd: await realpath(built.target), token: 'token-from-env' })
    expect(JSON.parse(resultText(await call('echo', { text: 'once' })))).toMatchObject({ text: 'once', tags: [] })
  })

  it('runs a TypeBox tool', async () => {
    const result = await call('add', { a: 2, b: 3.5 })
    expect(result.isError).toBeFalsy()
    expect(resultText(result)).toBe('5.5')
  })

  it('turns invalid input into an isError result naming each bad field, and keeps serving', async () => {
    const zod = await call('echo', { times: 9 })
    expect(zod.isError).toBe(true)
    const zodText = resultText(zod)
    expect(zodText).toContain('Invalid input for tool "echo"')
    expect(zodText).toMatch(/text/)
    expect(zodText).toMatch(/times/)
    const typebox = await call('add', { a: 'two', b: 1 })
    expect(typebox.isError).toBe(true)
    expect(resultText(typebox)).toMatch(/\ba\b/)
    expect(resultText(await call('add', { a: 1, b: 1 }))).toBe('2')
  })

  it('turns a throwing tool into an isError result with its message, and keeps serving', async () => {
    const result = await call('fail', { reason: 'because' })
    expect(result.isError).toBe(true)
    expect(resultText(result)).toBe('Tool "fail" failed: refused: because')
    expect(resultText(await call('add', { a: 1, b: 2 }))).toBe('3')
  })

  it('loads a tool module on its first call: one that fails to load gives isError, the others keep working', async () => {
    expect(resultText(await call('fragile', {}))).toBe('loaded fine')
    const broken = await connect(built.target, { env: { OAC_BREAK_FRAGILE: '1' } })
    try {
      // The server started and lists the tool: its module is not loaded before the first call.
      expect((await broken.client.listTools()).tools.map((t) => t.name)).toContain('fragile')
      for (let attempt = 0; attempt < 2; attempt++) {
        const result = await call('fragile', {}, broken)
        expect(result.isError).toBe(true)
        expect(resultText(result)).toBe('Tool "fragile" failed: its module could not be loaded: fragile module refused to load')
      }
      expect(resultText(await call('add', { a: 1, b: 1 }, broken))).toBe('2')
    } finally {
      await broken.close()
    }
  })

  it('answers a call to an unknown tool with isError and the names it does serve', async () => {
    const result = await call('no_such_tool', {})
    expect(result.isError).toBe(true)
    const text = resultText(result)
    expect(text).toContain('Unknown tool "no_such_tool"')
    for (const name of SERVED) expect(text).toContain(name)
  })

  it('keeps tool output on stdout away from the protocol stream (it goes to stderr)', async () => {
    const result = await call('noisy', {})
    expect(result.isError).toBeFalsy()
    expect(resultText(result)).toBe('quiet result')
    expect(resultText(await call('add', { a: 20, b: 1 }))).toBe('21')
    await eventually(async () => (server.stderr().includes('forged by process.stdout.write') ? true : undefined), 'the diverted output on stderr')
    expect(server.stderr()).toContain('noise from console.log')
    expect(server.stderr()).toContain('noise from console.error')
  })

  it('survives errors thrown outside a tool promise', async () => {
    expect(resultText(await call('stray_error', {}))).toBe('returned normally')
    await eventually(async () => (server.stderr().includes('thrown in a timer') ? true : undefined), 'the stray error logged')
    expect(server.stderr()).toContain('rejected and never awaited')
    expect(resultText(await call('add', { a: 4, b: 4 }))).toBe('8')
  })

  it('sends ctx.progress as progress notifications when the client asked for them', async () => {
    const seen: Array<{ progress: number; message?: string }> = []
    // The SDK client drops notifications that arrive in the same read as the result (it handles them
    // a microtask later, after the result has removed the handler): the tool holds its result until
    // the last step's notification has been handled here.
    const gate = join(built.target, 'progress-read')
    const result = await server.client.callTool({ name: 'steps', arguments: { count: 5, gate } }, undefined, {
      onprogress: (progress) => {
        seen.push({ progress: progress.progress, message: progress.message })
        if (progress.progress === 5) writeFileSync(gate, '')
      },
    })
    expect(resultText(result)).toBe('did 5 steps')
    expect(seen).toEqual([1, 2, 3, 4, 5].map((n) => ({ progress: n, message: `step ${n} of 5` })))
  })

  it("aborts the tool's signal when the client cancels the call, and keeps serving", async () => {
    const marker = join(built.target, 'cancelled.txt')
    const controller = new AbortController()
    const pending = server.client.callTool({ name: 'wait_for_abort', arguments: { marker } }, undefined, {
      signal: controller.signal,
      // The tool reports progress once it waits on its signal: cancel then, so the tool is surely running.
      onprogress: () => controller.abort('the user pressed Esc'),
    })
    await expect(pending).rejects.toThrow()
    const reason = await eventually(async () => (await readFile(marker, 'utf8').catch(() => '')) || undefined, 'the tool to see the abort')
    expect(reason).toBe('The client cancelled the call to "wait_for_abort".\n')
    expect(resultText(await call('add', { a: 5, b: 5 }))).toBe('10')
  })

  it('takes 1 MB of arguments', async () => {
    const data = 'aé€𝄞 '.repeat(150_000)
    expect(Buffer.byteLength(JSON.stringify({ data }))).toBeGreaterThan(1_000_000)
    const result = await call('digest', { data })
    expect(JSON.parse(resultText(result))).toEqual({ length: data.length, sha256: createHash('sha256').update(data).digest('hex') })
  })

  it('answers a burst of 1,000 concurrent calls, each with its own correct result', async () => {
    const calls = Array.from({ length: 1000 }, (_, i) => call('add', { a: i, b: 1000 }))
    const texts = (await Promise.all(calls)).map((result) => resultText(result))
    const correct = texts.filter((text, i) => text === String(i + 1000)).length
    expect(correct).toBe(1000)
  })
})

describe('MCP server: timeout', () => {
  it('stops a call after OAC_TOOL_TIMEOUT_MS with an isError result and aborts its signal', async () => {
    const timed = await connect(built.target, { env: { OAC_TOOL_TIMEOUT_MS: '300' } })
    try {
      const hung = await call('hang', {}, timed)
      expect(hung.isError).toBe(true)
      expect(resultText(hung)).toBe('Tool "hang" did not finish within 300 ms and was stopped.')
      const marker = join(built.target, 'timed-out.txt')
      const waited = await call('wait_for_abort', { marker }, timed)
      expect(waited.isError).toBe(true)
      const reason = await eventually(async () => (await readFile(marker, 'utf8').catch(() => '')) || undefined, 'the tool to see the timeout')
      expect(reason).toBe('Tool "wait_for_abort" did not finish within 300 ms and was stopped.\n')
      expect(resultText(await call('add', { a: 1, b: 1 }, timed))).toBe('2')
    } finally {
      await timed.close()
    }
  })

  it('ignores an OAC_TOOL_TIMEOUT_MS that is not a positive whole number, and says so', async () => {
    const misconfigured = await connect(built.target, { env: { OAC_TOOL_TIMEOUT_MS: 'soon' } })
    try {
      expect(resultText(await call('add', { a: 1, b: 2 }, misconfigured))).toBe('3')
      expect(misconfigured.stderr()).toContain('ignoring OAC_TOOL_TIMEOUT_MS="soon"')
    } finally {
      await misconfigured.close()
    }
  })
})

describe('MCP server: environment', () => {
  it("treats Claude Code's unexpanded `${NAME}` (NAME unset) as no value", async () => {
    const unset = await connect(built.target, { env: { OAC_MCP_TOKEN: '${OAC_MCP_TOKEN}' } })
    try {
      expect(JSON.parse(resultText(await call('echo', { text: 'x' }, unset))).token).toBeNull()
    } finally {
      await unset.close()
    }
  })

  it('starts through the generated launcher from a subfolder, in the target folder', async () => {
    const entry = emitClaude(built.plan).find((file) => file.path === '.mcp.json')
    if (entry?.kind !== 'merge') throw new Error('no .mcp.json entry')
    const { command, args } = entry.entries[0]!.value as { command: string; args: string[] }
    const subfolder = join(built.target, 'deep', 'sub')
    await mkdir(subfolder, { recursive: true })
    const launched = await connect(built.target, { command: command === 'node' ? process.execPath : command, args, cwd: subfolder })
    try {
      expect(JSON.parse(resultText(await call('echo', { text: 'x' }, launched))).cwd).toBe(await realpath(built.target))
    } finally {
      await launched.close()
    }
  })
})
