import { type AnyHookDefinition, EVENT_DECISIONS, type HookDecisionKind } from '../define/hooks.js'
import { describeValue } from './describe.js'
import type { HookAnswer, HookEventData, HookOutcome, HookSpec } from './hook-types.js'
import { toolOf } from './hook-wire.js'

/** Finds the hook named `name` among the exports of its module (the code file), or says how to export it. */
export function pickHook(namespace: object, name: string, file: string): AnyHookDefinition {
  const hooks = Object.values(namespace).filter(isHookDefinition)
  const hook = hooks.find((candidate) => candidate.name === name)
  if (hook) return hook
  const exported = hooks.length > 0 ? ` It exports ${hooks.map((h) => JSON.stringify(h.name)).join(', ')}.` : ''
  throw new Error(
    `${file} does not export the hook ${JSON.stringify(name)}.${exported} ` +
      `Export the definition from the module where defineHook is called, ` +
      `e.g. \`export const myHook = defineHook({ name: ${JSON.stringify(name)}, ... })\`.`,
  )
}

function isHookDefinition(value: unknown): value is AnyHookDefinition {
  return typeof value === 'object' && value !== null && (value as { kind?: unknown }).kind === 'oac:hook' && typeof (value as { run?: unknown }).run === 'function'
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && Object.getPrototypeOf(value) === Object.prototype
}

/** The decision a ctx method makes from what it was given; throws (with the rest of a sentence) on what no harness can carry. */
function answerOf(kind: HookDecisionKind, argument: unknown): HookAnswer {
  switch (kind) {
    case 'block':
    case 'ask':
    case 'keepGoing':
      if (typeof argument !== 'string' || argument.trim() === '') throw new Error(`ctx.${kind}() needs a reason the model can read, got ${describeValue(argument)}`)
      return { kind, reason: argument }
    case 'allow':
      if (argument !== undefined && typeof argument !== 'string') throw new Error(`ctx.allow() takes an optional reason, got ${describeValue(argument)}`)
      return argument === undefined ? { kind } : { kind, reason: argument }
    case 'addContext':
      if (typeof argument !== 'string') throw new Error(`ctx.addContext() needs the text, got ${describeValue(argument)}`)
      return { kind, text: argument }
    case 'rewrite':
      if (!isPlainObject(argument)) throw new Error(`ctx.rewrite() needs the whole new input as an object, got ${describeValue(argument)}`)
      return { kind, input: JSON.parse(JSON.stringify(argument)) as Record<string, unknown> }
  }
}

/** The event as `run` sees it: only the fields this kind has. */
function eventFor(data: HookEventData): Record<string, unknown> {
  return Object.fromEntries(Object.entries(data).filter(([, value]) => value !== undefined))
}

/**
 * One run of a hook, whoever calls it (the hook script's command line, a generated plugin in the
 * harness's process), on an event of a tool it watches or of no tool: its `run` with the event and a
 * ctx, bounded by its timeout. A hook that throws,
 * returns something that is no decision of its ctx, or runs past its timeout does the same thing in
 * every harness: a beforeTool hook blocks the call with the error (unless it says `onError: 'allow'`),
 * any other goes on; the error is in the outcome, for the user. Then the harness's fallbacks: a decision
 * it cannot carry becomes a block, or no opinion.
 */
export async function runHook(hook: AnyHookDefinition, spec: HookSpec, event: HookEventData, env: Readonly<Record<string, string | undefined>>): Promise<HookOutcome> {
  // An in-process plugin hands the tool by the harness's name: the spec knows ours.
  const data = event.tool === undefined && event.nativeTool !== undefined ? { ...event, ...toolOf(spec, event.harness, event.nativeTool) } : event
  // A hook of `tools` runs on those alone, known by the names its spec gives the harness's (a tool of the harness's
  // that happens to be called like a portable name, unmapped, is not that built-in).
  if (spec.watch && data.nativeTool !== undefined) {
    const named = spec.names[data.harness]?.[data.nativeTool]
    if (named === undefined || !spec.watch.includes(named)) return {}
  }
  const outcome = await decide(hook, spec, data, env)
  return withFallback(outcome, spec, data)
}

async function decide(hook: AnyHookDefinition, spec: HookSpec, data: HookEventData, env: Readonly<Record<string, string | undefined>>): Promise<HookOutcome> {
  const controller = new AbortController()
  // A decision is what this call's ctx made, known by identity: a look-alike object the hook returns is not one.
  const made = new WeakMap<object, HookAnswer>()
  const ctx: Record<string, unknown> = { cwd: data.cwd, env, signal: controller.signal }
  for (const kind of EVENT_DECISIONS[data.kind]) {
    ctx[kind] = (argument: unknown) => {
      const token = Object.freeze({ decision: kind })
      made.set(token, answerOf(kind, argument))
      return token
    }
  }
  const failed = (message: string) => failedOutcome(spec, `The hook "${spec.name}" failed: ${message}`)
  let timer: ReturnType<typeof setTimeout> | undefined
  // A timer that holds the process: a hook script whose `run` waits on nothing would otherwise end with no answer,
  // which a harness takes for no objection.
  const timedOut = new Promise<'timeout'>((resolve) => {
    timer = setTimeout(() => resolve('timeout'), spec.timeoutMs)
  })
  const run = hook.run as (event: unknown, ctx: unknown) => unknown
  try {
    const returned = await Promise.race([Promise.resolve().then(() => run(eventFor(data), ctx)), timedOut])
    if (returned === 'timeout') {
      controller.abort(new Error(`timed out after ${spec.timeoutMs} ms`))
      return failed(`it did not answer within ${spec.timeoutMs} ms`)
    }
    if (returned === undefined) return {}
    const answer = typeof returned === 'object' && returned !== null ? made.get(returned) : undefined
    if (!answer) return failed(`it returned ${describeValue(returned)}, which is not a decision of its ctx (return ctx.${EVENT_DECISIONS[data.kind][0] ?? 'nothing'}(...), or nothing)`)
    return { answer }
  } catch (error) {
    return failed(error instanceof Error ? error.message : String(error))
  } finally {
    clearTimeout(timer)
  }
}

/** What a hook's failure comes to: a beforeTool hook blocks the call with the error (fail closed) unless it allows on error; any other goes on. */
export function failedOutcome(spec: Pick<HookSpec, 'on' | 'onError'>, error: string): HookOutcome {
  return spec.on === 'beforeTool' && spec.onError === 'block' ? { answer: { kind: 'block', reason: error }, error } : { error }
}

/** A decision the harness cannot carry, as it does instead (see each harness's description). */
function withFallback(outcome: HookOutcome, spec: HookSpec, data: HookEventData): HookOutcome {
  const answer = outcome.answer
  const fallback = answer ? spec.fallbacks[data.harness]?.[answer.kind] : undefined
  if (!answer || !fallback) return outcome
  if (fallback === 'ignore') return { ...(outcome.error !== undefined && { error: outcome.error }) }
  const said = 'reason' in answer && answer.reason ? `: ${answer.reason}` : ''
  return { ...outcome, answer: { kind: 'block', reason: `The hook "${spec.name}" decided to ${answer.kind} this call${said}, which ${data.harness} cannot carry, so the call is blocked instead.` } }
}
