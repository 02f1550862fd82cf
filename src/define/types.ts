// TypeBox 1.x and 0.34 are optional peer dependencies: see peer-types.d.ts (two folders up from
// both src/define and dist/define, so the one hand-written file serves the sources and the package).
import type { SinclairObject, SinclairStatic, TypeBoxObject, TypeBoxStatic } from '../../peer-types.js'
import type { z } from 'zod'

/**
 * The harnesses unplugin-oac compiles to, in their canonical order. Each is described in
 * `src/compile/harnesses/<id>.ts` and emitted by `src/emit/<id>.ts`.
 */
const HARNESS_IDS = ['opencode', 'claude', 'codex', 'pi', 'omp', 'gemini', 'copilot', 'qwen', 'kilo'] as const
export type Harness = (typeof HARNESS_IDS)[number]
export const HARNESSES: readonly Harness[] = HARNESS_IDS

/** What an agent's prompt documents for a tool: the bash command, the JSON contract, or both. */
export type ToolFormat = 'bash' | 'json' | 'both'

/** Where a definition was written: filled in by `defineTool`/`defineAgent`/`defineRegistry` from the call site. */
export interface SourceLocation {
  /** Absolute path (as loaded) of the module that called the define function. */
  file: string
  line: number
  column: number
}

export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue }

/** `T`, or `never` when `T` is `any` or unresolved (the type of an import whose package is not installed). */
type Installed<T> = unknown extends T ? never : T

/** A tool's input: a zod v4 object schema, or a `Type.Object` of TypeBox 1.x (`typebox`) or 0.34 (`@sinclair/typebox`). */
export type ToolInputSchema = z.ZodObject | Installed<TypeBoxObject> | Installed<SinclairObject>

/** The input type a schema accepts, for `run`. */
export type InferInput<S extends ToolInputSchema> = S extends z.ZodObject
  ? z.output<S>
  : S extends Installed<TypeBoxObject>
    ? TypeBoxStatic<S>
    : S extends Installed<SinclairObject>
      ? SinclairStatic<S>
      : never

/** What `run` may return: a string is printed as is, anything else as JSON. */
export type ToolOutput = string | JsonValue

export interface ToolContext {
  /** The working directory the tool was started in. */
  cwd: string
  /** Aborted when the caller cancels the call (MCP cancellation, harness abort, SIGTERM). */
  signal: AbortSignal
  /** The values of the environment variables the selected config declares (undefined when unset). */
  env: Readonly<Record<string, string | undefined>>
  /** Reports progress on long work; forwarded to the harness where it has a channel for it. */
  progress(message: string): void
}

export interface ToolOptions<S extends ToolInputSchema> {
  name: string
  description: string
  input: S
  run(input: InferInput<S>, ctx: ToolContext): ToolOutput | Promise<ToolOutput>
  /** The JSON contract (default true): only such tools get native harness forms. */
  json?: boolean
  /** Set when the tool deliberately replaces a harness built-in tool of the same name. */
  replacesBuiltin?: boolean
}

export interface ToolDefinition<S extends ToolInputSchema = ToolInputSchema> {
  readonly kind: 'oac:tool'
  readonly name: string
  readonly description: string
  readonly input: S
  readonly run: (input: InferInput<S>, ctx: ToolContext) => ToolOutput | Promise<ToolOutput>
  readonly json: boolean
  readonly replacesBuiltin: boolean
  readonly source: SourceLocation
}

/** A tool definition of any schema, as collections hold them. */
// The input parameter is `never` so that every ToolDefinition<S> is assignable (run is contravariant in its input).
export interface AnyToolDefinition {
  readonly kind: 'oac:tool'
  readonly name: string
  readonly description: string
  readonly input: ToolInputSchema
  readonly run: (input: never, ctx: ToolContext) => ToolOutput | Promise<ToolOutput>
  readonly json: boolean
  readonly replacesBuiltin: boolean
  readonly source: SourceLocation
}

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
  /** Tool definitions, or names of tools listed in the registry's `tools`. */
  tools?: ReadonlyArray<AnyToolDefinition | string>
  model?: ModelSpec
  mode?: AgentMode
  toolFormat?: ToolFormat
  toolFormatOverrides?: Record<string, ToolFormat>
  /** Harness built-in tools the agent may use besides its own (e.g. Claude's `Read`, `Grep`). */
  builtinTools?: Partial<Record<Harness, readonly string[]>>
  harness?: HarnessFields
}

export interface AgentDefinition {
  readonly kind: 'oac:agent'
  readonly name: string
  readonly description: string
  readonly prompt: string | { readonly file: string }
  readonly tools: ReadonlyArray<AnyToolDefinition | string>
  readonly model?: ModelSpec
  readonly mode: AgentMode
  readonly toolFormat: ToolFormat
  readonly toolFormatOverrides: Readonly<Record<string, ToolFormat>>
  readonly builtinTools: Partial<Record<Harness, readonly string[]>>
  readonly harness: HarnessFields
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
}

export interface RegistryOptions {
  agents: readonly AgentDefinition[]
  tools?: readonly AnyToolDefinition[]
  configs?: Record<string, ConfigProfile>
}

export interface RegistryDefinition {
  readonly kind: 'oac:registry'
  readonly agents: readonly AgentDefinition[]
  readonly tools: readonly AnyToolDefinition[]
  readonly configs: Readonly<Record<string, ConfigProfile>>
  readonly source: SourceLocation
}
