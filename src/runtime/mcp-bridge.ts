import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { ReadBuffer, serializeMessage } from '@modelcontextprotocol/sdk/shared/stdio.js'
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js'
import type { CallToolResult, JSONRPCMessage, Tool } from '@modelcontextprotocol/sdk/types.js'
import type { JsonSchemaValidator, jsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/types.js'
import { type BridgedServer, filled, type SpawnedServer, type StartedServer, type StartedServers } from './mcp-bridge-start.js'

export type { BridgedServer, BridgeValue } from './mcp-bridge-start.js'

/*
 * The MCP bridge: for a harness that shows its model no MCP tool by name (pi, oh-my-pi, Cline), its
 * generated extension connects to each MCP server someone else wrote with the official SDK client, lists
 * its tools, and registers each as one of the harness's own tools, forwarding calls and results. Bundled
 * with the SDK into `scripts/vendor/unplugin-oac@<version>/mcp-bridge.mjs`, which `scripts/mcp_bridge.cjs`
 * (the servers, as the plan has them) loads once it has started the stdio servers (mcp-bridge-start.ts),
 * and hands to every harness's extension: nothing is imported from the project's node_modules.
 */

export interface BridgeOptions {
  /** How long the harness's start waits for all the servers together; a server not listed by then is left out of the session (`OAC_MCP_BRIDGE_WAIT_MS` overrides it). */
  waitMs: number
  /** The harness's own limit, where a user may set it with a variable: set, the bridge waits it less `reserveMs`. */
  limit?: { env: string; reserveMs: number }
  /** The longest tool name the harness hands its model. */
  nameMax: number
  /** Tool names the harness has already (its built-ins, our own tools): a server's tool that would take one is left out. */
  taken: readonly string[]
  /** Says one problem (a server left out, a tool left out), in a line that names the server. */
  report(message: string): void
}

/** One content block of a result, as pi and oh-my-pi take it. */
export type BridgedBlock = { type: 'text'; text: string } | { type: 'image'; data: string; mimeType: string }

export interface BridgedResult {
  isError: boolean
  /** The result's content: text and images as they came, every other kind of block as text. */
  content: BridgedBlock[]
  /** The same as one text, an image as a line naming it (for a harness whose tools return text). */
  text: string
}

export interface BridgedTool {
  /** The name the model sees: `<server>_<tool>`, see `bridgedToolName`. */
  name: string
  server: string
  /** The tool's own name on its server. */
  tool: string
  title?: string
  description: string
  /** The tool's input schema, as its server lists it. */
  inputSchema: Record<string, unknown>
  call(input: unknown, call: { signal?: AbortSignal; progress?: (message: string) => void }): Promise<BridgedResult>
}

export interface Bridge {
  tools: BridgedTool[]
  /** Closes every connection (stops the stdio servers). */
  close(): Promise<void>
}

/**
 * The name a server's tool is shown under: `<server>_<tool>` (as opencode and Kilo show an MCP server's
 * tools), each character the model providers refuse in a name (they take `[A-Za-z0-9_-]`) as `_`, cut to
 * `nameMax` characters.
 */
export function bridgedToolName(server: string, tool: string, nameMax: number): string {
  return `${server}_${tool}`.replace(/[^A-Za-z0-9_-]/g, '_').slice(0, nameMax)
}

/**
 * The client checks a tool's structured result against its output schema only to refuse one that does
 * not match; the bridge forwards what the server sent, as the server sent it, and leaves the SDK's
 * validator (ajv, most of the client's code) out of the bundle.
 */
export class ForwardingValidator implements jsonSchemaValidator {
  getValidator<T>(): JsonSchemaValidator<T> {
    return (input) => ({ valid: true, data: input as T, errorMessage: undefined })
  }
}

/** A connected server: its client and its tools. */
interface Connected {
  client: Client
  tools: Tool[]
}

/**
 * Connects to every server at once (the stdio ones started already, see startServers) and lists their
 * tools, waiting at most `options.waitMs` from their start in all: a server that fails, or has not listed
 * its tools by then, is closed and left out with one message naming it and why, and the others' tools
 * are returned. Never rejects.
 */
export async function bridgeServers(started: StartedServers, options: BridgeOptions): Promise<Bridge> {
  const waitMs = waitOf(options)
  const clients: Client[] = []
  let timer: NodeJS.Timeout | undefined
  const deadline = new Promise<'late'>((resolve) => {
    timer = setTimeout(() => resolve('late'), Math.max(waitMs - (performance.now() - started.since), 0))
  })
  const outcomes = await Promise.all(
    started.servers.map(async (start) => {
      const server = start.server
      const attempt = connect(start)
      const outcome = await Promise.race([attempt.connected.then((connected) => ({ connected }), (error: unknown) => ({ error })), deadline])
      if (outcome === 'late') {
        options.report(`MCP server "${server.name}" did not list its tools within ${seconds(waitMs)}: its tools are left out of this session.${attempt.unset()}`)
        attempt.abandon()
        return undefined
      }
      if ('error' in outcome) {
        options.report(`MCP server "${server.name}" could not be reached: ${attempt.problem(outcome.error)}. Its tools are left out of this session.${attempt.unset()}`)
        void attempt.client.close().catch(() => undefined)
        return undefined
      }
      clients.push(outcome.connected.client)
      return { server, ...outcome.connected }
    }),
  )
  clearTimeout(timer)
  const taken = new Set(options.taken)
  const tools: BridgedTool[] = []
  for (const outcome of outcomes) {
    if (!outcome) continue
    for (const tool of outcome.tools) {
      const name = bridgedToolName(outcome.server.name, tool.name, options.nameMax)
      if (taken.has(name)) {
        options.report(`MCP server "${outcome.server.name}"'s tool "${tool.name}" would be shown as "${name}", a name another tool has: it is left out of this session.`)
        continue
      }
      taken.add(name)
      tools.push(bridgedTool(outcome.server.name, outcome.client, tool, name))
    }
  }
  return { tools, close: async () => void (await Promise.all(clients.map((client) => client.close().catch(() => undefined)))) }
}

/**
 * The wait: `OAC_MCP_BRIDGE_WAIT_MS` where a user's servers need longer; else, where the user set the
 * harness's own limit, that limit less what the harness's loading takes; else the harness's default.
 */
function waitOf(options: BridgeOptions): number {
  const positive = (name: string) => {
    const value = Number(process.env[name])
    return Number.isInteger(value) && value > 0 ? value : undefined
  }
  const limit = options.limit && positive(options.limit.env)
  return positive('OAC_MCP_BRIDGE_WAIT_MS') ?? (limit === undefined ? options.waitMs : Math.max(limit - options.limit!.reserveMs, 500))
}

function seconds(ms: number): string {
  return `${Number((ms / 1000).toFixed(1))} s`
}

/** Starts connecting to one server: its client, what it resolves with, and the words for its failure. */
function connect(start: StartedServer) {
  const { unset } = start
  const spawned = 'spawned' in start ? start.spawned : undefined
  const transport: Transport = 'spawned' in start ? new SpawnedServerTransport(start.spawned) : httpTransport(start.server, unset)
  const client = new Client({ name: 'unplugin-oac-bridge', version: '1' }, { capabilities: {}, jsonSchemaValidator: new ForwardingValidator() })
  const connected = (async (): Promise<Connected> => {
    await client.connect(transport)
    const tools: Tool[] = []
    let cursor: string | undefined
    do {
      const page = await client.listTools(cursor === undefined ? {} : { cursor })
      tools.push(...page.tools)
      cursor = page.nextCursor
    } while (cursor !== undefined)
    return { client, tools }
  })()
  return {
    client,
    connected,
    problem: (error: unknown) => {
      const message = error instanceof Error ? error.message : String(error)
      const said = lastWords(spawned?.stderr() ?? '')
      return said === undefined ? message : `${message} (its stderr: ${said})`
    },
    unset: () => (unset.size === 0 ? '' : ` Not set in this environment: ${[...unset].join(', ')}.`),
    /**
     * Leaves a server that missed the wait: a stdio one is stopped at once rather than asked to end
     * (it has not answered; and a harness killed by a signal runs no exit handler to stop it later).
     */
    abandon: () => {
      spawned?.process.kill('SIGTERM')
      void client.close().catch(() => undefined)
    },
  }
}

/**
 * What a server that failed said on stderr, in a line: its last line naming an error (a crash's
 * message, which Node prints above the stack and its version line), else its last line.
 */
function lastWords(stderr: string): string | undefined {
  const lines = stderr.split('\n').map((line) => line.trim()).filter((line) => line !== '' && !line.startsWith('at '))
  return lines.findLast((line) => /error/i.test(line)) ?? lines.at(-1)
}

/** An HTTP server's transport: `Authorization: Bearer <value>` and its headers, filled from the environment. */
function httpTransport(server: Extract<BridgedServer, { transport: 'http' }>, unset: Set<string>): Transport {
  const headers: Record<string, string> = {}
  const token = server.bearerTokenEnv === undefined ? undefined : filled({ env: server.bearerTokenEnv }, unset)
  if (token !== undefined) headers.Authorization = `Bearer ${token}`
  for (const [key, value] of Object.entries(server.headers)) {
    const text = filled(value, unset)
    if (text !== undefined) headers[key] = text
  }
  return new StreamableHTTPClientTransport(new URL(server.url), { requestInit: { headers } })
}

/**
 * The SDK's stdio transport, for a server already started (mcp-bridge-start.ts) rather than one it
 * spawns: the SDK's own line framing (ReadBuffer, serializeMessage), and its close, which ends the
 * server's stdin, then stops it (SIGTERM, then SIGKILL) if it has not ended within 2 s each.
 */
class SpawnedServerTransport implements Transport {
  onclose?: () => void
  onerror?: (error: Error) => void
  onmessage?: (message: JSONRPCMessage) => void
  private readonly buffer = new ReadBuffer()
  private open = true

  constructor(private readonly server: SpawnedServer) {}

  async start(): Promise<void> {
    await this.server.spawned
    const { process: child } = this.server
    child.stdin?.on('error', (error) => this.onerror?.(error))
    child.stdout?.on('error', (error) => this.onerror?.(error))
    void this.server.closed.then(() => {
      this.open = false
      this.onclose?.()
    })
    this.server.read((chunk) => {
      try {
        this.buffer.append(chunk)
        for (let message = this.buffer.readMessage(); message !== null; message = this.buffer.readMessage()) this.onmessage?.(message)
      } catch (error) {
        this.onerror?.(error as Error)
        void this.close()
      }
    })
  }

  send(message: JSONRPCMessage): Promise<void> {
    const stdin = this.server.process.stdin
    if (!this.open || !stdin) return Promise.reject(new Error('Not connected'))
    return new Promise((resolve) => (stdin.write(serializeMessage(message)) ? resolve() : stdin.once('drain', resolve)))
  }

  async close(): Promise<void> {
    const child = this.server.process
    const ended = () => child.exitCode !== null || child.signalCode !== null
    const within = (ms: number) => Promise.race([this.server.closed, new Promise((resolve) => setTimeout(resolve, ms).unref())])
    // A process that never started has nothing to stop.
    if (this.open && child.pid !== undefined) {
      this.open = false
      child.stdin?.end()
      await within(2_000)
      if (!ended()) {
        child.kill('SIGTERM')
        await within(2_000)
      }
      if (!ended()) child.kill('SIGKILL')
    }
    this.buffer.clear()
  }
}

function bridgedTool(server: string, client: Client, tool: Tool, name: string): BridgedTool {
  return {
    name,
    server,
    tool: tool.name,
    ...(tool.title !== undefined && { title: tool.title }),
    description: tool.description ?? tool.title ?? `The tool "${tool.name}" of the MCP server "${server}".`,
    inputSchema: tool.inputSchema,
    async call(input, call) {
      const progress = call.progress
      const result = (await client.callTool(
        { name: tool.name, arguments: (input ?? {}) as Record<string, unknown> },
        undefined,
        {
          ...(call.signal && { signal: call.signal }),
          ...(progress && { onprogress: ({ progress: done, total, message }) => progress(message ?? (total === undefined ? `${done}` : `${done}/${total}`)), resetTimeoutOnProgress: true }),
        },
      )) as CallToolResult
      return bridgedResult(result)
    },
  }
}

/** A tool's result as blocks and as text: text and images as they came; audio, links and resources as text naming them. */
export function bridgedResult(result: CallToolResult): BridgedResult {
  const content: BridgedBlock[] = []
  const lines: string[] = []
  for (const block of result.content ?? []) {
    if (block.type === 'text') {
      content.push({ type: 'text', text: block.text })
      lines.push(block.text)
    } else if (block.type === 'image') {
      content.push({ type: 'image', data: block.data, mimeType: block.mimeType })
      lines.push(`[an image, ${block.mimeType}]`)
    } else {
      const text =
        block.type === 'audio'
          ? `[audio, ${block.mimeType}]`
          : block.type === 'resource_link'
            ? `[resource ${block.uri}${block.name ? ` (${block.name})` : ''}]`
            : 'text' in block.resource
              ? block.resource.text
              : `[resource ${block.resource.uri}${block.resource.mimeType ? `, ${block.resource.mimeType}` : ''}]`
      content.push({ type: 'text', text })
      lines.push(text)
    }
  }
  // A result with structured content alone still says something.
  if (content.length === 0 && result.structuredContent !== undefined) {
    const text = JSON.stringify(result.structuredContent)
    content.push({ type: 'text', text })
    lines.push(text)
  }
  return { isError: result.isError === true, content, text: lines.join('\n') }
}
