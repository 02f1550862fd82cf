import { mkdir, readdir, readFile, rm } from 'node:fs/promises'
import { join, resolve } from 'node:path'
import { pathToFileURL } from 'node:url'
import fc from 'fast-check'
import { parseSync } from 'oxc-parser'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { compile } from '../../src/api.js'
import type { StartedHook } from '../../src/runtime/hook-start.js'
import { hostileString } from '../escape/hostile.js'
import { runNode } from '../bundle/fixture.js'
import { run } from '../util/process.js'
import { repoRoot } from '../util/project.js'
import { tempDir } from '../util/temp.js'

/*
 * The hook scripts of test/fixtures/hooks, built by the real pipeline and run as each harness runs
 * them: a process per event with the harness's payload on stdin (its answer on stdout), or imported
 * into the harness's process by a generated plugin.
 */

const root = resolve(repoRoot, 'test/fixtures/hooks')
let target = ''

beforeAll(async () => {
  target = await tempDir('oac-hooks-')
  await compile({ root, registry: 'registries.ts:all', target })
}, 300_000)
afterAll(() => rm(target, { recursive: true, force: true }))

/** Runs hook `name` as `harness` runs it, on `payload`; its answer parsed (undefined for none). */
async function hook(name: string, harness: string, payload: unknown, env: Record<string, string> = {}) {
  const run = await runNode(target, [`scripts/hooks/${name}.mjs`, '--harness', harness], { stdin: typeof payload === 'string' ? payload : JSON.stringify(payload), env: { COPILOT_CLI: '', ...env } })
  expect(run.code, run.stderr).toBe(0)
  return { answer: run.stdout === '' ? undefined : (JSON.parse(run.stdout) as Record<string, unknown>), stderr: run.stderr }
}

const shell = (command: string) => ({ hook_event_name: 'PreToolUse', session_id: 's1', cwd: target, tool_name: 'Bash', tool_input: { command } })

describe('a beforeTool hook, in each wire format', () => {
  it('blocks as JSON with the reason, whatever the harness calls the tool', async () => {
    const deny = { hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'deny', permissionDecisionReason: 'no rm -rf' } }
    expect((await hook('guard', 'claude', shell('rm -rf build'))).answer).toEqual(deny)
    expect((await hook('guard', 'codex', shell('rm -rf build'))).answer).toEqual(deny)
    expect((await hook('guard', 'qwen', { ...shell('rm -rf build'), tool_name: 'run_shell_command' })).answer).toEqual(deny)
    expect((await hook('guard', 'gemini', { hook_event_name: 'BeforeTool', tool_name: 'run_shell_command', tool_input: { command: 'rm -rf build' } })).answer).toEqual({ decision: 'deny', reason: 'no rm -rf' })
    // Copilot hands the arguments as JSON text, our tool by its server-tool name.
    expect((await hook('guard', 'copilot', { toolName: 'oac-tools-delete_report', toolArgs: '{"name":"prod-q3"}' })).answer).toEqual({ permissionDecision: 'deny', permissionDecisionReason: 'prod-q3 is kept' })
    expect((await hook('guard', 'claude', { ...shell(''), tool_name: 'mcp__oac-tools__delete_report', tool_input: { name: 'prod-q3' } })).answer).toMatchObject({ hookSpecificOutput: { permissionDecisionReason: 'prod-q3 is kept' } })
  })

  it('has no opinion on what it lets pass, or on a tool it does not watch', async () => {
    expect((await hook('guard', 'claude', shell('ls'))).answer).toBeUndefined()
    expect((await hook('guard', 'claude', { ...shell('rm -rf /'), tool_name: 'Read' })).answer).toBeUndefined()
  })

  it("rewrites in each harness's field, and is blocked where the harness cannot apply a new input (Qwen Code)", async () => {
    const count = (tool: string) => ({ hook_event_name: 'PreToolUse', tool_name: tool, tool_input: { text: 'one two three four' } })
    expect((await hook('shaper', 'claude', count('mcp__oac-tools__word_count'))).answer).toEqual({
      hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'allow', updatedInput: { text: 'one two' } },
    })
    expect((await hook('shaper', 'gemini', { ...count('mcp_oac-tools_word_count'), hook_event_name: 'BeforeTool' })).answer).toEqual({
      decision: 'allow',
      hookSpecificOutput: { hookEventName: 'BeforeTool', tool_input: { text: 'one two' } },
    })
    expect((await hook('shaper', 'copilot', { toolName: 'oac-tools-word_count', toolArgs: { text: 'one two three' } })).answer).toEqual({ permissionDecision: 'allow', modifiedArgs: { text: 'one two' } })
    const qwen = (await hook('shaper', 'qwen', count('mcp__oac-tools__word_count'))).answer as { hookSpecificOutput: Record<string, string> }
    expect(qwen.hookSpecificOutput.permissionDecision).toBe('deny')
    expect(qwen.hookSpecificOutput.permissionDecisionReason).toBe('The hook "shaper" decided to rewrite this call, which qwen cannot carry, so the call is blocked instead.')
  })

  it('asks where the harness can, and blocks where it cannot (Codex, Gemini CLI)', async () => {
    const fetch = { hook_event_name: 'PreToolUse', tool_name: 'WebFetch', tool_input: { url: 'https://example.test' } }
    expect((await hook('asker', 'claude', fetch)).answer).toMatchObject({ hookSpecificOutput: { permissionDecision: 'ask', permissionDecisionReason: 'fetch https://example.test?' } })
    expect((await hook('asker', 'gemini', { ...fetch, tool_name: 'web_fetch' })).answer).toMatchObject({ decision: 'deny', reason: expect.stringContaining(': fetch https://example.test?, which gemini cannot carry') })
  })

  it('fails closed: a hook that throws, times out, or returns no decision of its ctx blocks with why; one that allows on error lets the call go', async () => {
    const slow = await hook('slow', 'claude', shell('ls'))
    expect(slow.answer).toMatchObject({ hookSpecificOutput: { permissionDecision: 'deny', permissionDecisionReason: 'The hook "slow" failed: it did not answer within 200 ms' } })
    expect(slow.stderr).toContain('did not answer within 200 ms')
    expect((await hook('liar', 'copilot', { toolName: 'bash', toolArgs: {} })).answer).toMatchObject({ permissionDecision: 'deny', permissionDecisionReason: expect.stringContaining('which is not a decision of its ctx') })
    expect((await hook('guard', 'claude', 'not json')).answer).toMatchObject({ hookSpecificOutput: { permissionDecision: 'deny', permissionDecisionReason: expect.stringContaining('could not read its event from claude') } })
    const lenient = await hook('lenient', 'claude', shell('ls'))
    expect(lenient.answer).toEqual({ systemMessage: 'The hook "lenient" failed: lenient broke' })
  })
})

describe('the other events', () => {
  it('sessionStart adds context, with the variables the config declares', async () => {
    const start = { hook_event_name: 'SessionStart', source: 'startup' }
    expect((await hook('welcome', 'claude', start, { HOOK_FIXTURE_EXTRA: 'Mind the gap.' })).answer).toEqual({
      hookSpecificOutput: { hookEventName: 'SessionStart', additionalContext: 'Working in claude. Mind the gap.' },
    })
    expect((await hook('welcome', 'copilot', { source: 'new' })).answer).toEqual({ additionalContext: 'Working in copilot.' })
  })

  it("afterTool reads the tool's result from each harness's shape of it", async () => {
    const result = (harness: string, field: string, value: unknown) => hook('after', harness, { hook_event_name: 'PostToolUse', tool_name: 'x', [field]: value })
    const context = (answer: unknown) => (answer as { hookSpecificOutput?: { additionalContext: string }; additionalContext?: string })
    // The tool name is not ours here: a hook of `tools` sees only those, so these runs name ours.
    const ours = { claude: 'mcp__oac-tools__word_count', codex: 'mcp__oac_tools__word_count', gemini: 'mcp_oac-tools_word_count', copilot: 'oac-tools-word_count' }
    const claude = await hook('after', 'claude', { hook_event_name: 'PostToolUse', tool_name: ours.claude, tool_response: [{ type: 'text', text: '4 words' }] })
    const codex = await hook('after', 'codex', { hook_event_name: 'PostToolUse', tool_name: ours.codex, tool_response: '4 words' })
    const gemini = await hook('after', 'gemini', { hook_event_name: 'AfterTool', tool_name: ours.gemini, tool_response: { llmContent: '4 words', returnDisplay: '4 words' } })
    const copilot = await hook('after', 'copilot', { toolName: ours.copilot, toolResult: { resultType: 'success', textResultForLlm: '4 words' } })
    for (const run of [claude, codex, gemini]) expect(context(run.answer).hookSpecificOutput?.additionalContext).toBe('counted: 4 words')
    expect(context(copilot.answer).additionalContext).toBe('counted: 4 words')
    expect((await result('claude', 'tool_response', 'x')).answer).toBeUndefined()
  })

  it('stop keeps going once, and not when the harness says it already did', async () => {
    expect((await hook('keeper', 'claude', { hook_event_name: 'Stop', stop_hook_active: false })).answer).toEqual({ decision: 'block', reason: 'one more check, please' })
    expect((await hook('keeper', 'gemini', { hook_event_name: 'AfterAgent', stop_hook_active: true })).answer).toBeUndefined()
  })

  it('a userPrompt hook that throws lets the prompt go and tells the user; Qwen Code\'s empty prompt of a later turn runs no hook', async () => {
    const broke = await hook('thrower', 'claude', { hook_event_name: 'UserPromptSubmit', prompt: 'hi' })
    expect(broke.answer).toEqual({ systemMessage: 'The hook "thrower" failed: prompt hook broke' })
    expect(await hook('thrower', 'qwen', { hook_event_name: 'UserPromptSubmit', prompt: '' })).toEqual({ answer: undefined, stderr: '' })
  })
})

describe('the command line', () => {
  it("stands aside in Copilot, which runs .claude/settings.json's hooks too (it has its own registration)", async () => {
    expect((await hook('guard', 'claude', shell('rm -rf x'), { COPILOT_CLI: '1' })).answer).toBeUndefined()
  })

  it('refuses to run without a harness it was compiled for', async () => {
    const run = await runNode(target, ['scripts/hooks/guard.mjs'], { stdin: '{}' })
    expect(run.code).toBe(2)
    expect(run.stderr).toContain('with one of: claude, codex, gemini, copilot, qwen.')
  })

  it("Codex's command finds the script from a subfolder, where Codex runs it (the session's folder), and blocks where there is none", async () => {
    const settings = JSON.parse(await readFile(join(target, '.codex/hooks.json'), 'utf8')) as { hooks: Record<string, Array<{ matcher?: string; hooks: Array<{ command: string }> }>> }
    const command = settings.hooks.PreToolUse!.find((group) => group.hooks[0]!.command.includes('scripts/hooks/guard.mjs'))!.hooks[0]!.command
    const sub = join(target, 'src/deep')
    await mkdir(sub, { recursive: true })
    const blocked = await run('sh', ['-c', command], { cwd: sub, stdin: JSON.stringify(shell('rm -rf /')) })
    expect(JSON.parse(blocked.stdout)).toMatchObject({ hookSpecificOutput: { permissionDecision: 'deny', permissionDecisionReason: 'no rm -rf' } })
    // Outside any built tree: exit code 2, which Codex takes for a block, with why.
    const elsewhere = await tempDir('oac-no-tree-')
    const missing = await run('sh', ['-c', command], { cwd: elsewhere, stdin: '{}' })
    expect(missing.code).toBe(2)
    expect(missing.stderr).toContain('scripts/hooks/guard.mjs not found in')
    await rm(elsewhere, { recursive: true })
  })

  it('carries any text of a reason to the harness exactly', async () => {
    for (const text of fc.sample(hostileString.filter((value) => value.trim() !== ''), { numRuns: 12, seed: 26 })) {
      const tool = { hook_event_name: 'PreToolUse', tool_name: 'mcp__oac-tools__word_count', tool_input: { text } }
      expect((await hook('echo', 'claude', tool)).answer).toMatchObject({ hookSpecificOutput: { permissionDecisionReason: text } })
      expect((await hook('echo', 'copilot', { toolName: 'oac-tools-word_count', toolArgs: { text } })).answer).toMatchObject({ permissionDecisionReason: text })
    }
  })
})

describe('what a hook script loads', () => {
  /** The specifiers a module imports, statically and with `import()` (the text between the parentheses). */
  async function importsOf(path: string) {
    const text = await readFile(join(target, path), 'utf8')
    const { module, errors } = parseSync(path, text)
    expect(errors).toEqual([])
    return { static: module.staticImports.map((entry) => entry.moduleRequest.value), dynamic: module.dynamicImports.map((entry) => text.slice(entry.moduleRequest.start, entry.moduleRequest.end)) }
  }

  it('two modules: the script, which carries the runtime, and its code file, which imports nothing (unplugin-oac\'s functions it calls are in it)', async () => {
    const scripts = (await readdir(join(target, 'scripts/hooks'))).filter((file) => file.endsWith('.mjs') && !file.endsWith('.code.mjs'))
    expect(scripts).toHaveLength(13)
    for (const script of scripts) {
      const name = script.slice(0, -'.mjs'.length)
      expect(await importsOf(`scripts/hooks/${script}`), script).toEqual({ static: [], dynamic: [`"./${name}.code.mjs"`] })
      expect(await importsOf(`scripts/hooks/${name}.code.mjs`), name).toEqual({ static: [], dynamic: [] })
    }
    // Nor is a runtime of the hooks among the vendor files.
    const own = (await readdir(join(target, 'scripts/vendor'))).find((folder) => folder.startsWith('unplugin-oac@'))!
    expect((await readdir(join(target, 'scripts/vendor', own))).filter((file) => file.includes('hook'))).toEqual([])
  })
})

describe('imported, in the harness process (the generated plugins)', () => {
  const started = async (name: string) => (await import(pathToFileURL(join(target, 'scripts/hooks', `${name}.mjs`)).href)).started as Promise<StartedHook>

  it('takes the tool by the harness\'s own name, and applies the harness\'s fallbacks', async () => {
    const guard = await started('guard')
    expect(await guard.handle({ kind: 'beforeTool', harness: 'opencode', cwd: target, nativeTool: 'bash', input: { command: 'rm -rf x' } })).toEqual({ answer: { kind: 'block', reason: 'no rm -rf' } })
    expect(await guard.handle({ kind: 'beforeTool', harness: 'pi', cwd: target, nativeTool: 'read', input: { path: 'x' } })).toEqual({})
    const asker = await started('asker')
    expect((await asker.handle({ kind: 'beforeTool', harness: 'kilo', cwd: target, nativeTool: 'webfetch', input: { url: 'u' } })).answer).toMatchObject({ kind: 'block' })
    expect((await asker.handle({ kind: 'beforeTool', harness: 'omp', cwd: target, nativeTool: 'fetch', input: { url: 'u' } })).answer).toBeUndefined()
  })
})
