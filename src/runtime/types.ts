import type { JsonValue } from '../define/types.js'

/** What the server needs of a tool script (`scripts/<tool>.mjs`): its `invoke`, which validates and runs the tool. */
export interface ToolScript {
  invoke(input: unknown, options: InvokeOptions): Promise<InvokeResult>
}

/** A tool as the MCP server serves it: metadata up front, its script loaded on first call. */
export interface ServedTool {
  name: string
  description: string
  /** The canonical JSON Schema, served as the MCP `inputSchema` exactly. */
  inputSchema: { [key: string]: JsonValue }
  load(): Promise<ToolScript>
}

export interface McpServerOptions {
  name: string
  version: string
  tools: ServedTool[]
  /** Names of the environment variables given to tools as `ctx.env`. */
  env: string[]
  /** Per-call timeout in milliseconds (default 60 000; `OAC_TOOL_TIMEOUT_MS` overrides). */
  timeoutMs?: number
}

/** How a caller (CLI runner, MCP server, inline bridge) runs one tool call. */
export interface InvokeOptions {
  signal: AbortSignal
  cwd: string
  env: Readonly<Record<string, string | undefined>>
  progress(message: string): void
}

export type InvokeResult =
  | { ok: true; text: string }
  | { ok: false; kind: 'invalid-input'; message: string }
  | { ok: false; kind: 'tool-error'; message: string; stack?: string }
