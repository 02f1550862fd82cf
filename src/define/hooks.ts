import type { Harness } from './harnesses.js'
import type { AnyToolDefinition, InferInput, SourceLocation } from './tool-types.js'

/**
 * The portable hook events, compiled into each harness's own (Claude Code's `PreToolUse`, Gemini
 * CLI's `BeforeTool`, opencode's `tool.execute.before`, ...): see each harness's description.
 */
export const HOOK_EVENTS = ['beforeTool', 'afterTool', 'sessionStart', 'userPrompt', 'stop', 'preCompact'] as const
export type HookEvent = (typeof HOOK_EVENTS)[number]

/** The portable names of the harnesses' built-in tools a hook may name, mapped to each harness's own (`Bash`, `run_shell_command`, `bash`, ...). */
export const BUILTIN_TOOLS = ['shell', 'read', 'write', 'edit', 'search', 'fetch'] as const
export type BuiltinTool = (typeof BUILTIN_TOOLS)[number]

/** A tool a hook watches: one of ours, or a portable built-in. */
export type HookToolRef = AnyToolDefinition | BuiltinTool

/** What a hook's `run` can decide; which ones an event allows is in its `ctx`. */
export type HookDecisionKind = 'block' | 'allow' | 'ask' | 'rewrite' | 'addContext' | 'keepGoing'

/** The decisions each event's ctx can make: the ctx methods of that name. */
export const EVENT_DECISIONS: Readonly<Record<HookEvent, readonly HookDecisionKind[]>> = {
  beforeTool: ['block', 'allow', 'ask', 'rewrite'],
  afterTool: ['addContext'],
  sessionStart: ['addContext'],
  userPrompt: ['addContext'],
  stop: ['keepGoing'],
  preCompact: [],
}

// A brand for the type checker only: the runtime knows a decision by identity (what this call's ctx made).
declare const HOOK_DECISION: unique symbol

/** A decision made by a hook's `ctx` (`ctx.block(reason)`, ...). */
export interface HookDecision<K extends HookDecisionKind = HookDecisionKind> {
  readonly [HOOK_DECISION]: K
}

/**
 * A tool call of a beforeTool or afterTool event, typed by the tool: `event.tool` is its name, so that
 * `event.tool === 'delete_report'` types `event.input` from that tool's schema (TypeScript narrows a
 * union by a property of the event itself, not by a property of a nested object).
 */
type ToolCallOf<T> = T extends BuiltinTool
  ? { tool: T; builtin: true; nativeTool: string; input: Record<string, unknown> }
  : T extends AnyToolDefinition
    ? { tool: T['name']; builtin: false; nativeTool: string; input: InferInput<T['input']> }
    : never

/** A hook without `tools` sees every tool call: ours, the portable built-ins, and the harness's other tools by its own names. */
type AnyToolCall = { tool: string; builtin: boolean; nativeTool: string; input: Record<string, unknown> }

type ToolCall<T> = [T] extends [never] ? AnyToolCall : ToolCallOf<T>

interface HookEventBase<E extends HookEvent> {
  kind: E
  /** The harness that called the hook. */
  harness: Harness
  /** The session's working directory, as the harness gives it. */
  cwd: string
  /** The harness's session id, where it gives one. */
  sessionId?: string
}

/** What a tool returned, for an afterTool hook: its text (without what a harness wraps around it for its model), and whether it failed. */
export interface HookToolResult {
  text: string
  isError: boolean
}

/** The event a hook's `run` gets, by its `on` and the tools it watches. */
export type HookEventOf<E extends HookEvent, T = never> = E extends 'beforeTool'
  ? HookEventBase<'beforeTool'> & ToolCall<T>
  : E extends 'afterTool'
    ? HookEventBase<'afterTool'> & ToolCall<T> & { result: HookToolResult }
    : E extends 'sessionStart'
      ? HookEventBase<'sessionStart'> & { source?: string }
      : E extends 'userPrompt'
        ? HookEventBase<'userPrompt'> & { prompt: string }
        : E extends 'stop'
          ? HookEventBase<'stop'> & { lastMessage?: string; continued: boolean }
          : HookEventBase<'preCompact'> & { trigger?: string }

interface HookContextBase {
  /** The working directory the hook runs in. */
  cwd: string
  /** The values of the environment variables the selected config declares (undefined when unset). */
  env: Readonly<Record<string, string | undefined>>
  /** Aborted when the hook runs past its timeout. */
  signal: AbortSignal
}

/** The decisions a beforeTool hook can make about the call. */
export interface BeforeToolContext extends HookContextBase {
  /** The tool does not run; the model reads `reason`. */
  block(reason: string): HookDecision<'block'>
  /** The tool runs without the harness asking the user (where the harness would). */
  allow(reason?: string): HookDecision<'allow'>
  /** The harness asks the user first (where it can ask). */
  ask(reason: string): HookDecision<'ask'>
  /** The tool runs with this input instead. */
  rewrite(input: Record<string, unknown>): HookDecision<'rewrite'>
}

/** An afterTool, sessionStart or userPrompt hook adds text the model reads. */
export interface ContextHookContext extends HookContextBase {
  addContext(text: string): HookDecision<'addContext'>
}

/** A stop hook keeps the agent going (where the harness can), with `reason` as the next instruction. */
export interface StopContext extends HookContextBase {
  keepGoing(reason: string): HookDecision<'keepGoing'>
}

export type HookContextOf<E extends HookEvent> = E extends 'beforeTool'
  ? BeforeToolContext
  : E extends 'afterTool' | 'sessionStart' | 'userPrompt'
    ? ContextHookContext
    : E extends 'stop'
      ? StopContext
      : HookContextBase

/** What `run` returns: a decision its ctx made, or nothing for no opinion. */
export type HookReturn<E extends HookEvent> = HookDecision<DecisionsOf<E>> | undefined | void

/** The decisions an event allows. */
export type DecisionsOf<E extends HookEvent> = E extends 'beforeTool'
  ? 'block' | 'allow' | 'ask' | 'rewrite'
  : E extends 'afterTool' | 'sessionStart' | 'userPrompt'
    ? 'addContext'
    : E extends 'stop'
      ? 'keepGoing'
      : never

export interface HookOptions<E extends HookEvent, T extends HookToolRef = never> {
  name: string
  description: string
  /** The event the hook runs on. */
  on: E
  /** beforeTool and afterTool: the tools it watches, ours and portable built-ins (default: every tool call). */
  tools?: readonly T[]
  /**
   * What a beforeTool hook that throws, returns something that is no decision or runs past its timeout
   * does: `block` the call with the error (default: fail closed), or `allow` it. Other events go on either
   * way, and the user sees the error.
   */
  onError?: 'block' | 'allow'
  /** How long `run` may take, in milliseconds (default 10 000); the harness is given a little more. */
  timeoutMs?: number
  run(event: HookEventOf<E, T>, ctx: HookContextOf<E>): HookReturn<E> | Promise<HookReturn<E>>
}

export interface HookDefinition<E extends HookEvent = HookEvent, T extends HookToolRef = never> {
  readonly kind: 'oac:hook'
  readonly name: string
  readonly description: string
  readonly on: E
  readonly tools: readonly T[] | undefined
  readonly onError: 'block' | 'allow'
  readonly timeoutMs: number
  readonly run: (event: HookEventOf<E, T>, ctx: HookContextOf<E>) => HookReturn<E> | Promise<HookReturn<E>>
  readonly source: SourceLocation
}

/** A hook of any event and tools, as collections hold them. */
// The parameters are `never` so that every HookDefinition<E, T> is assignable (run is contravariant in them).
export interface AnyHookDefinition {
  readonly kind: 'oac:hook'
  readonly name: string
  readonly description: string
  readonly on: HookEvent
  readonly tools: readonly HookToolRef[] | undefined
  readonly onError: 'block' | 'allow'
  readonly timeoutMs: number
  readonly run: (event: never, ctx: never) => unknown
  readonly source: SourceLocation
}

/** How long a hook may run when it does not say. */
export const DEFAULT_HOOK_TIMEOUT_MS = 10_000
