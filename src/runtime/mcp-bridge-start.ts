import type { ChildProcess } from 'node:child_process'
import spawn from 'cross-spawn'

/*
 * The first part of the MCP bridge (src/runtime/mcp-bridge.ts): it starts every stdio server, before
 * the SDK's client loads, so that a server starts while the harness loads the client rather than after.
 * No SDK here: this module is its own small vendor file, `mcp-bridge-start.cjs`, with only the spawn the
 * SDK's stdio transport uses (cross-spawn, which finds a Windows `.cmd` such as `npx`). Each server's
 * stdout is kept until the bridge's transport reads it.
 */

/** A value of a server's definition: a literal, or the name of a variable of the harness's environment (`fromEnv`). */
export type BridgeValue = string | { env: string }

/** A server as the bridge connects to it (a planned server without its origin). */
export type BridgedServer =
  | { name: string; transport: 'stdio'; command: string; args: BridgeValue[]; env: Record<string, BridgeValue> }
  | { name: string; transport: 'http'; url: string; bearerTokenEnv?: string; headers: Record<string, BridgeValue> }

/** A stdio server, started. */
export interface SpawnedServer {
  process: ChildProcess
  /** Resolves once the process runs; rejects when it could not be started (no such command, say). */
  spawned: Promise<void>
  /** Resolves when the process has ended and its streams are closed. */
  closed: Promise<void>
  /** Hands `reader` what the server wrote to stdout so far, then each chunk as it comes. */
  read(reader: (chunk: Buffer) => void): void
  /** The last of what the server wrote to stderr, for the message when it fails to start. */
  stderr(): string
}

/** A server of the registry as started: a stdio server with its process; each with the variables of its definition that were not set. */
export type StartedServer =
  | { server: Extract<BridgedServer, { transport: 'stdio' }>; spawned: SpawnedServer; unset: Set<string> }
  | { server: Extract<BridgedServer, { transport: 'http' }>; unset: Set<string> }

export interface StartedServers {
  servers: StartedServer[]
  /** `performance.now()` when they started: the bridge's wait counts from here. */
  since: number
}

/** The last characters a stdio server wrote to stderr that are kept. */
const STDERR_KEPT = 2_000

/** A value of the definition, filled from this process's environment (undefined, and named in `unset`, when the variable is not set). */
export function filled(value: BridgeValue, unset: Set<string>): string | undefined {
  if (typeof value === 'string') return value
  const found = process.env[value.env]
  if (found === undefined) unset.add(value.env)
  return found
}

/** Starts every stdio server at once, in `cwd`; an HTTP server is left to the bridge (its first request needs the client). */
export function startServers(servers: readonly BridgedServer[], cwd: string): StartedServers {
  const since = performance.now()
  return {
    since,
    servers: servers.map((server): StartedServer => {
      const unset = new Set<string>()
      return server.transport === 'stdio' ? { server, unset, spawned: spawnServer(server, cwd, unset) } : { server, unset }
    }),
  }
}

function spawnServer(server: Extract<BridgedServer, { transport: 'stdio' }>, cwd: string, unset: Set<string>): SpawnedServer {
  // As most harnesses start a server: with their whole environment and the definition's variables.
  const env: Record<string, string> = {}
  for (const [key, value] of Object.entries(process.env)) if (value !== undefined) env[key] = value
  for (const [key, value] of Object.entries(server.env)) {
    const text = filled(value, unset)
    if (text !== undefined) env[key] = text
  }
  const args = server.args.map((arg) => filled(arg, unset) ?? '')
  const child = spawn(server.command, args, { env, cwd, stdio: ['pipe', 'pipe', 'pipe'], shell: false, windowsHide: process.platform === 'win32' })
  const spawned = new Promise<void>((resolve, reject) => {
    child.once('spawn', resolve)
    child.once('error', reject)
  })
  // Whoever awaits it sees the failure; until then it is no unhandled rejection.
  spawned.catch(() => undefined)
  const closed = new Promise<void>((resolve) => child.once('close', () => resolve()))
  // A server that does not end with its stdin would outlive the harness: it is stopped when the harness exits.
  const stop = () => child.kill()
  process.once('exit', stop)
  void closed.then(() => process.off('exit', stop))
  // A write to a server that died fails on its stdin; the bridge's transport says so, and the harness goes on.
  child.stdin?.on('error', () => undefined)
  let stderr = ''
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString('utf8')).slice(-STDERR_KEPT)
  })
  let kept: Buffer[] | undefined = []
  let reader: ((chunk: Buffer) => void) | undefined
  child.stdout?.on('data', (chunk: Buffer) => (reader ? reader(chunk) : kept!.push(chunk)))
  return {
    process: child,
    spawned,
    closed,
    read(next) {
      reader = next
      for (const chunk of kept ?? []) next(chunk)
      kept = undefined
    },
    stderr: () => stderr,
  }
}
