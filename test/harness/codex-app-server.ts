import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process'
import { createInterface } from 'node:readline'
import { guardStdin } from '../util/process.js'

/** One `codex app-server` session over newline-delimited JSON-RPC, as an editor runs it. */
export class CodexAppServer {
  private readonly child: ChildProcessWithoutNullStreams
  private readonly pending = new Map<number, { resolve: (value: unknown) => void; reject: (error: Error) => void }>()
  private nextId = 1
  /** The text of every `configWarning` and `warning` notification. */
  readonly warnings: string[] = []

  /** Starts `codex` (the binary) in `cwd` with `env`, offline: no analytics, no remote plugins, and no plugins unless `plugins` (the user's installed ones). */
  constructor(codex: string, cwd: string, env: NodeJS.ProcessEnv, { plugins = false }: { plugins?: boolean } = {}) {
    const disabled = plugins ? ['remote_plugin'] : ['plugins', 'remote_plugin']
    this.child = spawn(codex, ['app-server', ...disabled.flatMap((feature) => ['--disable', feature]), '-c', 'analytics.enabled=false'], {
      cwd,
      env,
      stdio: ['pipe', 'pipe', 'pipe'],
    })
    this.child.stderr.resume()
    // A write after Codex has gone fails the requests waiting for an answer, not the test run.
    guardStdin(this.child.stdin, (error) => {
      for (const waiter of this.pending.values()) waiter.reject(error)
      this.pending.clear()
    })
    createInterface({ input: this.child.stdout }).on('line', (line) => {
      const message = JSON.parse(line) as { id?: number; method?: string; result?: unknown; error?: { message: string }; params?: { summary?: string; message?: string } }
      if (message.method === 'configWarning' || message.method === 'warning') this.warnings.push(message.params?.summary ?? message.params?.message ?? '')
      if (message.id === undefined || message.method !== undefined) return
      const waiter = this.pending.get(message.id)
      this.pending.delete(message.id)
      if (message.error) waiter?.reject(new Error(message.error.message))
      else waiter?.resolve(message.result)
    })
  }

  request<T>(method: string, params: unknown): Promise<T> {
    const id = this.nextId++
    const reply = new Promise<T>((resolveReply, reject) => this.pending.set(id, { resolve: (v) => resolveReply(v as T), reject }))
    this.child.stdin.write(`${JSON.stringify({ id, method, params })}\n`)
    return reply
  }

  async start(): Promise<void> {
    await this.request('initialize', { clientInfo: { name: 'oac-harness', version: '0' } })
    this.child.stdin.write(`${JSON.stringify({ method: 'initialized' })}\n`)
  }

  close(): void {
    this.child.kill()
  }
}

export interface McpServerStatus {
  name: string
  tools: Record<string, { name: string; inputSchema: unknown }>
  toolsError: string | null
}

/**
 * Starts a thread in `cwd` with the app-server running in `serverCwd` (an editor runs it elsewhere), and
 * lists the thread's MCP servers, with the config warnings the session gave.
 */
export async function threadServers(codex: string, serverCwd: string, env: NodeJS.ProcessEnv, cwd: string): Promise<{ servers: McpServerStatus[]; warnings: string[] }> {
  const server = new CodexAppServer(codex, serverCwd, env)
  try {
    await server.start()
    const { thread } = await server.request<{ thread: { id: string } }>('thread/start', { cwd })
    const { data } = await server.request<{ data: McpServerStatus[] }>('mcpServerStatus/list', { threadId: thread.id })
    return { servers: data, warnings: server.warnings }
  } finally {
    server.close()
  }
}
