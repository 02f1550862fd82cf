import { BUILTIN_TOOLS, type BuiltinTool } from '../define/hooks.js'
import type { Harness } from '../define/types.js'
import type { HookAnswer, HookEventData, HookOutcome, HookSpec, HookWire } from './hook-types.js'

/*
 * The wire formats of command hooks: what each harness writes on a hook's stdin, and the JSON it reads
 * back from its stdout (a decision always goes as JSON with exit code 0: with exit code 2 and the reason
 * on stderr, Claude Code shows the model the hook's command line and the Copilot CLI drops the reason).
 */

export type CommandWire = Extract<HookWire, 'claude' | 'gemini' | 'copilot'>

type Payload = Record<string, unknown>

const str = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined)

function objectOf(value: unknown): Record<string, unknown> {
  if (typeof value === 'string') {
    // Copilot may hand the arguments as JSON text.
    try {
      return objectOf(JSON.parse(value))
    } catch {
      return {}
    }
  }
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {}
}

/**
 * A tool's result as text, from each harness's shape of it: MCP content blocks (Claude Code), a string
 * or `{content}` (Codex), `{llmContent}` holding a string or Gemini API parts (`{text}`, no `type`:
 * Gemini CLI, Qwen Code), `{stdout, stderr}` (Claude's Bash), `{textResultForLlm}` (Copilot).
 */
export function resultText(value: unknown): string {
  if (typeof value === 'string') return value
  if (Array.isArray(value)) return value.map(resultText).filter((text) => text !== '').join('\n')
  if (typeof value !== 'object' || value === null) return value === undefined ? '' : JSON.stringify(value)
  const record = value as Record<string, unknown>
  if ((record.type === 'text' || record.type === undefined) && typeof record.text === 'string') return record.text
  for (const key of ['textResultForLlm', 'llmContent', 'content', 'output']) if (record[key] !== undefined) return resultText(record[key])
  if (typeof record.stdout === 'string' || typeof record.stderr === 'string') return [record.stdout, record.stderr].filter((part) => typeof part === 'string' && part !== '').join('\n')
  return JSON.stringify(value)
}

function resultFailed(value: unknown, payload: Payload): boolean {
  const record = objectOf(value)
  return record.isError === true || record.is_error === true || (record.error !== undefined && record.error !== null) || record.resultType === 'failure' || payload.tool_error !== undefined
}

/**
 * Gemini CLI wraps each text of an MCP tool's (or a web tool's) result in `<untrusted_context>` lines
 * for its model, escaping the closing tag inside (wrapUntrusted, in its bundle); a hook reads the
 * tool's own text, as in the other harnesses.
 */
function geminiToolText(text: string): string {
  return text.replace(/<untrusted_context>\n([\s\S]*?)\n<\/untrusted_context>/g, (_, inner: string) => inner.replaceAll('&lt;/untrusted_context&gt;', '</untrusted_context>'))
}

/**
 * In a headless run, Gemini CLI puts the SessionStart hooks' context before the prompt
 * (`<hook_context>…</hook_context>` and a blank line, `<` and `>` escaped inside) and hands BeforeAgent
 * hooks that text: a hook reads the user's prompt alone.
 */
function geminiPrompt(prompt: string): string {
  return prompt.replace(/^<hook_context>[^<]*<\/hook_context>(?:\n\n|$)/, '')
}

/** `event.tool` for a native name: our tool's name or the portable built-in's, where the spec names it; else the native name. */
export function toolOf(spec: HookSpec, harness: Harness, native: string): Pick<HookEventData, 'tool' | 'builtin' | 'nativeTool'> {
  const named = spec.names[harness]?.[native]
  const tool = named ?? native
  return { tool, builtin: named !== undefined && (BUILTIN_TOOLS as readonly string[]).includes(named as BuiltinTool), nativeTool: native }
}

/** The fields of a command hook's payload, by wire: the tool's name, input and result, the session id. */
const FIELDS: Record<CommandWire, { tool: string; input: string; result: string; session: string; lastMessage: string }> = {
  claude: { tool: 'tool_name', input: 'tool_input', result: 'tool_response', session: 'session_id', lastMessage: 'last_assistant_message' },
  gemini: { tool: 'tool_name', input: 'tool_input', result: 'tool_response', session: 'session_id', lastMessage: 'prompt_response' },
  copilot: { tool: 'toolName', input: 'toolArgs', result: 'toolResult', session: 'sessionId', lastMessage: 'lastAssistantMessage' },
}

/**
 * The event a command hook's payload describes, or undefined when it is none for this hook: Qwen Code
 * fires UserPromptSubmit again before every model turn of a prompt, with an empty prompt.
 */
export function readCommandEvent(wire: CommandWire, harness: Harness, spec: HookSpec, payload: Payload, cwd: string): HookEventData | undefined {
  const fields = FIELDS[wire]
  const data: HookEventData = { kind: spec.on, harness, cwd: str(payload.cwd) ?? cwd }
  const session = str(payload[fields.session])
  if (session !== undefined) data.sessionId = session
  switch (spec.on) {
    case 'beforeTool':
    case 'afterTool': {
      const native = str(payload[fields.tool]) ?? ''
      Object.assign(data, toolOf(spec, harness, native), { input: objectOf(payload[fields.input]) })
      if (spec.on === 'afterTool') {
        const text = resultText(payload[fields.result])
        data.result = { text: wire === 'gemini' ? geminiToolText(text) : text, isError: resultFailed(payload[fields.result], payload) }
      }
      break
    }
    case 'sessionStart':
      if (str(payload.source) !== undefined) data.source = str(payload.source)
      break
    case 'userPrompt': {
      const given = str(payload.prompt) ?? ''
      const prompt = wire === 'gemini' ? geminiPrompt(given) : given
      if (prompt === '') return undefined
      data.prompt = prompt
      break
    }
    case 'stop':
      data.continued = payload.stop_hook_active === true
      if (str(payload[fields.lastMessage]) !== undefined) data.lastMessage = str(payload[fields.lastMessage])
      break
    case 'preCompact':
      if (str(payload.trigger) !== undefined) data.trigger = str(payload.trigger)
      break
  }
  return data
}

/** The JSON a command hook prints for an outcome (undefined: nothing, no opinion), in the harness's wire format; `event`: the event's own name, where the payload does not say. */
export function commandAnswer(wire: CommandWire, payload: Payload, outcome: HookOutcome, event: string | undefined): Record<string, unknown> | undefined {
  const answer = outcome.answer
  // What the user sees of an error the hook passed over (a blocked call carries it to the model instead).
  const message = outcome.error !== undefined && answer?.kind !== 'block' && wire !== 'copilot' ? { systemMessage: outcome.error } : {}
  if (!answer) return Object.keys(message).length > 0 ? message : undefined
  const eventName = str(payload.hook_event_name) ?? event
  const specific = (fields: Record<string, unknown>) => ({ hookSpecificOutput: { ...(eventName !== undefined && { hookEventName: eventName }), ...fields } })
  if (answer.kind === 'keepGoing') return { decision: 'block', reason: answer.reason, ...message }
  if (answer.kind === 'addContext') return wire === 'copilot' ? { additionalContext: answer.text } : { ...specific({ additionalContext: answer.text }), ...message }
  return { ...toolDecision(wire, answer, specific), ...message }
}

function toolDecision(wire: CommandWire, answer: Exclude<HookAnswer, { kind: 'keepGoing' | 'addContext' }>, specific: (fields: Record<string, unknown>) => Record<string, unknown>): Record<string, unknown> {
  const permission = answer.kind === 'block' ? 'deny' : answer.kind === 'rewrite' ? 'allow' : answer.kind
  const reason = 'reason' in answer && answer.reason !== undefined ? answer.reason : undefined
  if (wire === 'gemini') {
    return {
      decision: permission,
      ...(reason !== undefined && { reason }),
      ...(answer.kind === 'rewrite' && specific({ tool_input: answer.input })),
    }
  }
  if (wire === 'copilot') {
    return {
      permissionDecision: permission,
      ...(reason !== undefined && { permissionDecisionReason: reason }),
      ...(answer.kind === 'rewrite' && { modifiedArgs: answer.input }),
    }
  }
  return specific({
    permissionDecision: permission,
    ...(reason !== undefined && { permissionDecisionReason: reason }),
    ...(answer.kind === 'rewrite' && { updatedInput: answer.input }),
  })
}

/*
 * The other side of each wire, for `oac hook` (src/cli/hook.ts), which runs a hook's registered command
 * as the harness would: the payload a harness writes on the hook's stdin (what readCommandEvent reads),
 * and what the harness takes from the hook's exit code and stdout (what commandAnswer writes). Nothing
 * in a hook script imports these.
 */

/** A sample event of a command hook, as `oac hook` makes it: the hook's event, the tool by the harness's own name. */
export type SampleEvent = Pick<HookEventData, 'kind' | 'cwd' | 'sessionId' | 'nativeTool' | 'input' | 'result' | 'prompt' | 'source' | 'continued' | 'lastMessage' | 'trigger'>

/**
 * The payload harness `wire` writes on a hook's stdin for `sample`; `event`: the event's own name in the
 * harness. A tool's result is given in the shape the harness gives one of our MCP tools' (Claude Code's
 * content blocks; Codex and Qwen Code hand a string and Gemini API parts, which resultText reads alike).
 */
export function commandPayload(wire: CommandWire, event: string, sample: SampleEvent): Payload {
  const fields = FIELDS[wire]
  const payload: Payload = { [fields.session]: sample.sessionId, cwd: sample.cwd }
  if (wire !== 'copilot') payload.hook_event_name = event
  if (sample.nativeTool !== undefined) {
    payload[fields.tool] = sample.nativeTool
    // Copilot hands the arguments as JSON text.
    payload[fields.input] = wire === 'copilot' ? JSON.stringify(sample.input ?? {}) : (sample.input ?? {})
  }
  if (sample.result !== undefined) {
    const { text } = sample.result
    payload[fields.result] = wire === 'claude' ? [{ type: 'text', text }] : wire === 'gemini' ? { llmContent: text, returnDisplay: text } : { resultType: 'success', textResultForLlm: text }
  }
  if (sample.prompt !== undefined) payload.prompt = sample.prompt
  if (sample.source !== undefined) payload.source = sample.source
  if (sample.continued !== undefined) payload.stop_hook_active = sample.continued
  if (sample.lastMessage !== undefined) payload[fields.lastMessage] = sample.lastMessage
  if (sample.trigger !== undefined) payload.trigger = sample.trigger
  return payload
}

/** What a harness took from one run of a hook's command: the decision (absent: none), and what it shows the user. */
export interface CommandReading {
  answer?: HookAnswer
  /** A `systemMessage` of the answer, which the harness shows the user. */
  message?: string
  /** Why the harness could take no answer from the run: an exit code it counts as a failure, or stdout that is no JSON object. */
  failure?: string
}

/**
 * What harness `wire` takes from a hook's command that ran for event `on`, the way it reads one (the
 * hooks tier's runs show Claude Code and Gemini CLI acting on these answers: docs/hooks.md): exit code 2
 * blocks a tool call (or keeps the agent going) with stderr as the reason; another non-zero code is an
 * error the harness passes over; with exit code 0, stdout is the answer as JSON, or nothing.
 */
export function readCommandAnswer(wire: CommandWire, on: HookEventData['kind'], run: { code: number | null; stdout: string; stderr: string }): CommandReading {
  if (run.code === 2 && (on === 'beforeTool' || on === 'stop')) return { answer: { kind: on === 'stop' ? 'keepGoing' : 'block', reason: run.stderr.trim() } }
  if (run.code !== 0) return { failure: `it exited with ${run.code === null ? 'a signal' : `code ${run.code}`}, which the harness passes over` }
  if (run.stdout.trim() === '') return {}
  let parsed: unknown
  try {
    parsed = JSON.parse(run.stdout)
  } catch {
    parsed = undefined
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return { failure: `its stdout is no JSON object: ${run.stdout.trim()}` }
  const output = parsed as Payload
  const reading: CommandReading = str(output.systemMessage) === undefined ? {} : { message: str(output.systemMessage) }
  const specific = objectOf(output.hookSpecificOutput)
  const reason = str(wire === 'claude' ? specific.permissionDecisionReason : wire === 'gemini' ? output.reason : output.permissionDecisionReason)
  const decision = wire === 'claude' ? specific.permissionDecision : wire === 'gemini' ? output.decision : output.permissionDecision
  const input = wire === 'claude' ? specific.updatedInput : wire === 'gemini' ? specific.tool_input : output.modifiedArgs
  const context = str(wire === 'copilot' ? output.additionalContext : specific.additionalContext)
  if (on === 'stop') {
    // A stop event's `decision: "block"` (Gemini CLI: "deny" too) keeps the agent going with the reason.
    if (output.decision === 'block' || (wire === 'gemini' && output.decision === 'deny')) reading.answer = { kind: 'keepGoing', reason: str(output.reason) ?? '' }
  } else if (on === 'beforeTool') {
    if (decision === 'deny' || decision === 'block' || output.decision === 'block') reading.answer = { kind: 'block', reason: reason ?? str(output.reason) ?? '' }
    else if (decision === 'ask') reading.answer = { kind: 'ask', reason: reason ?? '' }
    else if (decision === 'allow' && typeof input === 'object' && input !== null && !Array.isArray(input)) reading.answer = { kind: 'rewrite', input: input as Record<string, unknown> }
    else if (decision === 'allow') reading.answer = reason === undefined ? { kind: 'allow' } : { kind: 'allow', reason }
  } else if (context !== undefined) reading.answer = { kind: 'addContext', text: context }
  return reading
}
