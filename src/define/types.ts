import type { DiagnosticCode } from '../diagnostic-codes.js'
import type { AnyHookDefinition } from './hooks.js'
import type { McpServerDefinition } from './mcp-servers.js'
import type { Harness } from './harnesses.js'
import type { RuleDefinition } from './rules.js'
import type { AnyToolDefinition, JsonValue, SourceLocation, TextSource, ToolApprovalRules, ToolFormat } from './tool-types.js'

export { HARNESSES, type Harness } from './harnesses.js'
export type * from './tool-types.js'

export type AgentMode = 'subagent' | 'primary' | 'all'

/** A model id, the same for every harness, or one per harness. A config's `models` may name it by alias. */
export type ModelSpec = string | Partial<Record<Harness, string>>

/** Extra fields passed through to one harness's agent file. */
export type HarnessFields = Partial<Record<Harness, Record<string, JsonValue>>>

export interface AgentOptions {
  name: string
  description: string
  /** The system prompt, or a file resolved next to the module that defines the agent. */
  prompt: string | { file: string }
  /** Tool definitions, or names of tools listed in the registry's `tools`; an MCP server gives the agent its tools. */
  tools?: ReadonlyArray<AnyToolDefinition | McpServerDefinition | string>
  model?: ModelSpec
  mode?: AgentMode
  toolFormat?: ToolFormat
  toolFormatOverrides?: Record<string, ToolFormat>
  /** Harness built-in tools the agent may use besides its own (e.g. Claude's `Read`, `Grep`). */
  builtinTools?: Partial<Record<Harness, readonly string[]>>
  harness?: HarnessFields
  /** Hooks that run for this agent alone, where a harness scopes hooks to an agent (Claude Code); in the others, for every agent. */
  hooks?: readonly AnyHookDefinition[]
}

export interface AgentDefinition {
  readonly kind: 'oac:agent'
  readonly name: string
  readonly description: string
  readonly prompt: string | { readonly file: string }
  readonly tools: ReadonlyArray<AnyToolDefinition | McpServerDefinition | string>
  readonly model?: ModelSpec
  readonly mode: AgentMode
  readonly toolFormat: ToolFormat
  readonly toolFormatOverrides: Readonly<Record<string, ToolFormat>>
  readonly builtinTools: Partial<Record<Harness, readonly string[]>>
  readonly harness: HarnessFields
  readonly hooks: readonly AnyHookDefinition[]
  readonly source: SourceLocation
}

/** A named profile, picked with `--config <name>`. */
export interface ConfigProfile {
  /** Harnesses to emit (default: all). */
  harnesses?: readonly Harness[]
  /** Emit native tool forms (default true); `false` keeps every tool on the bash route. */
  nativeTools?: boolean
  /** Model for agents that name none. */
  model?: ModelSpec
  /** Model aliases: an agent's `model` may name a key of this map. */
  models?: Record<string, ModelSpec>
  /** Names of environment variables forwarded to tool processes (never literal values). */
  env?: readonly string[]
  /** Which tools run without asking and which always ask (default: each harness's own default). */
  approval?: ToolApprovalRules
  /** Names of the registry's hooks to compile (default: all of them). */
  hooks?: readonly string[]
  /**
   * Warnings a team has read, by code (the word in brackets): `'off'` hides one, `'note'` shows it
   * without counting it as a warning. Errors stay errors. E.g. `{ 'tools-not-scoped': 'off' }`.
   */
  diagnostics?: DiagnosticLevelMap
  /** Names of the registry's MCP servers to compile (default: all of them). */
  mcpServers?: readonly string[]
  /** Names of the registry's rules to compile (default: all of them). */
  rules?: readonly string[]
}

/** What a warning code becomes (see ConfigProfile.diagnostics). */
export type DiagnosticLevel = 'off' | 'note' | 'warning'
export const DIAGNOSTIC_LEVELS: readonly DiagnosticLevel[] = ['off', 'note', 'warning']

/** Levels by diagnostic code (`codex-no-project-root` for a harness's own). */
export type DiagnosticLevelMap = Readonly<Partial<Record<DiagnosticCode, DiagnosticLevel>>>

export interface SkillOptions {
  /** The skill's folder name: lowercase letters, digits and single hyphens (the Agent Skills format), at most 64 characters. */
  name: string
  /** What the skill does and when to use it (at most 1,024 characters): harnesses show it to pick the skill. */
  description: string
  /** The body of SKILL.md: the instructions the model reads when it uses the skill. */
  instructions: TextSource
  /** Tools the instructions document as commands (`node scripts/<tool>.mjs ...`): definitions, or names of registry tools. */
  tools?: ReadonlyArray<AnyToolDefinition | string>
  /** More files in the skill's folder, by path inside it (e.g. `templates/report.md`). */
  files?: Readonly<Record<string, TextSource>>
  /** False: only the user starts the skill (`disable-model-invocation`), where the harness reads that. Default true. */
  modelInvocation?: boolean
  /** The Agent Skills format's optional fields, written into every harness's SKILL.md. `license`: its name, or the file beside SKILL.md that holds it. */
  license?: string
  /** What the skill needs to run (a product, system packages, network access), at most 500 characters. */
  compatibility?: string
  /** Any more facts about the skill, as text keys and values (e.g. `{ author: 'acme', version: '1.0' }`). */
  metadata?: Readonly<Record<string, string>>
  /** Tools the skill may use unasked (`allowed-tools`: `'Bash(git:*) Read'`, or a list), where the harness reads it. */
  allowedTools?: string | readonly string[]
  /** Extra fields written as they are into one harness's SKILL.md (e.g. `{ claude: { 'user-invocable': false } }`). */
  harness?: HarnessFields
}

export interface SkillDefinition {
  readonly kind: 'oac:skill'
  readonly name: string
  readonly description: string
  readonly instructions: string | { readonly file: string }
  readonly tools: ReadonlyArray<AnyToolDefinition | string>
  readonly files: Readonly<Record<string, string | { readonly file: string }>>
  readonly modelInvocation: boolean
  readonly license?: string
  readonly compatibility?: string
  readonly metadata?: Readonly<Record<string, string>>
  readonly allowedTools?: string | readonly string[]
  readonly harness: HarnessFields
  readonly source: SourceLocation
}

export interface CommandOptions {
  /** What the user types after `/`: lowercase letters, digits and single hyphens. */
  name: string
  /** Shown beside the command in the harness's list (without one, a harness shows the prompt's first line). */
  description?: string
  /**
   * The prompt the command sends; `{{args}}` stands for what the user typed after the command,
   * `{{arg1}}`, `{{arg2}}`... for its first, second... word, and `{{shell:git status}}` for what the
   * shell command prints, where the harness fills those in (compile warns, and leaves the others' file out).
   */
  prompt: TextSource
  /** Shown as the hint for the arguments (`argument-hint`), where the harness shows one. */
  argumentHint?: string
  /** Run the command as this agent, where the harness's command files can name one. */
  agent?: AgentDefinition | string
  /** The model the command runs with, where the harness's command files name one. */
  model?: ModelSpec
  /** Extra fields written into one harness's command file as they are (e.g. `{ claude: { 'allowed-tools': 'Bash(git:*)' } }`). */
  harness?: HarnessFields
}

export interface CommandDefinition {
  readonly kind: 'oac:command'
  readonly name: string
  readonly description?: string
  readonly prompt: string | { readonly file: string }
  readonly argumentHint?: string
  readonly agent?: AgentDefinition | string
  readonly model?: ModelSpec
  readonly harness: HarnessFields
  readonly source: SourceLocation
}

export interface RegistryOptions {
  agents: readonly AgentDefinition[]
  tools?: readonly AnyToolDefinition[]
  /** Hooks, compiled into each harness's hook system (a config's `hooks` picks some by name). */
  hooks?: readonly AnyHookDefinition[]
  skills?: readonly SkillDefinition[]
  commands?: readonly CommandDefinition[]
  /** MCP servers someone else wrote, merged into every harness's MCP configuration. */
  mcpServers?: readonly McpServerDefinition[]
  /** Instructions, written into each harness's own instruction files (a config's `rules` picks some by name). */
  rules?: readonly RuleDefinition[]
  configs?: Record<string, ConfigProfile>
}

export interface RegistryDefinition {
  readonly kind: 'oac:registry'
  readonly agents: readonly AgentDefinition[]
  readonly tools: readonly AnyToolDefinition[]
  readonly hooks: readonly AnyHookDefinition[]
  readonly skills: readonly SkillDefinition[]
  readonly commands: readonly CommandDefinition[]
  readonly mcpServers: readonly McpServerDefinition[]
  readonly rules: readonly RuleDefinition[]
  readonly configs: Readonly<Record<string, ConfigProfile>>
  readonly source: SourceLocation
}
