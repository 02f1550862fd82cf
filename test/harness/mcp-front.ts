import { once } from 'node:events'
import { mkdtemp, rm } from 'node:fs/promises'
import { createServer, type IncomingMessage, request, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js'
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js'
import { harness } from '../../src/compile/harnesses/index.js'
import type { Harness } from '../../src/define/types.js'
import type { ScriptedModel, ToolCall } from './scripted-model.js'

/* The MCP tiers' streamable-HTTP server someone else wrote (the plain SDK), and how a model calls a server's tool. */

/**
 * The name a model calls a server's tool by. Where our own tools go over MCP, the description's rule
 * with the server's name; opencode and Kilo show ours as native tools, and an MCP server's as
 * `<server>_<tool>`, the name our bridge gives a server's tool too (pi, oh-my-pi, Cline).
 */
export function serverToolCall(id: Harness, server: string, tool: string): ToolCall {
  const description = harness(id)
  if (description.toolRoute !== 'mcp') return { name: `${server}_${tool}`, input: {} }
  const namespace = description.toolNamespace?.(server)
  return { name: description.modelToolName(server, tool), ...(namespace ? { namespace } : {}), input: {} }
}

/** The one tool the HTTP server serves, and the bearer token it wants, if any (401 without it). */
export interface FrontTool {
  tool: string
  description: string
  result: string
  token?: string
}

export interface McpFront {
  url: string
  socket: string
  /** Each request to the MCP server: whether it carried the token, and its JSON-RPC method. */
  mcpRequests: Array<{ authorized: boolean; method: string | undefined }>
  /** The scripted model the other requests go to, for one run. */
  model: ScriptedModel | undefined
  close(): Promise<void>
}

/**
 * The streamable-HTTP server `tracker`, in front of the scripted model on one port (and a unix socket):
 * a run reaches nothing but the model's port on its own loopback (loopback-only.ts), so `/tracker/mcp`
 * is the MCP server and every other path goes on to the model of the run.
 */
export async function startMcpFront(served: FrontTool): Promise<McpFront> {
  const socketDir = await mkdtemp(join(tmpdir(), 'oac-mcp-front-'))
  const front: McpFront = { url: '', socket: join(socketDir, 'front.sock'), mcpRequests: [], model: undefined, close: async () => {} }
  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    if (!req.url?.startsWith('/tracker/')) {
      const upstream = request(`${front.model!.url}${req.url}`, { method: req.method, headers: req.headers }, (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers)
        answer.pipe(res)
      })
      upstream.on('error', (error) => res.destroy(error))
      req.pipe(upstream)
      return
    }
    const chunks: Buffer[] = []
    for await (const chunk of req) chunks.push(chunk as Buffer)
    const text = Buffer.concat(chunks).toString('utf8')
    const body: unknown = text ? JSON.parse(text) : undefined
    const authorized = served.token === undefined || req.headers.authorization === `Bearer ${served.token}`
    front.mcpRequests.push({ authorized, method: (body as { method?: string } | undefined)?.method })
    if (!authorized) {
      res.writeHead(401, { 'content-type': 'application/json', 'www-authenticate': 'Bearer' }).end('{"error":"unauthorized"}')
      return
    }
    const server = new McpServer({ name: 'tracker', version: '1.0.0' })
    server.registerTool(served.tool, { description: served.description }, async () => ({ content: [{ type: 'text', text: served.result }] }))
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true })
    await server.connect(transport)
    await transport.handleRequest(req, res, body)
  }
  const listener = (req: IncomingMessage, res: ServerResponse) => void handle(req, res).catch((error: unknown) => res.writeHead(500).end(String(error)))
  const tcp: Server = createServer(listener).listen(0, '127.0.0.1')
  const unix: Server = createServer(listener).listen(front.socket)
  await Promise.all([once(tcp, 'listening'), once(unix, 'listening')])
  front.url = `http://127.0.0.1:${(tcp.address() as AddressInfo).port}`
  front.close = async () => {
    for (const server of [tcp, unix]) {
      server.closeAllConnections()
      await new Promise((done) => server.close(done))
    }
    await rm(socketDir, { recursive: true, force: true })
  }
  return front
}
