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
