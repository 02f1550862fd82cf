import { harness as describe } from '../compile/harnesses/index.js'
import { BUILTIN_TOOLS, type BuiltinTool } from '../define/hooks.js'
import type { Harness, JsonValue } from '../define/types.js'
import { jsValue } from '../emit/codegen/escape.js'

/**
 * Each harness's own name of each portable built-in (the first its hooks see), for the harnesses the
 * imported hooks were written for: a command reads the tool named as its harness named it.
 */
function builtinNames(harnesses: readonly Harness[]): { [key: string]: JsonValue } {
  return Object.fromEntries(
    harnesses.map((id) => {
      const builtins = describe(id).hooks.builtins
      return [id, Object.fromEntries(BUILTIN_TOOLS.flatMap((tool: BuiltinTool) => (builtins[tool]?.[0] === undefined ? [] : [[tool, builtins[tool]![0]]])))]
    }),
  )
}

/**
 * The module the imported hooks' `run`s come from, written once into the user's project beside the
 * registry: it starts a hook command as its harness did (Claude Code's wire, which Codex shares: the
 * event as JSON on stdin, exit code 2 or a JSON answer on stdout), so that the command runs in every
 * harness the registry compiles to.
 */
export function hookCommandModule(harnesses: readonly Harness[]): string {
  return `// Written by \`oac import\`: runs a hook command written for one harness's hooks (Claude Code's
// wire, which Codex shares) from a hook definition, so that it runs in every harness. The command gets
// the event as that harness wrote it on stdin, and its answer (exit code 2 and stderr, or JSON on
// stdout) becomes the definition's decision. Yours to edit, or to replace with the command's logic.
import { spawn } from 'node:child_process'
import type { BeforeToolContext, ContextHookContext, HookContextOf, HookEventOf, HookReturn, StopContext } from 'unplugin-oac'

/** Each harness's name of each portable built-in, as its hook commands read tool names. */
const BUILTIN_NAMES: Record<string, Record<string, string>> = ${jsValue(builtinNames(harnesses), '')}

/** A hook command as its harness ran it. */
export interface CommandHook {
  /** The shell command, run in the session's folder. */
  command: string
  /** The harness it was written for. */
  harness: string
  /** That harness's name of the event (\`hook_event_name\` on stdin). */
  event: string
  /** The harness's matcher, a regular expression over the whole tool name (or the session's source, the compaction's trigger). */
  matcher?: string
}

/** The command's JSON answer, where it prints one. */
interface Answer {
  decision?: string
  reason?: string
  hookSpecificOutput?: {
    permissionDecision?: string
    permissionDecisionReason?: string
    updatedInput?: Record<string, unknown>
    additionalContext?: string
  }
}

interface Outcome {
  code: number | null
  stdout: string
  stderr: string
  answer: Answer
}

function matches(hook: CommandHook, value: string | undefined): boolean {
  return hook.matcher === undefined || (value !== undefined && new RegExp(\`^(?:\${hook.matcher})$\`).test(value))
}

function toolName(hook: CommandHook, event: { tool: string; builtin: boolean; nativeTool: string }): string {
  return (event.builtin ? BUILTIN_NAMES[hook.harness]?.[event.tool] : undefined) ?? event.nativeTool
}

function parseAnswer(stdout: string): Answer {
  if (!stdout.trimStart().startsWith('{')) return {}
  try {
    return JSON.parse(stdout) as Answer
  } catch {
    return {}
  }
}

/** Starts the command with the event on stdin; \`CLAUDE_PROJECT_DIR\` is the session's folder where the harness sets none. */
function start(hook: CommandHook, input: Record<string, unknown>, ctx: HookContextOf<'preCompact'>): Promise<Outcome> {
  return new Promise((resolve, reject) => {
    const child = spawn(hook.command, { shell: true, cwd: ctx.cwd, signal: ctx.signal, env: { CLAUDE_PROJECT_DIR: ctx.cwd, ...process.env }, stdio: ['pipe', 'pipe', 'pipe'] })
    let stdout = ''
    let stderr = ''
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk))
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk))
    // A command that never reads its stdin closes it early: that is no failure.
    child.stdin.on('error', () => undefined)
    child.on('error', reject)
    child.on('close', (code) => resolve({ code, stdout, stderr, answer: parseAnswer(stdout) }))
    child.stdin.end(JSON.stringify(input))
  })
}

function common(hook: CommandHook, event: { cwd: string; sessionId?: string }): Record<string, unknown> {
  return { session_id: event.sessionId, cwd: event.cwd, hook_event_name: hook.event }
}

/** A beforeTool hook's run: exit code 2 blocks with stderr; \`permissionDecision\` (or \`decision\`) blocks, asks or allows; \`updatedInput\` rewrites. */
export function beforeTool(hook: CommandHook) {
  return async (event: HookEventOf<'beforeTool'>, ctx: BeforeToolContext): Promise<HookReturn<'beforeTool'>> => {
    const tool = toolName(hook, event)
    if (!matches(hook, tool)) return undefined
    const { code, stderr, answer } = await start(hook, { ...common(hook, event), tool_name: tool, tool_input: event.input }, ctx)
    if (code === 2) return ctx.block(stderr.trim() || \`blocked by \${hook.command}\`)
    const own = answer.hookSpecificOutput
    const reason = own?.permissionDecisionReason ?? answer.reason
    if (own?.permissionDecision === 'deny' || answer.decision === 'block') return ctx.block(reason ?? \`blocked by \${hook.command}\`)
    if (own?.permissionDecision === 'ask') return ctx.ask(reason ?? \`\${hook.command} asks first\`)
    if (own?.updatedInput !== undefined) return ctx.rewrite(own.updatedInput)
    if (own?.permissionDecision === 'allow' || answer.decision === 'approve') return ctx.allow(reason)
    return undefined
  }
}

/** An afterTool hook's run: what the command gives the model (stderr with exit code 2, a \`reason\`, \`additionalContext\`) is added as context. */
export function afterTool(hook: CommandHook) {
  return async (event: HookEventOf<'afterTool'>, ctx: ContextHookContext): Promise<HookReturn<'afterTool'>> => {
    const tool = toolName(hook, event)
    if (!matches(hook, tool)) return undefined
    const { code, stderr, answer } = await start(hook, { ...common(hook, event), tool_name: tool, tool_input: event.input, tool_response: event.result.text }, ctx)
    const text = code === 2 ? stderr.trim() : (answer.hookSpecificOutput?.additionalContext ?? (answer.decision === 'block' ? answer.reason : undefined))
    return text ? ctx.addContext(text) : undefined
  }
}

/** What a sessionStart or userPrompt command gives the model: what it prints, or its \`additionalContext\`. */
async function contextOf(hook: CommandHook, input: Record<string, unknown>, ctx: ContextHookContext): Promise<string | undefined> {
  const { code, stdout, answer } = await start(hook, input, ctx)
  if (code !== 0) return undefined
  return (stdout.trimStart().startsWith('{') ? answer.hookSpecificOutput?.additionalContext : stdout.trim()) || undefined
}

export function sessionStart(hook: CommandHook) {
  return async (event: HookEventOf<'sessionStart'>, ctx: ContextHookContext): Promise<HookReturn<'sessionStart'>> => {
    if (!matches(hook, event.source)) return undefined
    const text = await contextOf(hook, { ...common(hook, event), source: event.source }, ctx)
    return text === undefined ? undefined : ctx.addContext(text)
  }
}

/** (A matcher does not apply to prompts; exit code 2, which the harness took to drop the prompt, is passed over: a definition can only add context.) */
export function userPrompt(hook: CommandHook) {
  return async (event: HookEventOf<'userPrompt'>, ctx: ContextHookContext): Promise<HookReturn<'userPrompt'>> => {
    const text = await contextOf(hook, { ...common(hook, event), prompt: event.prompt }, ctx)
    return text === undefined ? undefined : ctx.addContext(text)
  }
}

/** A stop hook's run: exit code 2 (stderr) or \`decision: "block"\` (its \`reason\`) keeps the agent going. */
export function stop(hook: CommandHook) {
  return async (event: HookEventOf<'stop'>, ctx: StopContext): Promise<HookReturn<'stop'>> => {
    const { code, stderr, answer } = await start(hook, { ...common(hook, event), stop_hook_active: event.continued, last_assistant_message: event.lastMessage }, ctx)
    if (code === 2 && stderr.trim()) return ctx.keepGoing(stderr.trim())
    if (answer.decision === 'block' && answer.reason) return ctx.keepGoing(answer.reason)
    return undefined
  }
}

export function preCompact(hook: CommandHook) {
  return async (event: HookEventOf<'preCompact'>, ctx: HookContextOf<'preCompact'>): Promise<HookReturn<'preCompact'>> => {
    if (matches(hook, event.trigger)) await start(hook, { ...common(hook, event), trigger: event.trigger }, ctx)
    return undefined
  }
}
`
}
