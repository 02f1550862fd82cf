import type { JsonValue, ToolImageType } from '../define/types.js'

/** What the server needs of a tool script (`scripts/<tool>.mjs`): its `invoke`, which validates and runs the tool. */
export interface ToolScript {
  invoke(input: unknown, options: InvokeOptions): Promise<InvokeResult>
}

/** A tool as the MCP server serves it: metadata up front, its script loaded on first call. */
export interface ServedTool {
  name: string
  /** The name people see (MCP's `title`), where the tool gives one. */
  title?: string
  description: string
  /** The canonical JSON Schema, served as the MCP `inputSchema` exactly. */
  inputSchema: { [key: string]: JsonValue }
  /** The canonical output schema, where the tool declares one whose root is an object (MCP carries no other). */
  outputSchema?: { [key: string]: JsonValue }
  /** MCP tool annotations (readOnlyHint, destructiveHint, ..., and the title), from the effects the tool declares. */
  annotations?: { [key: string]: boolean | string }
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

/** An image of a result as every route carries it: the bytes as base64, and their MIME type. */
export interface ResultImage {
  data: string
  mimeType: ToolImageType
}

/**
 * The version of the result envelope a tool script prints with `--envelope` (tool-cli.ts):
 * `{"envelope":1, ...}` and the call's InvokeResult (without the stack), one line on stdout. The
 * generated shims ask for this version; a change to the envelope's shape is a new version.
 */
export const ENVELOPE_VERSION = '1'

/**
 * The outcome of one call, plain JSON: the inline bridge gets it from `invoke`, the process bridge
 * reads it from the script's result envelope (`--envelope 1`), the MCP server turns it
 * into a tool result. Optional parts are left out when the tool gave none.
 */
export type InvokeResult =
  | {
      ok: true
      /** What the model reads: the tool's string as is, or its value as indented JSON. */
      text: string
      /** The value checked against the tool's output schema, where it declares one. */
      structured?: JsonValue
      images?: ResultImage[]
      /** For the user, not the model. */
      details?: JsonValue
    }
  | { ok: false; kind: 'invalid-input'; message: string }
  | { ok: false; kind: 'tool-error'; message: string; stack?: string; details?: JsonValue }
