// TypeBox 1.x and 0.34 are optional peer dependencies: see peer-types.d.ts (two folders up from
// both src/define and dist/define, so the one hand-written file serves the sources and the package).
import type { SinclairObject, SinclairSchema, SinclairStatic, TypeBoxObject, TypeBoxSchema, TypeBoxStatic } from '../../peer-types.js'
import type { z } from 'zod'

/*
 * The types below every definition: where one was written, plain JSON, a text or its file, and a tool
 * (its schemas, results, effects and context). Hooks, MCP servers and rules build on these, and
 * types.ts (agents, configs, the registry) on them all, so these import none of them.
 */

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

/** The type of a value a schema checks: zod's input or output side (`side`), TypeBox's static type. */
type SchemaValue<S, Side extends 'input' | 'output'> = S extends z.ZodType
  ? Side extends 'input'
    ? z.input<S>
    : z.output<S>
  : S extends Installed<TypeBoxSchema>
    ? TypeBoxStatic<S>
    : S extends Installed<SinclairSchema>
      ? SinclairStatic<S>
      : never

/** The input type a schema accepts, for `run` (what the schema makes of the input it checked). */
export type InferInput<S extends ToolInputSchema> = SchemaValue<S, 'output'>

/** What `run` may return: a string is printed as is, anything else as JSON. */
export type ToolOutput = string | JsonValue

/** A tool's structured output: any zod 4 schema, or a TypeBox schema of 1.x (`typebox`) or 0.34 (`@sinclair/typebox`). */
export type ToolOutputSchema = z.ZodType | Installed<TypeBoxSchema> | Installed<SinclairSchema>

/** The value `run` returns for an output schema: what the schema accepts (its defaults are filled in before the value leaves the tool). */
export type InferOutput<O extends ToolOutputSchema> = SchemaValue<O, 'input'>

/** The image types models read. */
export type ToolImageType = 'image/png' | 'image/jpeg' | 'image/gif' | 'image/webp'

/** An image a tool returns next to its text. */
export interface ToolImage {
  /** The image's bytes, or the bytes as base64 text. */
  data: Uint8Array | string
  mimeType: ToolImageType
}

/** The parts of a rich result, for `ctx.result`; `value` is required where the tool declares an `output` schema. */
export type ToolResultParts<T> = (undefined extends T ? { value?: T } : { value: T }) & {
  /** Images for the model, next to the text. */
  images?: readonly ToolImage[]
  /** For the user, not the model: shown where the harness has a place for it (see docs/harnesses.md). */
  details?: JsonValue
}

// A brand for the type checker only: a plain object is not a result, only what `ctx.result` and
// `ctx.error` make is (the runtime knows them by identity).
declare const TOOL_RESULT: unique symbol

/** A result made by `ctx.result` or `ctx.error`. */
export interface ToolResult<T> {
  readonly [TOOL_RESULT]: T
}

/** The value type of a tool's results: its output schema's, or text and JSON (optional) without one. */
export type ToolValue<O extends ToolOutputSchema | undefined> = [O] extends [ToolOutputSchema] ? InferOutput<O> : ToolOutput | undefined

/** What `run` returns: its value (the output schema's, where it declares one), or a result `ctx` made. */
export type ToolReturn<O extends ToolOutputSchema | undefined> = Exclude<ToolValue<O>, undefined> | ToolResult<ToolValue<O>>

/**
 * What a tool does to the world, as far as its author knows. Harnesses read these as hints (MCP tool
 * annotations, oh-my-pi's approval tier), and a config's `approval` rules can select tools by them.
 */
export interface ToolEffects {
  /** It only reads: it changes nothing, in the project or anywhere else. */
  readOnly?: boolean
  /** It may delete or overwrite what it cannot restore (meaningless with readOnly). */
  destructive?: boolean
  /** Calling it again with the same input changes nothing more. */
  idempotent?: boolean
  /** It reaches outside the project: the network, other folders, services. */
  external?: boolean
}

/** A tool named in a config's `approval` rules: by name, or every tool that declares an effect. */
export type ToolSelector = string | { effect: keyof ToolEffects }

/** Which tools run without asking and which always ask first, written into each harness's own permission settings. */
export interface ToolApprovalRules {
  /** These tools run without asking. */
  allow?: readonly ToolSelector[]
  /** These tools always ask the user before they run; this wins over `allow`. */
  ask?: readonly ToolSelector[]
}

export interface ToolContext<T = ToolOutput | undefined> {
  /** The working directory the tool was started in. */
  cwd: string
  /** Aborted when the caller cancels the call (MCP cancellation, harness abort, SIGTERM). */
  signal: AbortSignal
  /** The values of the environment variables the selected config declares (undefined when unset). */
  env: Readonly<Record<string, string | undefined>>
  /** Reports progress on long work; forwarded to the harness where it has a channel for it. */
  progress(message: string): void
  /**
   * A rich result for `run` to return: its value with images for the model next to it and `details`
   * for the user. Every harness gets the richest form it carries (see docs/harnesses.md).
   */
  result(parts: ToolResultParts<T>): ToolResult<T>
  /**
   * A failed call, returned rather than thrown: the model reads `message` and the harness marks the
   * call failed (as it does for an error the tool throws), with `details` for the user.
   */
  error(message: string, parts?: { details?: JsonValue }): ToolResult<never>
}

export interface ToolOptions<S extends ToolInputSchema, O extends ToolOutputSchema | undefined = undefined, N extends string = string> {
  /** What the model calls the tool. */
  name: N
  /**
   * A human-readable name for people (`Weather forecast`), shown where the harness shows one: MCP's
   * `title`, pi's and oh-my-pi's `label`, opencode's and Kilo's title of a call. The model calls the tool by `name`.
   */
  title?: string
  description: string
  input: S
  /** The schema of the value `run` returns: checked before it leaves the tool, and given to harnesses as structured output. */
  output?: O
  run(input: InferInput<S>, ctx: ToolContext<ToolValue<O>>): ToolReturn<O> | Promise<ToolReturn<O>>
  /** What the tool does to the world (hints for harnesses, and what a config's `approval` rules select by). */
  effects?: ToolEffects
  /** The JSON contract (default true): only such tools get native harness forms. */
  json?: boolean
  /** Set when the tool deliberately replaces a harness built-in tool of the same name. */
  replacesBuiltin?: boolean
}

export interface ToolDefinition<S extends ToolInputSchema = ToolInputSchema, O extends ToolOutputSchema | undefined = undefined, N extends string = string> {
  readonly kind: 'oac:tool'
  /** The tool's name, as written (a literal type, so that a hook's event narrows by it). */
  readonly name: N
  readonly title?: string
  readonly description: string
  readonly input: S
  readonly output: O
  readonly run: (input: InferInput<S>, ctx: ToolContext<ToolValue<O>>) => ToolReturn<O> | Promise<ToolReturn<O>>
  readonly effects: Readonly<ToolEffects>
  readonly json: boolean
  readonly replacesBuiltin: boolean
  readonly source: SourceLocation
}

/** A tool definition of any schema, as collections hold them. */
// The parameters are `never` so that every ToolDefinition<S, O> is assignable (run is contravariant in them).
export interface AnyToolDefinition {
  readonly kind: 'oac:tool'
  readonly name: string
  readonly title?: string
  readonly description: string
  readonly input: ToolInputSchema
  readonly output: ToolOutputSchema | undefined
  readonly run: (input: never, ctx: never) => unknown
  readonly effects: Readonly<ToolEffects>
  readonly json: boolean
  readonly replacesBuiltin: boolean
  readonly source: SourceLocation
}

/** Text written inline, or a file resolved next to the module that defines it. */
export type TextSource = string | { file: string }
