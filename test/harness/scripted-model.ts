import { once } from 'node:events'
import { mkdtemp, rm } from 'node:fs/promises'
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

/**
 * A scripted model: a loopback HTTP endpoint that speaks the provider APIs the harness CLIs are
 * configured with (Anthropic messages, OpenAI chat completions and responses, Gemini
 * generateContent), streaming or not.
 * Each request of the conversation gets the script's next reply; every request is recorded with
 * the tools it showed the model and the tool results it carried back.
 */

/** One scripted reply: plain text (the turn ends), or tool calls (the harness runs them and asks again). */
export type Reply = { text: string } | { calls: ToolCall[] }

/** A script's turn: a reply, or one made from the request (to answer with an id the harness just handed out). */
export type Turn = Reply | ((request: Omit<SeenRequest, 'reply'>) => Reply)

export interface ToolCall {
  /** The tool's name as the harness showed it (for a Responses namespace tool: `namespace` plus `name`). */
  name: string
  namespace?: string
  input: Record<string, unknown>
}

export type Api = 'anthropic' | 'chat' | 'responses' | 'gemini'

/** A tool result the harness sent back: the new ones of a request, after the model's last turn. */
export interface ToolResult {
  callId: string
  /** The name of the call it answers, as the script made it (`undefined` for a call the endpoint did not hand out). */
  name: string | undefined
  /** The result's text (its text parts joined). */
  text: string
  /** Anthropic's `is_error`, or a Gemini `functionResponse` holding `error`; the OpenAI APIs have no such flag. */
  isError?: boolean
  /** The result as the request carries it (the tool message, content block, input item or function response), for what `text` leaves out. */
  raw: unknown
}

export interface SeenRequest {
  api: Api
  path: string
  body: Record<string, unknown>
  /** The system and developer text of the request: where a harness puts an agent's own prompt. */
  system: string
  /** The tools shown to the model, by the name it would call (Responses namespaces as `namespace` + `name`, e.g. `mcp__x__` + `tool`). */
  tools: ShownTool[]
  toolResults: ToolResult[]
  /** The conversation whose script answered it; `undefined` for the harness's side requests (titles, summaries). */
  conversation: string | undefined
  /** The script's reply, or the side answer. */
  reply: Reply
}

export interface ShownTool {
  name: string
  namespace?: string
  /** The input schema as the harness sent it (`undefined` for a tool without one, such as a provider's built-in). */
  schema: unknown
}

export interface ScriptedModelOptions {
  /**
   * One script per conversation (the main agent, each sub-agent): a harness may run a sub-agent
   * alongside its parent, so each conversation takes its own next turn whatever the order.
   */
  scripts: Record<string, Turn[]>
  /** Which conversation a request belongs to; `undefined` for a side request (a title, a summary), which gets `sideReply`. */
  conversationOf: (request: Pick<SeenRequest, 'api' | 'path' | 'body' | 'tools' | 'system'>) => string | undefined
  sideReply?: Reply
  /** Bound on all requests; past it (or past a conversation's script) the endpoint answers 400, which no harness retries. */
  maxRequests?: number
}

export interface ScriptedModel {
  /** `http://127.0.0.1:<port>` */
  url: string
  /** A Unix socket serving the same endpoint, for a harness run in a network namespace of its own (see loopback-only.ts). */
  socket: string
  requests: SeenRequest[]
  /** The scripted requests of one conversation, in order. */
  conversation(name: string): SeenRequest[]
  /** Requests that came after a conversation's script ran out or past the bound (each was refused). */
  refused: Array<{ conversation: string | undefined; path: string; body: unknown }>
  close(): Promise<void>
}

export async function startScriptedModel(options: ScriptedModelOptions): Promise<ScriptedModel> {
  const maxRequests = options.maxRequests ?? 60
  const requests: SeenRequest[] = []
  const refused: ScriptedModel['refused'] = []
  const next = new Map<string, number>()
  /** Each call id handed out, with the name of the tool it called. */
  const callNames = new Map<string, string>()
  let callCounter = 0

  const listener = (req: IncomingMessage, res: ServerResponse): void => {
    void handle(req, res).catch((error: unknown) => {
      res.writeHead(500, { 'content-type': 'application/json' })
      res.end(JSON.stringify({ error: { message: String(error) } }))
    })
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = (req.url ?? '/').split('?')[0]!
    const chunks: Buffer[] = []
    for await (const chunk of req) chunks.push(chunk as Buffer)
    if (req.method !== 'POST') {
      // Model listings and health probes: an empty list.
      json(res, 200, { object: 'list', data: [], models: [] })
      return
    }
    const body = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}') as Record<string, unknown>
    if (path.endsWith('/count_tokens')) {
      json(res, 200, { input_tokens: 1 })
      return
    }
    if (path.endsWith(':countTokens')) {
      json(res, 200, { totalTokens: 1 })
      return
    }
    const api = apiOf(path)
    if (!api) {
      json(res, 404, { error: { message: `scripted model: no API at ${path}` } })
      return
    }
    const tools = shownTools(api, body)
    const system = systemText(api, body)
    const conversation = options.conversationOf({ api, path, body, tools, system })
    const turn = conversation === undefined ? 0 : (next.get(conversation) ?? 0)
    const script = conversation === undefined ? undefined : options.scripts[conversation]
    if (requests.length >= maxRequests || (conversation !== undefined && (script === undefined || turn >= script.length))) {
      refused.push({ conversation, path, body })
      json(res, 400, { error: { type: 'invalid_request_error', message: `scripted model: no turn left for ${conversation ?? 'a side request'}` } })
      return
    }
    if (conversation !== undefined) next.set(conversation, turn + 1)
    const results = toolResults(api, body).map((result) => ({ ...result, name: result.name ?? callNames.get(result.callId) }))
    const seen = { api, path, body, system, tools, toolResults: results, conversation }
    const scripted = script?.[turn]
    const reply = scripted === undefined ? (options.sideReply ?? { text: 'ok' }) : typeof scripted === 'function' ? scripted(seen) : scripted
    requests.push({ ...seen, reply })
    const ids = 'calls' in reply ? reply.calls.map(() => `call_${++callCounter}`) : []
    if ('calls' in reply) reply.calls.forEach((call, i) => callNames.set(api === 'anthropic' ? `toolu_${ids[i]}` : ids[i]!, call.name))
    const stream = body.stream === true || path.endsWith(':streamGenerateContent')
    if (api === 'anthropic') return stream ? sse(res, anthropicEvents(reply, ids)) : json(res, 200, anthropicMessage(reply, ids))
    if (api === 'chat') return stream ? sse(res, chatChunks(reply, ids), true) : json(res, 200, chatCompletion(reply, ids))
    if (api === 'gemini') return stream ? sse(res, [geminiResponse(reply, ids)]) : json(res, 200, geminiResponse(reply, ids))
    return stream ? sse(res, responsesEvents(reply, ids)) : json(res, 200, responsesObject(reply, ids))
  }

  const socketDir = await mkdtemp(join(tmpdir(), 'oac-model-'))
  const socket = join(socketDir, 'model.sock')
  const tcp = createServer(listener)
  const unix = createServer(listener)
  const listening = Promise.all([once(tcp, 'listening'), once(unix, 'listening')])
  tcp.listen(0, '127.0.0.1')
  unix.listen(socket)
  await listening
  const { port } = tcp.address() as AddressInfo
  const stop = (server: Server) =>
    new Promise<void>((resolve) => {
      server.closeAllConnections()
      server.close(() => resolve())
    })
  return {
    url: `http://127.0.0.1:${port}`,
    socket,
    requests,
    conversation: (name) => requests.filter((r) => r.conversation === name),
    refused,
    close: async () => {
      await Promise.all([stop(tcp), stop(unix)])
      await rm(socketDir, { recursive: true, force: true })
    },
  }
}

function apiOf(path: string): Api | undefined {
  if (path.endsWith('/messages')) return 'anthropic'
  if (path.endsWith('/chat/completions')) return 'chat'
  if (path.endsWith('/responses')) return 'responses'
  if (/:(stream)?[gG]enerateContent$/.test(path)) return 'gemini'
  return undefined
}

type Json = Record<string, unknown>

function json(res: ServerResponse, status: number, value: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' })
  res.end(JSON.stringify(value))
}

/** Server-sent events: `event:` lines where the API names its events (Anthropic, Responses), bare `data:` for chat. */
function sse(res: ServerResponse, events: Json[], done = false): void {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' })
  for (const event of events) {
    const name = typeof event.type === 'string' && !done ? `event: ${event.type}\n` : ''
    res.write(`${name}data: ${JSON.stringify(event)}\n\n`)
  }
  if (done) res.write('data: [DONE]\n\n')
  res.end()
}

function shownTools(api: Api, body: Json): ShownTool[] {
  const tools = Array.isArray(body.tools) ? (body.tools as Json[]) : []
  const shown: ShownTool[] = []
  for (const tool of tools) {
    if (api === 'chat') {
      const fn = (tool.function ?? tool) as Json
      shown.push({ name: String(fn.name), schema: fn.parameters })
    } else if (api === 'gemini') {
      // A Gemini tool is a group of function declarations (or a built-in such as googleSearch, shown by its key).
      const declarations = Array.isArray(tool.functionDeclarations) ? (tool.functionDeclarations as Json[]) : []
      if (declarations.length === 0) shown.push(...Object.keys(tool).map((name) => ({ name, schema: undefined })))
      for (const fn of declarations) shown.push({ name: String(fn.name), schema: fn.parametersJsonSchema ?? fn.parameters })
    } else if (api === 'responses' && tool.type === 'namespace' && Array.isArray(tool.tools)) {
      for (const inner of tool.tools as Json[]) shown.push({ namespace: String(tool.name), name: String(inner.name), schema: inner.parameters })
    } else shown.push({ name: String(tool.name ?? tool.type), schema: api === 'anthropic' ? tool.input_schema : tool.parameters })
  }
  return shown
}

function textOf(content: unknown): string {
  if (typeof content === 'string') return content
  if (Array.isArray(content)) return content.map((part: Json) => (typeof part.text === 'string' ? part.text : '')).join('')
  return ''
}

function systemText(api: Api, body: Json): string {
  const parts: string[] = []
  if (api === 'anthropic') parts.push(textOf(body.system))
  if (api === 'responses') parts.push(textOf(body.instructions))
  if (api === 'gemini') {
    const instruction = body.systemInstruction as Json | string | undefined
    parts.push(typeof instruction === 'object' ? textOf(instruction.parts) : textOf(instruction))
  }
  const items = (api === 'responses' ? body.input : body.messages) as Json[] | undefined
  for (const item of Array.isArray(items) ? items : []) {
    if (item.role === 'system' || item.role === 'developer') parts.push(textOf(item.content))
  }
  return parts.join('\n')
}

/** A tool result as the request carries it: only Gemini's results name the call they answer. */
type SentResult = Omit<ToolResult, 'name'> & { name?: string }

/** The tool results after the model's last turn: what the harness sends back for the calls it just made. */
function toolResults(api: Api, body: Json): SentResult[] {
  if (api === 'gemini') {
    const contents = Array.isArray(body.contents) ? (body.contents as Json[]) : []
    const lastModel = contents.findLastIndex((content) => content.role === 'model')
    return contents.slice(lastModel + 1).flatMap((content) =>
      (Array.isArray(content.parts) ? (content.parts as Json[]) : []).flatMap((part) => {
        const result = part.functionResponse as { id?: string; name: string; response?: Json } | undefined
        if (!result) return []
        // Gemini CLI answers with `{ output }`, or `{ error }` for a failed call.
        const response = result.response ?? {}
        const text = typeof response.output === 'string' ? response.output : typeof response.error === 'string' ? response.error : JSON.stringify(response)
        return [{ callId: String(result.id ?? result.name), name: result.name, text, isError: 'error' in response, raw: result }]
      }),
    )
  }
  if (api === 'responses') {
    const input = Array.isArray(body.input) ? (body.input as Json[]) : []
    const lastModelItem = input.findLastIndex((item) => item.type === 'function_call' || item.role === 'assistant')
    return input
      .slice(lastModelItem + 1)
      .filter((item) => item.type === 'function_call_output')
      .map((item) => ({ callId: String(item.call_id), text: textOf(item.output), raw: item }))
  }
  const messages = Array.isArray(body.messages) ? (body.messages as Json[]) : []
  const lastAssistant = messages.findLastIndex((message) => message.role === 'assistant')
  const after = messages.slice(lastAssistant + 1)
  if (api === 'chat') {
    return after.filter((m) => m.role === 'tool').map((m) => ({ callId: String(m.tool_call_id), text: textOf(m.content), raw: m }))
  }
  const results: SentResult[] = []
  for (const message of after) {
    if (!Array.isArray(message.content)) continue
    for (const block of message.content as Json[]) {
      if (block.type === 'tool_result') results.push({ callId: String(block.tool_use_id), text: textOf(block.content), isError: block.is_error === true, raw: block })
    }
  }
  return results
}

const USAGE = { input_tokens: 10, output_tokens: 5 }

function anthropicContent(reply: Reply, ids: string[]): Json[] {
  if ('text' in reply) return [{ type: 'text', text: reply.text }]
  return reply.calls.map((call, i) => ({ type: 'tool_use', id: `toolu_${ids[i]}`, name: call.name, input: call.input }))
}

function anthropicMessage(reply: Reply, ids: string[]): Json {
  return {
    id: `msg_${ids[0] ?? 'text'}`,
    type: 'message',
    role: 'assistant',
    model: 'scripted',
    content: anthropicContent(reply, ids),
    stop_reason: 'text' in reply ? 'end_turn' : 'tool_use',
    stop_sequence: null,
    usage: USAGE,
  }
}

function anthropicEvents(reply: Reply, ids: string[]): Json[] {
  const message = anthropicMessage(reply, ids)
  const events: Json[] = [{ type: 'message_start', message: { ...message, content: [], stop_reason: null, usage: { ...USAGE, output_tokens: 1 } } }]
  anthropicContent(reply, ids).forEach((block, index) => {
    if (block.type === 'text') {
      events.push({ type: 'content_block_start', index, content_block: { type: 'text', text: '' } })
      events.push({ type: 'content_block_delta', index, delta: { type: 'text_delta', text: block.text } })
    } else {
      events.push({ type: 'content_block_start', index, content_block: { ...block, input: {} } })
      events.push({ type: 'content_block_delta', index, delta: { type: 'input_json_delta', partial_json: JSON.stringify(block.input) } })
    }
    events.push({ type: 'content_block_stop', index })
  })
  events.push({ type: 'message_delta', delta: { stop_reason: message.stop_reason, stop_sequence: null }, usage: { output_tokens: USAGE.output_tokens } })
  events.push({ type: 'message_stop' })
  return events
}

const CHAT_USAGE = { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 }

function chatToolCalls(reply: Reply, ids: string[]): Json[] | undefined {
  if ('text' in reply) return undefined
  return reply.calls.map((call, index) => ({ index, id: ids[index], type: 'function', function: { name: call.name, arguments: JSON.stringify(call.input) } }))
}

function chatCompletion(reply: Reply, ids: string[]): Json {
  return {
    id: `chatcmpl_${ids[0] ?? 'text'}`,
    object: 'chat.completion',
    created: 0,
    model: 'scripted',
    choices: [
      {
        index: 0,
        message: { role: 'assistant', content: 'text' in reply ? reply.text : null, tool_calls: chatToolCalls(reply, ids) },
        finish_reason: 'text' in reply ? 'stop' : 'tool_calls',
      },
    ],
    usage: CHAT_USAGE,
  }
}

function chatChunks(reply: Reply, ids: string[]): Json[] {
  const base = { id: `chatcmpl_${ids[0] ?? 'text'}`, object: 'chat.completion.chunk', created: 0, model: 'scripted' }
  const delta = 'text' in reply ? { role: 'assistant', content: reply.text } : { role: 'assistant', content: null, tool_calls: chatToolCalls(reply, ids) }
  return [
    { ...base, choices: [{ index: 0, delta, finish_reason: null }] },
    { ...base, choices: [{ index: 0, delta: {}, finish_reason: 'text' in reply ? 'stop' : 'tool_calls' }] },
    { ...base, choices: [], usage: CHAT_USAGE },
  ]
}

function responsesOutput(reply: Reply, ids: string[]): Json[] {
  if ('text' in reply) {
    return [{ type: 'message', id: 'msg_text', role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: reply.text, annotations: [] }] }]
  }
  return reply.calls.map((call, i) => ({
    type: 'function_call',
    id: `fc_${ids[i]}`,
    call_id: ids[i],
    name: call.name,
    ...(call.namespace ? { namespace: call.namespace } : {}),
    arguments: JSON.stringify(call.input),
    status: 'completed',
  }))
}

function responsesObject(reply: Reply, ids: string[]): Json {
  return {
    id: `resp_${ids[0] ?? 'text'}`,
    object: 'response',
    created_at: 0,
    status: 'completed',
    model: 'scripted',
    output: responsesOutput(reply, ids),
    usage: { input_tokens: 10, output_tokens: 5, total_tokens: 15 },
  }
}

function responsesEvents(reply: Reply, ids: string[]): Json[] {
  const response = responsesObject(reply, ids)
  const output = response.output as Json[]
  const events: Json[] = [{ type: 'response.created', response: { ...response, status: 'in_progress', output: [] } }]
  output.forEach((item, output_index) => {
    events.push({ type: 'response.output_item.added', output_index, item })
    if (item.type === 'message') {
      events.push({ type: 'response.output_text.delta', output_index, content_index: 0, item_id: item.id, delta: textOf(item.content) })
    }
    events.push({ type: 'response.output_item.done', output_index, item })
  })
  events.push({ type: 'response.completed', response })
  return events
}

/** A Gemini `GenerateContentResponse`: the whole reply as one candidate (streamed as a single event). */
function geminiResponse(reply: Reply, ids: string[]): Json {
  const parts = 'text' in reply ? [{ text: reply.text }] : reply.calls.map((call, i) => ({ functionCall: { id: ids[i], name: call.name, args: call.input } }))
  return {
    candidates: [{ index: 0, content: { role: 'model', parts }, finishReason: 'STOP' }],
    usageMetadata: { promptTokenCount: 10, candidatesTokenCount: 5, totalTokenCount: 15 },
    modelVersion: 'scripted',
  }
}
