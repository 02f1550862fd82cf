import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process'
import { createInterface } from 'node:readline'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { guardStdin } from '../util/process.js'
import { buildFixtureServer, type BuiltServer } from './server-fixture.js'

/**
 * The server driven by raw JSON-RPC lines, for what the SDK client never sends: broken lines,
 * unknown methods, requests split across writes, and the end of stdin.
 */

interface JsonRpcMessage {
  jsonrpc: string
  id?: number
  method?: string
  params?: { progressToken?: string; progress?: number; message?: string }
  result?: { content?: Array<{ text: string }>; isError?: boolean; [key: string]: unknown }
  error?: { code: number; message: string }
}

class RawSession {
  readonly child: ChildProcessWithoutNullStreams
  /** Every line the server wrote to stdout, each parsed (a line that does not parse fails the test). */
  readonly messages: JsonRpcMessage[] = []
  stderr = ''
  private readonly waiting = new Map<number, (message: JsonRpcMessage) => void>()
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>

  constructor(target: string) {
    this.child = spawn(process.execPath, ['scripts/mcp_tools_server.cjs'], { cwd: target, stdio: ['pipe', 'pipe', 'pipe'] })
    // Its tests end the server; what it does then is read from its exit and its replies.
    guardStdin(this.child.stdin)
    this.child.stderr.setEncoding('utf8').on('data', (chunk: string) => (this.stderr += chunk))
    createInterface({ input: this.child.stdout }).on('line', (line) => {
      const message = JSON.parse(line) as JsonRpcMessage
      this.messages.push(message)
      if (message.id !== undefined) this.waiting.get(message.id)?.(message)
    })
    this.exited = new Promise((resolve) => this.child.on('exit', (code, signal) => resolve({ code, signal })))
  }

  write(text: string): void {
    this.child.stdin.write(text)
  }

  request(id: number, method: string, params?: unknown): Promise<JsonRpcMessage> {
    const reply = this.reply(id)
    this.write(`${JSON.stringify({ jsonrpc: '2.0', id, method, ...(params === undefined ? {} : { params }) })}\n`)
    return reply
  }

  reply(id: number): Promise<JsonRpcMessage> {
    return new Promise((resolve) => this.waiting.set(id, resolve))
  }

  async initialize(): Promise<void> {
    const reply = await this.request(1, 'initialize', {
      protocolVersion: '2025-06-18',
      capabilities: {},
      clientInfo: { name: 'raw', version: '0' },
    })
    expect(reply.result?.serverInfo).toMatchObject({ name: 'oac-tools' })
    this.write(`${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' })}\n`)
  }
}

let built: BuiltServer

beforeAll(async () => {
  built = await buildFixtureServer()
})

afterAll(async () => {
  await built?.remove()
})

describe('MCP server: raw JSON-RPC', () => {
  it('skips lines that are not JSON-RPC, answers unknown methods with -32601, and keeps serving', async () => {
    const session = new RawSession(built.target)
    session.write('this is not JSON\n')
    session.write('{"jsonrpc": "2.0", "id": 99, "method": \n')
    await session.initialize()
    session.write('{"jsonrpc":"2.0","id":100,"method":42}\n')
    session.write('[1, 2, 3]\n')
    session.write('\n')

    const unknown = await session.request(2, 'no/such/method', {})
    expect(unknown.error?.code).toBe(-32601)
    expect((await session.request(3, 'ping')).result).toEqual({})

    const noArguments = await session.request(4, 'tools/call', { name: 'add' })
    expect(noArguments.result?.isError).toBe(true)
    expect(noArguments.result?.content?.[0]?.text).toMatch(/\ba\b[\s\S]*\bb\b/)

    // The SDK rejects a tools/call without a name before our handler runs (with -32603, not -32602).
    const noName = await session.request(5, 'tools/call', {})
    expect(noName.error?.message).toMatch(/name/)

    // One request split across writes, ending in CRLF.
    const split = session.reply(6)
    const line = JSON.stringify({ jsonrpc: '2.0', id: 6, method: 'tools/call', params: { name: 'add', arguments: { a: 1, b: 2 } } })
    session.write(line.slice(0, 20))
    session.write(`${line.slice(20)}\r\n`)
    expect((await split).result?.content?.[0]?.text).toBe('3')

    // Neither broken request got an answer (there is no id to answer for the first two).
    expect(session.messages.map((m) => m.id)).toEqual([1, 2, 3, 4, 5, 6])
    expect(session.messages.every((m) => m.jsonrpc === '2.0')).toBe(true)
    expect(session.stderr).toContain('ignored a line that is not JSON')
    expect(session.stderr).toContain('ignored a message that is not a valid JSON-RPC 2.0 message')

    session.child.stdin.end()
    expect(await session.exited).toEqual({ code: 0, signal: null })
  })

  it('writes every progress notification before the result, only when the request carried a progress token', async () => {
    const session = new RawSession(built.target)
    await session.initialize()
    const withToken = await session.request(11, 'tools/call', { name: 'steps', arguments: { count: 5 }, _meta: { progressToken: 'tok-1' } })
    expect(withToken.result?.content?.[0]?.text).toBe('did 5 steps')
    const before = session.messages.slice(0, session.messages.indexOf(withToken))
    expect(before.filter((m) => m.method === 'notifications/progress').map((m) => m.params)).toEqual(
      [1, 2, 3, 4, 5].map((n) => ({ progressToken: 'tok-1', progress: n, message: `step ${n} of 5` })),
    )
    const withoutToken = await session.request(12, 'tools/call', { name: 'steps', arguments: { count: 3 } })
    expect(withoutToken.result?.content?.[0]?.text).toBe('did 3 steps')
    expect(session.messages.filter((m) => m.method === 'notifications/progress')).toHaveLength(5)
    session.child.stdin.end()
    expect(await session.exited).toEqual({ code: 0, signal: null })
  })

  it('exits with code 0 when stdin closes, even with a tool that never returns still running', async () => {
    const session = new RawSession(built.target)
    await session.initialize()
    const progress = new Promise<void>((resolve) =>
      session.child.stdout.on('data', (chunk: Buffer) => chunk.toString().includes('notifications/progress') && resolve()),
    )
    session.write(
      `${JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'wait_for_abort', arguments: { marker: '/dev/null' }, _meta: { progressToken: 't' } } })}\n`,
    )
    session.write(`${JSON.stringify({ jsonrpc: '2.0', id: 8, method: 'tools/call', params: { name: 'hang', arguments: {} } })}\n`)
    await progress
    session.child.stdin.end()
    expect(await session.exited).toEqual({ code: 0, signal: null })
  })

  it('writes out a reply it already sent whole when stdin closes right after (a 5 MB reply through a 64 KB pipe)', async () => {
    const session = new RawSession(built.target)
    const stdoutClosed = new Promise((resolve) => session.child.stdout.once('close', resolve))
    await session.initialize()
    const replyStarted = new Promise((resolve) => session.child.stdout.once('data', resolve))
    const text = 'abcd'.repeat(250_000)
    session.write(`${JSON.stringify({ jsonrpc: '2.0', id: 11, method: 'tools/call', params: { name: 'echo', arguments: { text, times: 5 } } })}\n`)
    await replyStarted
    session.child.stdin.end()
    expect(await session.exited).toEqual({ code: 0, signal: null })
    await stdoutClosed
    const reply = session.messages.find((message) => message.id === 11)
    expect(reply?.result?.isError).toBeFalsy()
    expect((JSON.parse(reply?.result?.content?.[0]?.text ?? '{}') as { text?: string }).text).toBe(text.repeat(5))
  })

  it('exits with code 0 on SIGTERM, with a tool that never returns still running', async () => {
    const session = new RawSession(built.target)
    await session.initialize()
    session.write(`${JSON.stringify({ jsonrpc: '2.0', id: 9, method: 'tools/call', params: { name: 'hang', arguments: {} } })}\n`)
    expect((await session.request(10, 'ping')).result).toEqual({})
    session.child.kill('SIGTERM')
    expect(await session.exited).toEqual({ code: 0, signal: null })
  })
})
