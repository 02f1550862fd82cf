import { once } from 'node:events'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'

/*
 * A loopback OpenAI chat-completions endpoint (streamed) whose replies a test scripts from each
 * request: the harness under test is pointed at it as its model provider, so a run needs no account
 * and no network. Every request is kept, to check what the harness showed the model.
 */

export interface ChatMessage {
  role: string
  content: unknown
  tool_call_id?: string
  tool_calls?: Array<{ id: string; function: { name: string; arguments: string } }>
}

export interface ChatRequest {
  tools?: Array<{ function: { name: string } }>
  messages: ChatMessage[]
}

export type ChatReply = { text: string } | { calls: Array<{ name: string; input: Record<string, unknown> }> }

export interface ChatModel {
  /** The base URL, `http://127.0.0.1:<port>/v1`. */
  url: string
  requests: ChatRequest[]
  close(): Promise<void>
}

/** The names of the tools a request showed the model. */
export function shownTools(request: ChatRequest): string[] {
  return (request.tools ?? []).map((tool) => tool.function.name)
}

/** The tool results a request carried back, by the name of the call they answer. */
export function toolResults(request: ChatRequest): Array<{ name: string; content: unknown }> {
  const names = new Map(request.messages.flatMap((m) => m.tool_calls ?? []).map((call) => [call.id, call.function.name]))
  return request.messages.filter((m) => m.role === 'tool').map((m) => ({ name: names.get(m.tool_call_id ?? '') ?? '', content: m.content }))
}

export async function startChatModel(reply: (request: ChatRequest) => ChatReply): Promise<ChatModel> {
  const requests: ChatRequest[] = []
  let callIds = 0
  const server = createServer((req, res) => {
    let body = ''
    req.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')))
    req.on('end', () => {
      const request = JSON.parse(body || '{"messages":[]}') as ChatRequest
      requests.push(request)
      const answer = reply(request)
      const delta =
        'calls' in answer
          ? { role: 'assistant', tool_calls: answer.calls.map((call, index) => ({ index, id: `call_${++callIds}`, type: 'function', function: { name: call.name, arguments: JSON.stringify(call.input) } })) }
          : { role: 'assistant', content: answer.text }
      const chunk = (choice: object) =>
        `data: ${JSON.stringify({ id: 'c', object: 'chat.completion.chunk', created: 0, model: 'scripted', choices: [choice], usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 } })}\n\n`
      res.writeHead(200, { 'content-type': 'text/event-stream' })
      res.write(chunk({ index: 0, delta, finish_reason: null }))
      res.write(chunk({ index: 0, delta: {}, finish_reason: 'calls' in answer ? 'tool_calls' : 'stop' }))
      res.end('data: [DONE]\n\n')
    })
  })
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  const { port } = server.address() as AddressInfo
  return { url: `http://127.0.0.1:${port}/v1`, requests, close: () => new Promise((done) => server.close(() => done())) }
}
