import { callerLocation } from './source.js'
import type { SourceLocation } from './tool-types.js'

/**
 * A reference to an environment variable by name. Each harness fills it from its own environment when
 * it starts or reaches the server, in its own syntax (`${NAME}`, `{env:NAME}`, Codex's
 * `bearer_token_env_var`...): the value is never read at compile time nor written anywhere.
 */
export interface EnvReference {
  readonly kind: 'oac:env'
  readonly name: string
}

/** The only way a secret gets into an MCP server's definition: `fromEnv('GITHUB_TOKEN')`. */
export function fromEnv(name: string): EnvReference {
  return { kind: 'oac:env', name }
}

/** A literal, or a whole value taken from the environment. */
export type McpValue = string | EnvReference

export interface McpServerOptions {
  /** The server's name in every harness's config (letters, digits, "_" and "-"). */
  name: string
  /** What it offers, for people reading the registry (harness configs carry no description). */
  description?: string
  /** A stdio server: the command that starts it, and its arguments. */
  command?: string
  args?: readonly McpValue[]
  /** Variables the stdio server is started with: literals, or `fromEnv` for anything secret. */
  env?: Readonly<Record<string, McpValue>>
  /** A streamable-HTTP server: its URL (instead of `command`). */
  url?: string
  /** Sent as `Authorization: Bearer <value>` to the HTTP server. */
  bearerToken?: EnvReference
  /** More HTTP headers: literals, or `fromEnv` for anything secret. */
  headers?: Readonly<Record<string, McpValue>>
}

export interface McpServerDefinition {
  readonly kind: 'oac:mcp-server'
  readonly name: string
  readonly description?: string
  readonly command?: string
  readonly args: readonly McpValue[]
  readonly env: Readonly<Record<string, McpValue>>
  readonly url?: string
  readonly bearerToken?: EnvReference
  readonly headers: Readonly<Record<string, McpValue>>
  readonly source: SourceLocation
}

/**
 * Defines an MCP server someone else wrote (stdio with `command`, or streamable HTTP with `url`), merged
 * into every harness's MCP configuration; an agent's `tools` may name it. Checked by the compile step.
 */
export function defineMcpServer(options: McpServerOptions): McpServerDefinition {
  return {
    kind: 'oac:mcp-server',
    name: options.name,
    ...(options.description !== undefined && { description: options.description }),
    ...(options.command !== undefined && { command: options.command }),
    args: options.args ?? [],
    env: options.env ?? {},
    ...(options.url !== undefined && { url: options.url }),
    ...(options.bearerToken !== undefined && { bearerToken: options.bearerToken }),
    headers: options.headers ?? {},
    source: callerLocation(),
  }
}
