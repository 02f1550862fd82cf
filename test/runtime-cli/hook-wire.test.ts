import { describe, expect, it } from 'vitest'
import type { HookEvent } from '../../src/define/hooks.js'
import type { HookSpec } from '../../src/runtime/hook-types.js'
import { readCommandEvent } from '../../src/runtime/hook-wire.js'

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
