import type { BuiltinTool, HookDecisionKind, HookEvent } from '../define/hooks.js'
import type { AgentMode, Harness, JsonValue, ToolEffects, ToolFormat } from '../define/types.js'

/** The MCP server name when none is given. */
export const DEFAULT_SERVER_NAME = 'oac-tools'

/**
 * The compiled form of a registry: plain JSON-serialisable data with no absolute paths.
 * Every emitter and the bundler work from this alone (plus the project root for bundling).
 */
export interface Plan {
  /** The selected config profile's name. */
  config: string
  /** The harnesses to emit, in the canonical order of HARNESSES. */
  harnesses: Harness[]
  /** False keeps every tool on the bash route (no native forms, no MCP server). */
  nativeTools: boolean
  /** The MCP server's name in `.mcp.json` and Codex TOML (default `oac-tools`). */
  serverName: string
  /** How native shims reach a tool: a process per call, or an import of the bundled module. */
  bridge: 'process' | 'inline'
  /** Names of environment variables forwarded to tool processes. */
  env: string[]
  /** Merge the MCP server block into the project's `.codex/config.toml`, the one route to our tools for every Codex agent (default true). */
  codexConfig?: boolean
  tools: PlannedTool[]
  agents: PlannedAgent[]
  /** The hooks the config selects, each a script registered in every harness that has its event. */
  hooks: PlannedHook[]
  /** The registry's skills, where it defines any (src/compile/skills.ts). */
  skills?: PlannedSkill[]
  /** The registry's commands, where it defines any (src/compile/commands.ts). */
  commands?: PlannedCommand[]
  /** MCP servers someone else wrote, where the registry defines any (src/compile/mcp-servers.ts). */
  mcpServers?: PlannedMcpServer[]
  /** The rules the config selects, where the registry defines any (src/compile/rules.ts). */
  rules?: PlannedRule[]
  /** Present when the target is a plugin folder (`--plugin`): what its manifests call it. `targetOf` (src/compile/target.ts) makes the target of this and `scope`. */
  plugin?: PluginInfo
  /**
   * `user` when the target is a user's home (`--scope user`): every harness's files go to its user
   * folders (its description's `userScope`), and tools run in whatever folder the harness runs in.
   * Absent for a project (or a plugin folder).
   */
  scope?: 'user'
  /** The warning codes the config (or the driver) turned off or down to a note; absent when none. */
  diagnosticLevels?: DiagnosticLevels
}

/** Warning codes by what they become: hidden, or shown as a note that does not count as a warning. */
export type DiagnosticLevels = Readonly<Record<string, 'off' | 'note'>>

/**
 * A plugin folder's identity, the same in every harness's manifest and its `package.json`: a name
 * every format takes (lowercase letters, digits and single hyphens), a semver version, a description.
 */
export interface PluginInfo extends PluginMetadata {
  name: string
  version: string
  description: string
}

/** What the project's package.json says of its makers, written into each manifest that has the field. */
export interface PluginMetadata {
  author?: PluginAuthor
  /** An SPDX licence id, e.g. MIT. */
  license?: string
  /** A URL of the source repository. */
  repository?: string
  homepage?: string
  keywords?: string[]
}

export interface PluginAuthor {
  name: string
  email?: string
  url?: string
}

/** A JSON Schema object (draft 2020-12 subset) for a tool's input, always `type: 'object'` at the root. */
export type JsonSchema = { [key: string]: JsonValue }

export interface PlannedSource {
  /** Path relative to the project root, POSIX separators. */
  file: string
  line: number
  column: number
}

export interface PlannedTool {
  name: string
  /** The name people see, where the tool gives one (the model calls it by `name`). */
  title?: string
  description: string
  /** The JSON contract: only such tools get native forms and MCP. */
  json: boolean
  replacesBuiltin: boolean
  /** The one canonical JSON Schema of the input; every emitter generates from this. */
  schema: JsonSchema
  schemaKind: 'zod' | 'typebox'
  /** The package the input schema was made with; the tool script validates input with it (TypeBox 1.x is `typebox`). */
  schemaPackage: 'zod' | 'typebox' | '@sinclair/typebox'
  /** Where `defineTool` was called; the bundler imports this module and picks the tool by name. */
  source: PlannedSource
  /** The tool script, relative to the target: `scripts/<name>.mjs` (see `Target.scriptsFolder`). */
  script: string
  /** The canonical JSON Schema of the value `run` returns, where the tool declares one (made with the input's package). */
  output?: JsonSchema
  /** What the tool declares it does to the world (the effects it names), where it names any. */
  effects?: ToolEffects
  /** Whether harnesses run the tool without asking or always ask first (the config's `approval`); absent: each harness's default. */
  approval?: ToolApproval
}

/** What a config's approval rules decide for one tool. */
export type ToolApproval = 'allow' | 'ask'

export interface PlannedAgent {
  name: string
  description: string
  /** The prompt text (files already read), without tool docs: emitters add those. */
  prompt: string
  /** Names of the agent's tools, in definition order. */
  tools: string[]
  /** The documented format of each of the agent's tools (overrides applied). */
  toolFormats: Record<string, ToolFormat>
  mode: AgentMode
  /** The model id per harness, resolved from the agent, its aliases and the config; absent = harness default. */
  model: Partial<Record<Harness, string>>
  builtinTools: Partial<Record<Harness, string[]>>
  harness: Partial<Record<Harness, Record<string, JsonValue>>>
  /** Names of the MCP servers (of `Plan.mcpServers`) its `tools` name, where it names any. */
  mcpServers?: string[]
  source: PlannedSource
}

export interface PlannedHook {
  name: string
  description: string
  on: HookEvent
  /** beforeTool and afterTool: the tools it watches, ours by name and the portable built-ins; absent: every tool call. */
  tools?: { ours: string[]; builtins: BuiltinTool[] }
  onError: 'block' | 'allow'
  timeoutMs: number
  /** The agents it runs for alone, for a hook only agents list (not the registry); absent: every agent. */
  agents?: string[]
  /** The decisions its `run` can make, read from its code; absent where the code does not tell (ctx passed on), so any of its event's. */
  decisions?: HookDecisionKind[]
  /** Where `defineHook` was called; the bundler builds this module into the hook's code file. */
  source: PlannedSource
  /** The hook script, relative to the target: `scripts/hooks/<name>.mjs` (see `Target.scriptsFolder`). */
  script: string
}

export interface PlannedSkill {
  /** Its folder's name in every skills folder. */
  name: string
  description: string
  /** SKILL.md's body as written (a file already read), without tool docs: emitters add those. */
  instructions: string
  /** Names of the tools it documents, in definition order (each one of `Plan.tools`). */
  tools: string[]
  /** Its extra files, by path inside its folder (POSIX separators), with their text. */
  files: Record<string, string>
  /** False: only the user starts it. */
  modelInvocation: boolean
  /** The Agent Skills format's optional fields, as SKILL.md says them (`license`, `compatibility`, `metadata`, `allowed-tools`). */
  fields: { [key: string]: JsonValue }
  /** Each harness's own SKILL.md keys, written where that harness reads the folder. */
  harness: Partial<Record<Harness, { [key: string]: JsonValue }>>
  source: PlannedSource
}

export interface PlannedCommand {
  name: string
  /** Absent: the harnesses show the prompt's first line (`commandDescription` writes one where a file needs it). */
  description?: string
  /** The prompt as written (a file already read); `{{args}}`, `{{arg<n>}}`, `{{shell:...}}` are its placeholders (commands.ts). */
  prompt: string
  argumentHint?: string
  /** The agent it runs as, a name of `Plan.agents`. */
  agent?: string
  /** The model id, or one per harness (`commandModel`). */
  model?: string | Partial<Record<Harness, string>>
  /** Fields written into one harness's command file as given, where a definition has any. */
  harness?: Partial<Record<Harness, Record<string, JsonValue>>>
  source: PlannedSource
}

/** A value of an MCP server's definition: a literal, or the name of the environment variable (`fromEnv`) it comes from. */
export type PlannedMcpValue = string | { env: string }

interface PlannedMcpServerBase {
  name: string
  description?: string
  /** What the config's approval rules decide for its tools, where they name the server or one of its tools. */
  approval?: McpServerApproval
  source: PlannedSource
}

/** The approval rules for a server's tools: every tool of it (`all`), and single tools by name (each differing from `all`). */
export interface McpServerApproval {
  all?: ToolApproval
  tools?: Record<string, ToolApproval>
}

/** A server a harness starts as a process and speaks to over its stdio. */
export interface PlannedStdioServer extends PlannedMcpServerBase {
  transport: 'stdio'
  command: string
  args: PlannedMcpValue[]
  env: Record<string, PlannedMcpValue>
}

/** A server a harness reaches over streamable HTTP. */
export interface PlannedHttpServer extends PlannedMcpServerBase {
  transport: 'http'
  url: string
  /** The variable whose value is sent as `Authorization: Bearer <value>`. */
  bearerTokenEnv?: string
  headers: Record<string, PlannedMcpValue>
}

export type PlannedMcpServer = PlannedStdioServer | PlannedHttpServer
export interface PlannedRule {
  name: string
  description: string
  /** The instructions as written (a file already read). */
  text: string
  /** Globs of the project files it is for; absent for a rule that is always on. */
  paths?: string[]
  source: PlannedSource
}
