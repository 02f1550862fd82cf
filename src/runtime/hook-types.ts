import type { HookDecisionKind, HookEvent } from '../define/hooks.js'
import type { Harness } from '../define/types.js'

/**
 * How a harness hands a hook its event and reads the answer. Command hooks (a process per event, JSON
 * on stdin): `claude` (Claude Code, Codex, Qwen Code: `hookSpecificOutput`), `gemini`, `copilot`
 * (camelCase fields, `modifiedArgs`). In-process hooks, generated plugin code: `opencode` (opencode
 * and Kilo), `pi`, `omp`, `cline`.
 */
export type HookWire = 'claude' | 'gemini' | 'copilot' | 'opencode' | 'pi' | 'omp' | 'cline'

/** What a harness does in place of a decision it cannot carry: block the call, or go on as if the hook had no opinion. */
export type HookFallback = 'block' | 'ignore'

/** What a hook script knows about its hook besides the code: embedded by the generated launcher. */
export interface HookSpec {
  name: string
  on: HookEvent
  onError: 'block' | 'allow'
  timeoutMs: number
  /** Names of the environment variables handed to the hook as `ctx.env`. */
  env: string[]
  /**
   * Per harness the hook is compiled for, the names its hooks see for tools (native name -> our tool's
   * name or the portable built-in's): what `event.tool` reads.
   */
  names: Partial<Record<Harness, Record<string, string>>>
  /** The tools the hook watches, by those names; absent: every tool call. */
  watch?: string[]
  /** Per harness, what it does in place of each decision it cannot carry. */
  fallbacks: Partial<Record<Harness, Partial<Record<HookDecisionKind, HookFallback>>>>
  /** Per harness that runs the hook as a command, the wire format of its payload and answer. */
  wires: Partial<Record<Harness, HookWire>>
  /** Per harness, the event's own name (what an answer names, when the payload does not). */
  events: Partial<Record<Harness, string>>
}

/** An event as every route hands it to the runtime, before the hook's types narrow it. */
export interface HookEventData {
  kind: HookEvent
  harness: Harness
  cwd: string
  sessionId?: string
  tool?: string
  builtin?: boolean
  nativeTool?: string
  input?: Record<string, unknown>
  result?: { text: string; isError: boolean }
  source?: string
  prompt?: string
  lastMessage?: string
  continued?: boolean
  trigger?: string
}

/** A decision as the runtime carries it to a harness. */
export type HookAnswer =
  | { kind: 'block' | 'ask'; reason: string }
  | { kind: 'allow'; reason?: string }
  | { kind: 'rewrite'; input: Record<string, unknown> }
  | { kind: 'addContext'; text: string }
  | { kind: 'keepGoing'; reason: string }

/**
 * What one run of a hook comes to, after its timeout and error policy: a decision (absent: no opinion),
 * and the error that led to it or was passed over, for the user.
 */
export interface HookOutcome {
  answer?: HookAnswer
  error?: string
}
