import { describe, expect, it } from 'vitest'
import type { HookEvent } from '../../src/define/hooks.js'
import type { HookAnswer, HookSpec } from '../../src/runtime/hook-types.js'
import { type CommandWire, commandAnswer, commandPayload, readCommandAnswer, readCommandEvent, type SampleEvent } from '../../src/runtime/hook-wire.js'

/*
 * What a command hook reads from each harness's payload. The payloads are the CLIs' own, as the hooks
 * tier's runs logged them (test/harness/hooks.test.ts; trimmed to the fields read here).
 */

function spec(on: HookEvent): HookSpec {
  return {
    name: 'probe',
    on,
    onError: 'block',
    timeoutMs: 1000,
    env: [],
    names: { gemini: { 'mcp_oac-tools_count_words': 'count_words' }, qwen: { 'mcp__oac-tools__count_words': 'count_words' } },
    fallbacks: {},
    wires: { gemini: 'gemini', qwen: 'claude' },
    events: { gemini: on === 'afterTool' ? 'AfterTool' : 'BeforeAgent', qwen: on === 'afterTool' ? 'PostToolUse' : 'UserPromptSubmit' },
  }
}

describe('an afterTool hook reads the tool result as text', () => {
  it("from Qwen Code's llmContent parts (Gemini API parts have no `type`)", () => {
    const payload = {
      hook_event_name: 'PostToolUse',
      tool_name: 'mcp__oac-tools__count_words',
      tool_input: { text: 'one two three' },
      tool_response: { llmContent: [{ text: '3 words' }], returnDisplay: '3 words' },
    }
    const event = readCommandEvent('claude', 'qwen', spec('afterTool'), payload, '/project')
    expect(event).toMatchObject({ tool: 'count_words', input: { text: 'one two three' }, result: { text: '3 words', isError: false } })
  })

  it("from Gemini CLI's, without the <untrusted_context> lines it wraps each text in for its model", () => {
    const payload = {
      hook_event_name: 'AfterTool',
      tool_name: 'mcp_oac-tools_count_words',
      tool_input: { text: 'one two three' },
      tool_response: { llmContent: [{ text: '<untrusted_context>\n3 words\n</untrusted_context>' }], returnDisplay: '3 words' },
    }
    expect(readCommandEvent('gemini', 'gemini', spec('afterTool'), payload, '/project')?.result).toEqual({ text: '3 words', isError: false })
    // A text holding the closing tag comes escaped inside the wrapper; the hook reads it as the tool wrote it.
    const tricky = { ...payload, tool_response: { llmContent: '<untrusted_context>\nsay &lt;/untrusted_context&gt; then\nmore\n</untrusted_context>' } }
    expect(readCommandEvent('gemini', 'gemini', spec('afterTool'), tricky, '/project')?.result?.text).toBe('say </untrusted_context> then\nmore')
  })
})

describe('a userPrompt hook reads the prompt', () => {
  it("without the SessionStart context Gemini CLI puts before it in a headless run", () => {
    const payload = { hook_event_name: 'BeforeAgent', prompt: '<hook_context>HOOK-SESSION gemini &lt;context&gt;</hook_context>\n\nGo.' }
    expect(readCommandEvent('gemini', 'gemini', spec('userPrompt'), payload, '/project')?.prompt).toBe('Go.')
    // A prompt with no such context, or context elsewhere in it, is the user's as given.
    expect(readCommandEvent('gemini', 'gemini', spec('userPrompt'), { prompt: 'Go. <hook_context>x</hook_context>' }, '/project')?.prompt).toBe('Go. <hook_context>x</hook_context>')
  })

  it('and not the empty prompts Qwen Code fires UserPromptSubmit with before each later turn', () => {
    expect(readCommandEvent('claude', 'qwen', spec('userPrompt'), { hook_event_name: 'UserPromptSubmit', prompt: 'Go.' }, '/project')?.prompt).toBe('Go.')
    expect(readCommandEvent('claude', 'qwen', spec('userPrompt'), { hook_event_name: 'UserPromptSubmit', prompt: '' }, '/project')).toBeUndefined()
  })
})

/*
 * The other side of each wire, as `oac hook` speaks it: the payload a harness writes, and what it takes
 * from the hook's answer.
 */

const WIRES: CommandWire[] = ['claude', 'gemini', 'copilot']
const EVENT_NAMES: Record<CommandWire, Record<HookEvent, string>> = {
  claude: { beforeTool: 'PreToolUse', afterTool: 'PostToolUse', sessionStart: 'SessionStart', userPrompt: 'UserPromptSubmit', stop: 'Stop', preCompact: 'PreCompact' },
  gemini: { beforeTool: 'BeforeTool', afterTool: 'AfterTool', sessionStart: 'SessionStart', userPrompt: 'BeforeAgent', stop: 'AfterAgent', preCompact: 'PreCompress' },
  copilot: { beforeTool: 'preToolUse', afterTool: 'postToolUse', sessionStart: 'sessionStart', userPrompt: 'userPromptSubmitted', stop: 'agentStop', preCompact: 'preCompact' },
}

describe('a sample payload', () => {
  const samples: SampleEvent[] = [
    { kind: 'beforeTool', cwd: '/p', sessionId: 's', nativeTool: 'count', input: { text: 'a "b"' } },
    { kind: 'afterTool', cwd: '/p', sessionId: 's', nativeTool: 'count', input: { text: 'a' }, result: { text: '1 word', isError: false } },
    { kind: 'sessionStart', cwd: '/p', sessionId: 's', source: 'startup' },
    { kind: 'userPrompt', cwd: '/p', sessionId: 's', prompt: 'Go.' },
    { kind: 'stop', cwd: '/p', sessionId: 's', continued: true, lastMessage: 'done' },
    { kind: 'preCompact', cwd: '/p', sessionId: 's', trigger: 'manual' },
  ]

  it('is read back by the hook as the event it describes, in every wire', () => {
    for (const wire of WIRES) {
      for (const sample of samples) {
        const hookSpec = { ...spec(sample.kind), names: {}, wires: {}, events: {} }
        const { kind, nativeTool, ...rest } = sample
        expect(readCommandEvent(wire, 'claude', hookSpec, commandPayload(wire, EVENT_NAMES[wire][kind], sample), '/elsewhere'), `${wire} ${kind}`).toEqual({
          kind,
          harness: 'claude',
          ...rest,
          ...(nativeTool !== undefined && { tool: nativeTool, builtin: false, nativeTool }),
        })
      }
    }
  })

  it("names the event as the harness does, and hands Copilot's arguments as JSON text", () => {
    expect(commandPayload('claude', 'PreToolUse', samples[0]!)).toEqual({ hook_event_name: 'PreToolUse', session_id: 's', cwd: '/p', tool_name: 'count', tool_input: { text: 'a "b"' } })
    expect(commandPayload('copilot', 'preToolUse', samples[0]!)).toEqual({ sessionId: 's', cwd: '/p', toolName: 'count', toolArgs: '{"text":"a \\"b\\""}' })
  })
})

describe('what a harness takes from an answer', () => {
  const ok = (answer: Record<string, unknown> | undefined) => ({ code: 0, stdout: answer === undefined ? '' : `${JSON.stringify(answer)}\n`, stderr: '' })

  it('is the decision the runtime wrote, in every wire, for each decision of each event', () => {
    const cases: Array<[HookEvent, HookAnswer]> = [
      ['beforeTool', { kind: 'block', reason: 'no' }],
      ['beforeTool', { kind: 'ask', reason: 'sure?' }],
      ['beforeTool', { kind: 'allow', reason: 'fine' }],
      ['beforeTool', { kind: 'allow' }],
      ['beforeTool', { kind: 'rewrite', input: { text: 'x' } }],
      ['afterTool', { kind: 'addContext', text: 'c' }],
      ['sessionStart', { kind: 'addContext', text: 'c' }],
      ['userPrompt', { kind: 'addContext', text: 'c' }],
      ['stop', { kind: 'keepGoing', reason: 'more' }],
    ]
    for (const wire of WIRES) {
      for (const [on, answer] of cases) {
        const written = commandAnswer(wire, { hook_event_name: EVENT_NAMES[wire][on] }, { answer }, EVENT_NAMES[wire][on])
        expect(readCommandAnswer(wire, on, ok(written)), `${wire} ${on} ${answer.kind}`).toEqual({ answer })
      }
      expect(readCommandAnswer(wire, 'beforeTool', ok(undefined))).toEqual({})
    }
    // An error the hook passed over: no decision, and the message the user is shown (where the wire has one).
    const passed = commandAnswer('claude', {}, { error: 'E' }, 'UserPromptSubmit')
    expect(readCommandAnswer('claude', 'userPrompt', ok(passed))).toEqual({ message: 'E' })
  })

  it('agrees with what the real Claude Code and Gemini CLI did with these answers (the hooks tier: test/harness/hooks.test.ts, docs/hooks.md)', () => {
    // (a) Claude Code showed its model `PreToolUse:<tool> hook error: R` and did not run the tool; Gemini CLI `Tool execution blocked: R`.
    expect(readCommandAnswer('claude', 'beforeTool', ok({ hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'deny', permissionDecisionReason: 'R' } })).answer).toEqual({ kind: 'block', reason: 'R' })
    expect(readCommandAnswer('gemini', 'beforeTool', ok({ decision: 'deny', reason: 'R' })).answer).toEqual({ kind: 'block', reason: 'R' })
    // (b) Both ran the tool with the hook's input: the result was `[HOOK-STAMP-<id>] hello`.
    expect(readCommandAnswer('claude', 'beforeTool', ok({ hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'allow', updatedInput: { text: 'hello', stamp: 'S' } } })).answer).toEqual({
      kind: 'rewrite',
      input: { text: 'hello', stamp: 'S' },
    })
    expect(readCommandAnswer('gemini', 'beforeTool', ok({ decision: 'allow', hookSpecificOutput: { hookEventName: 'BeforeTool', tool_input: { text: 'hello', stamp: 'S' } } })).answer).toMatchObject({ kind: 'rewrite' })
    // Claude Code carried `ask` (refused in -p, with the reason alone).
    expect(readCommandAnswer('claude', 'beforeTool', ok({ hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'ask', permissionDecisionReason: 'R' } })).answer).toEqual({ kind: 'ask', reason: 'R' })
    // (d), (e): the context reached the model; stop: the reason came back as a new user turn.
    expect(readCommandAnswer('claude', 'sessionStart', ok({ hookSpecificOutput: { hookEventName: 'SessionStart', additionalContext: 'C' } })).answer).toEqual({ kind: 'addContext', text: 'C' })
    expect(readCommandAnswer('gemini', 'afterTool', ok({ hookSpecificOutput: { hookEventName: 'AfterTool', additionalContext: 'C' } })).answer).toEqual({ kind: 'addContext', text: 'C' })
    expect(readCommandAnswer('claude', 'stop', ok({ decision: 'block', reason: 'R' })).answer).toEqual({ kind: 'keepGoing', reason: 'R' })
    expect(readCommandAnswer('gemini', 'stop', ok({ decision: 'block', reason: 'R' })).answer).toEqual({ kind: 'keepGoing', reason: 'R' })
  })

  it('blocks on exit code 2 with stderr as the reason, passes over another failure, and says when stdout is no answer', () => {
    expect(readCommandAnswer('copilot', 'beforeTool', { code: 2, stdout: '', stderr: 'The hook "g" could not be loaded: x\n' })).toEqual({ answer: { kind: 'block', reason: 'The hook "g" could not be loaded: x' } })
    expect(readCommandAnswer('claude', 'sessionStart', { code: 1, stdout: '', stderr: 'boom' })).toEqual({ failure: 'it exited with code 1, which the harness passes over' })
    expect(readCommandAnswer('gemini', 'afterTool', { code: 0, stdout: 'hello\n', stderr: '' })).toEqual({ failure: 'its stdout is no JSON object: hello' })
  })
})
