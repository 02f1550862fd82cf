import { Server } from '@modelcontextprotocol/sdk/server/index.js'
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js'
import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js'
import {
  type CallToolRequest,
  CallToolRequestSchema,
  type CallToolResult,
  type Implementation,
  ListToolsRequestSchema,
  type ServerNotification,
  type ServerRequest,
  type Tool,
} from '@modelcontextprotocol/sdk/types.js'
import type { JsonSchemaType, JsonSchemaValidator, jsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/types.js'
import type { JsonValue } from '../define/types.js'
import { divertStdout } from './mcp-stdio.js'
import type { InvokeOptions, InvokeResult, McpServerOptions, ServedTool, ToolScript } from './types.js'

/** Per-call timeout when neither the options nor `OAC_TOOL_TIMEOUT_MS` set one. */
const DEFAULT_TIMEOUT_MS = 60_000

/** How long a shutdown waits for replies already sent to be written out. */
const SHUTDOWN_FLUSH_MS = 2_000

type CallExtra = RequestHandlerExtra<ServerRequest, ServerNotification>

/**
 * Serves `options.tools` over MCP stdio until stdin closes or the process gets SIGTERM/SIGINT.
 * Resolves once the server is listening.
 *
 * Every failure a call can meet (unknown tool, invalid input, a throwing or hanging tool, a tool
 * module that does not load) becomes a tool result with `isError: true`, so the model sees a
 * message it can act on and the server keeps serving.
 */
export async function startMcpServer(options: McpServerOptions): Promise<void> {
  const protocolOut = divertStdout()
  const log = (message: string) => process.stderr.write(`[${options.name}] ${message}\n`)
  const timeoutMs = resolveTimeout(options.timeoutMs, process.env.OAC_TOOL_TIMEOUT_MS, log)
  const env = Object.fromEntries(options.env.map((name) => [name, declaredValue(name)]))
  const tools = new Map(options.tools.map((tool) => [tool.name, tool]))
  const loader = new ToolLoader()
  const inFlight = new Set<AbortController>()

  // `logging`: a tool's details for the user go out as log messages (see sendDetails).
  const server = new Server(
    { name: options.name, version: options.version },
    { capabilities: { tools: {}, logging: {} }, jsonSchemaValidator: new NoElicitationValidator() },
  )
  server.onerror = (error) => log(protocolProblem(error))

  const listed: Tool[] = options.tools.map((tool) => ({
    name: tool.name,
    ...(tool.title !== undefined && { title: tool.title }),
    description: tool.description,
    // The canonical schema always has `type: 'object'` at its root (see Plan), which is what MCP requires.
    inputSchema: tool.inputSchema as Tool['inputSchema'],
    ...(tool.outputSchema && { outputSchema: tool.outputSchema as Tool['outputSchema'] }),
    ...(tool.annotations && { annotations: tool.annotations }),
  }))
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: listed }))

  server.setRequestHandler(CallToolRequestSchema, async (request: CallToolRequest, extra: CallExtra): Promise<CallToolResult> =>
    readableBy(server.getClientVersion(), await callTool(request, extra)),
  )

  async function callTool(request: CallToolRequest, extra: CallExtra): Promise<CallToolResult> {
    const name = request.params.name
    const tool = tools.get(name)
    if (!tool) {
      return failure(`Unknown tool "${name}". This server provides: ${[...tools.keys()].join(', ') || 'no tools'}.`)
    }
    const controller = new AbortController()
    const stop = (reason: Error) => controller.abort(reason)
    const onCancel = () => stop(new Error(`The client cancelled the call to "${name}".`))
    extra.signal.addEventListener('abort', onCancel, { once: true })
    const timer = setTimeout(
      () => stop(new Error(`Tool "${name}" did not finish within ${timeoutMs} ms and was stopped.`)),
      timeoutMs,
    )
    inFlight.add(controller)
    let finished = false
    try {
      const result = await Promise.race([
        runTool(tool, request.params.arguments ?? {}, {
          signal: controller.signal,
          cwd: process.cwd(),
          env,
          progress: progressReporter(request, extra, () => finished, log),
        }),
        rejection(controller.signal),
      ])
      if (result.ok || result.kind === 'tool-error') await sendDetails(name, result.details)
      return toCallResult(tool, result, log)
    } catch (error) {
      return failure(errorMessage(error))
    } finally {
      finished = true
      clearTimeout(timer)
      extra.signal.removeEventListener('abort', onCancel)
      inFlight.delete(controller)
    }
  }

  /**
   * A tool's details, for the user and not the model: MCP results have no place for them, so they
   * go out as a log message (`logger` the tool's name), which a client may show or keep with the server's log.
   */
  async function sendDetails(tool: string, details: JsonValue | undefined): Promise<void> {
    if (details === undefined) return
    await server.sendLoggingMessage({ level: 'info', logger: tool, data: details }).catch((error: unknown) => log(`could not send the details of "${tool}": ${errorMessage(error)}`))
  }

  async function runTool(tool: ServedTool, input: unknown, invokeOptions: InvokeOptions): Promise<InvokeResult> {
    let script: ToolScript
    try {
      script = await loader.load(tool)
    } catch (error) {
      return { ok: false, kind: 'tool-error', message: `its module could not be loaded: ${errorMessage(error)}` }
    }
    // The script validates and runs the tool with its own copy of the runtime, so the server
    // bundles neither the validation code nor TypeBox.
    return script.invoke(input, invokeOptions)
  }

  // Tool code may fail outside its own promise (a throw in a timer, a rejected promise nobody
  // awaits). Node would end the process and every other call with it; log it and keep serving.
  process.on('uncaughtException', (error) => log(`uncaught error in tool code: ${errorStack(error)}`))
  process.on('unhandledRejection', (reason) => log(`unhandled rejection in tool code: ${errorStack(reason)}`))

  let closing = false
  const shutdown = () => {
    if (closing) return
    closing = true
    for (const controller of inFlight) controller.abort(new Error('The MCP server is shutting down.'))
    // Exit once every reply already sent is written out (a client that closed stdin may still be
    // reading), and even if tool code left timers or sockets open. Calls still running get no reply.
    // A reader that stopped reading cannot hold the exit back for more than a moment.
    setTimeout(() => process.exit(0), SHUTDOWN_FLUSH_MS).unref()
    void server.close().finally(() => protocolOut.end(() => process.exit(0)))
  }
  process.stdin.once('end', shutdown)
  process.stdin.once('close', shutdown)
  process.once('SIGTERM', shutdown)
  process.once('SIGINT', shutdown)
  // EPIPE on stdout means the client is gone.
  process.stdout.on('error', shutdown)
  protocolOut.on('error', shutdown)

  await server.connect(new StdioServerTransport(process.stdin, protocolOut))
}

/**
 * The SDK's JSON Schema validator checks the answers to elicitation requests, which this server never
 * sends (a tool has no way to ask the user anything). Passed instead of the SDK's default, it keeps
 * ajv, the bulk of the SDK's code, out of the bundled server (see the bundler), and startup skips
 * compiling it; and it needs nothing of zod, whose `fromJSONSchema` only zod 4.2 and later have.
 */
export class NoElicitationValidator implements jsonSchemaValidator {
  getValidator<T>(schema: JsonSchemaType): JsonSchemaValidator<T> {
    throw new Error(`This MCP server sends no elicitation requests, so it has no answers to check against ${JSON.stringify(schema)}.`)
  }
}

/** Loads each tool's script once, on its first call, so startup costs only the SDK. (Node caches a module that failed to evaluate
 * as failed, so a failed load is not retried: every call reports the same error.) */
class ToolLoader {
  private readonly loaded = new Map<string, Promise<ToolScript>>()

  load(tool: ServedTool): Promise<ToolScript> {
    let pending = this.loaded.get(tool.name)
    if (!pending) {
      pending = tool.load()
      this.loaded.set(tool.name, pending)
    }
    return pending
  }
}

/** `ctx.progress` for one call: MCP progress notifications when the client asked for them. */
function progressReporter(
  request: CallToolRequest,
  extra: CallExtra,
  finished: () => boolean,
  log: (message: string) => void,
): (message: string) => void {
  const progressToken = request.params._meta?.progressToken
  if (progressToken === undefined) return () => {}
  let progress = 0
  return (message: string) => {
    // A notification after the result would reference a token the client has already dropped.
    if (finished()) return
    progress += 1
    extra
      .sendNotification({ method: 'notifications/progress', params: { progressToken, progress, message: String(message) } })
      .catch((error: unknown) => log(`could not send progress: ${errorMessage(error)}`))
  }
}

function rejection(signal: AbortSignal): Promise<never> {
  return new Promise((_, reject) => signal.addEventListener('abort', () => reject(signal.reason), { once: true }))
}

/**
 * The MCP form of a result: the text (also for a value that has a structured form, as the spec asks)
 * and the images as content, the value as `structuredContent` where the tool lists an output schema,
 * and `isError` for a failed call.
 */
function toCallResult(tool: ServedTool, result: InvokeResult, log: (message: string) => void): CallToolResult {
  const name = tool.name
  if (result.ok) {
    const images = (result.images ?? []).map((image) => ({ type: 'image' as const, data: image.data, mimeType: image.mimeType }))
    const text = result.text === '' && images.length > 0 ? [] : [{ type: 'text' as const, text: result.text }]
    const structured = tool.outputSchema && isJsonObject(result.structured) ? { structuredContent: result.structured } : {}
    return { content: [...text, ...images], ...structured }
  }
  if (result.kind === 'invalid-input') {
    return failure(`Invalid input for tool "${name}": ${result.message}\nFix the arguments to match the tool's input schema and call it again.`)
  }
  if (result.stack) log(`tool "${name}" failed: ${result.stack}`)
  return failure(`Tool "${name}" failed: ${result.message}`)
}

/** The name Gemini CLI's MCP client gives itself in `initialize` (its `connectToMcpServer`, packages/core/src/tools/mcp-client.ts). */
export const GEMINI_CLI_CLIENT = 'gemini-cli-mcp-client'

/**
 * A result as the client can read it: as it is, but for Gemini CLI and a text that is a JSON value other than an object.
 *
 * Gemini CLI (0.61.0) wraps every MCP connection in `McpComplianceTransport`, whose
 * `fixStructuredContent` stores `JSON.parse` of a result's first text block as its `structuredContent`
 * when it has none; its SDK then refuses any value but an object ("expected record, received number")
 * and the model gets that error instead of the result. So a tool printing `3`, `true`, `null`, `"x"` or
 * `[1, 2]` failed there alone. Gemini hands the model `content` only (`transformMcpContentToParts`),
 * never `structuredContent`: the value's object form, `{ "result": <value> }` (the wrapping the MCP SDKs
 * give a non-object structured result), keeps the transport off and changes nothing the model reads.
 * Every other client gets the result untouched: Codex and Qwen Code show the model a
 * `structuredContent` (Qwen Code, a Gemini fork without the transport, names its client
 * `qwen-cli-mcp-client-<server>`), so the choice is by the client's name from `initialize`.
 */
function readableBy(client: Implementation | undefined, result: CallToolResult): CallToolResult {
  if (client?.name !== GEMINI_CLI_CLIENT || result.structuredContent !== undefined) return result
  const first = result.content[0]
  if (first?.type !== 'text') return result
  let value: unknown
  try {
    value = JSON.parse(first.text)
  } catch {
    return result
  }
  return isJsonObject(value as JsonValue) ? result : { ...result, structuredContent: { result: value } }
}

function isJsonObject(value: JsonValue | undefined): value is { [key: string]: JsonValue } {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

function failure(text: string): CallToolResult {
  return { content: [{ type: 'text', text }], isError: true }
}

function resolveTimeout(fromOptions: number | undefined, fromEnv: string | undefined, log: (message: string) => void): number {
  if (fromEnv !== undefined && fromEnv !== '') {
    const parsed = Number(fromEnv)
    if (Number.isInteger(parsed) && parsed > 0) return parsed
    log(`ignoring OAC_TOOL_TIMEOUT_MS=${JSON.stringify(fromEnv)}: expected a positive whole number of milliseconds`)
  }
  return fromOptions ?? DEFAULT_TIMEOUT_MS
}

/**
 * The value of a declared variable. Claude Code passes `"${NAME}"` through literally when NAME is
 * unset in its environment (`.mcp.json` names variables as `${NAME}`); that is no value, not a
 * value to hand a tool as, say, an API key.
 */
function declaredValue(name: string): string | undefined {
  const value = process.env[name]
  return value === `\${${name}}` ? undefined : value
}

/** The SDK reports a line it cannot use and goes on; say so in one line rather than a schema dump. */
function protocolProblem(error: Error): string {
  if (error instanceof SyntaxError) return `ignored a line that is not JSON: ${error.message}`
  if (error.name === 'ZodError') return 'ignored a message that is not a valid JSON-RPC 2.0 message'
  return error.message
}

function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error)
}

function errorStack(error: unknown): string {
  return error instanceof Error ? (error.stack ?? error.message) : String(error)
}
