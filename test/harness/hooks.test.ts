import { createHash } from 'node:crypto'
import { existsSync } from 'node:fs'
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises'
import { join, resolve } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { harness } from '../../src/compile/harnesses/index.js'
import type { Plan } from '../../src/compile/plan.js'
import { main as oac } from '../../src/cli.js'
import { type Harness, HARNESSES } from '../../src/define/types.js'
import { isolatedHome } from './cache.js'
import { converse } from './conversation.js'
import { DRIVERS, type HarnessDriver, toolCall } from './drivers.js'
import { type CompiledProject, compiledProject } from './project.js'
import type { ScriptedModel, SeenRequest, ToolResult, Turn } from './scripted-model.js'

/*
 * Proof of hooks (issue 26) through each real harness CLI against the scripted model (scripted-model.ts;
 * each CLI driven as drivers.ts says), with the hooks of test/harness/fixtures/hooks: compiled for all
 * ten harnesses into a project of its own per CLI, then one headless run in which the main agent
 * - calls delete_report on reports/prod-q3.md: `guard` blocks it (a), and on reports/draft.md: it runs;
 * - calls delete_report on reports/ask-me.md: `guard` asks, which no headless run can (each harness's way);
 * - runs `rm -rf victim` in the harness's own shell tool: `guard` blocks it on the portable `shell` (c);
 *   then `ls`: it runs;
 * - calls stamp: `restamp` rewrites its `stamp` field and keeps `text` (b; Qwen Code: blocked instead);
 * - calls count_words: `after-count` adds context quoting the result it read (e);
 * - answers `done`: `once-more` keeps it going with an instruction where the harness can; the model
 *   answers `done again`.
 * `session-context` adds context at the session's start (d), `prompt-context` to the prompt; what each
 * model request held is asserted below, and docs/hooks.md tells it per event and harness.
 *   npx vitest run --config vitest.harness.config.ts test/harness/hooks.test.ts
 */

const fixture = resolve(import.meta.dirname, 'fixtures/hooks')

/** Where a text sits in a model request: the system prompt, a developer message, a user message, or a tool result. */
type Place = 'system' | 'developer' | 'user' | 'tool-result'

/** What each CLI did in the runs, as the assertions below hold it to. */
interface Observed {
  /** The shell tool its model calls, that tool's input for a command, and the command's output in the tool's result where the result wraps it. */
  shell: { name: string; input: (command: string) => Record<string, unknown>; output?: (result: string) => string }
  /**
   * The text the model reads for a call a beforeTool hook blocked with `reason`: `tool` is the name the
   * harness's hooks see for the call (its description's), `command` the shell command.
   */
  blocked: (reason: string, call: { tool: string; command?: string }) => string
  /** The text the model reads for a call a hook decided to ask about, where the harness carries `ask` (a headless run has no one to ask). */
  asked?: (reason: string) => string
  /** Where each context reaches the model; `undefined` where the harness has no such event (compile warns `hook-unsupported`). */
  session?: Place
  prompt?: Place
  afterTool: Place
  /** Where the stop hook's instruction reaches the model, or `undefined` where its description says keepGoing is passed over. */
  keepGoing?: Place
  /** Gemini CLI fires its PreCompress before every model request, compressing or not; the others fired none in these short runs. */
  preCompactEveryRequest?: true
}

const OBSERVED: Record<Harness, Observed> = {
  claude: {
    shell: { name: 'Bash', input: (command) => ({ command, description: 'step' }) },
    blocked: (reason, { tool }) => `PreToolUse:${tool} hook error: ${reason}`,
    // `ask` in `-p`: refused with the reason alone.
    asked: (reason) => reason,
    session: 'user',
    prompt: 'user',
    afterTool: 'tool-result',
    keepGoing: 'user',
  },
  codex: {
    shell: { name: 'exec_command', input: (cmd) => ({ cmd }) },
    blocked: (reason, { tool, command }) => (command === undefined ? `Tool call blocked by PreToolUse hook: ${reason}. Tool: ${tool}` : `Command blocked by PreToolUse hook: ${reason}. Command: ${command}`),
    session: 'developer',
    prompt: 'developer',
    afterTool: 'developer',
    keepGoing: 'user',
  },
  gemini: {
    shell: { name: 'run_shell_command', input: (command) => ({ command, description: 'step' }) },
    blocked: (reason) => `Tool execution blocked: ${reason}`,
    session: 'user',
    prompt: 'user',
    afterTool: 'tool-result',
    keepGoing: 'user',
    preCompactEveryRequest: true,
  },
  qwen: {
    shell: { name: 'run_shell_command', input: (command) => ({ command, description: 'step', is_background: false }) },
    blocked: (reason) => reason,
    asked: (reason) => reason,
    session: 'system',
    prompt: 'user',
    afterTool: 'tool-result',
    keepGoing: 'user',
  },
  copilot: {
    shell: { name: 'bash', input: (command) => ({ command, description: 'step' }) },
    blocked: (reason) => `Denied by preToolUse hook: ${reason}`,
    asked: (reason) => `Denied by preToolUse hook (unable to ask user for confirmation): ${reason}`,
    session: 'user',
    prompt: 'user',
    afterTool: 'tool-result',
    keepGoing: 'user',
  },
  opencode: {
    shell: { name: 'bash', input: (command) => ({ command, description: 'step' }) },
    blocked: (reason) => reason,
    session: 'system',
    prompt: 'user',
    afterTool: 'tool-result',
  },
  kilo: {
    shell: { name: 'bash', input: (command) => ({ command, description: 'step' }) },
    blocked: (reason) => reason,
    session: 'system',
    prompt: 'user',
    afterTool: 'tool-result',
  },
  pi: {
    shell: { name: 'bash', input: (command) => ({ command }) },
    blocked: (reason) => reason,
    // The extension asks through the UI, and `-p` has none: blocked with the reason.
    asked: (reason) => reason,
    session: 'user',
    prompt: 'user',
    afterTool: 'tool-result',
  },
  omp: {
    shell: { name: 'bash', input: (command) => ({ command, i: 'step' }) },
    blocked: (reason) => reason,
    asked: (reason) => reason,
    session: 'user',
    prompt: 'user',
    afterTool: 'tool-result',
    keepGoing: 'user',
  },
  // Its plugin hooks have beforeTool and afterTool only (docs/cline.md): no session, prompt, stop or compaction hook runs.
  cline: {
    // Its result is `[{ query, result, success }]`, one entry per command.
    shell: { name: 'run_commands', input: (command) => ({ commands: [command] }), output: (result) => (JSON.parse(result) as Array<{ result: string }>).map((entry) => entry.result).join('') },
    // The reason of `{ skip: true, reason }`, as Cline hands the model a tool's error.
    blocked: (reason) => JSON.stringify({ error: reason }),
    // `appendContext`: a user message after the tool results.
    afterTool: 'user',
  },
}

/** The places in a request whose text holds `marker` (escaped as JSON text, as the body holds it), each once, in the order the request has them. */
function placesOf(request: SeenRequest, marker: string): Place[] {
  const body = request.body as Record<string, unknown>
  const found: Place[] = []
  const escaped = JSON.stringify(marker).slice(1, -1)
  const add = (place: Place, value: unknown) => {
    if (value !== undefined && JSON.stringify(value).includes(escaped) && !found.includes(place)) found.push(place)
  }
  const list = (value: unknown) => (Array.isArray(value) ? (value as Array<Record<string, unknown>>) : [])
  const role = (value: unknown): Place => (value === 'system' || value === 'developer' ? value : 'user')
  if (request.api === 'anthropic') {
    add('system', body.system)
    for (const message of list(body.messages)) {
      const blocks = typeof message.content === 'string' ? [{ type: 'text', text: message.content }] : list(message.content)
      for (const block of blocks) add(block.type === 'tool_result' ? 'tool-result' : role(message.role), block)
    }
  } else if (request.api === 'chat') {
    for (const message of list(body.messages)) add(message.role === 'tool' ? 'tool-result' : role(message.role), message.content)
  } else if (request.api === 'responses') {
    add('system', body.instructions)
    for (const item of list(body.input)) add(item.type === 'function_call_output' ? 'tool-result' : role(item.role), item.type === 'function_call_output' ? item.output : item.content)
  } else {
    add('system', body.systemInstruction)
    for (const content of list(body.contents)) for (const part of list(content.parts)) add(part.functionResponse ? 'tool-result' : role(content.role), part)
  }
  return found
}

/** How often `text` occurs in a request's body (as JSON text: a quote inside is escaped there). */
function occurrences(request: SeenRequest, text: string): number {
  return JSON.stringify(request.body).split(JSON.stringify(text).slice(1, -1)).length - 1
}

/**
 * What a user does once per hook in Codex's /hooks ("Trust"), for a headless run: per handler of the
 * project's `.codex/hooks.json`, a `hooks.state` entry keyed `<file>:<event>:<group>:<handler>` holding the
 * sha256 of the handler's identity (its event, its group's matcher, the handler with Codex's defaults
 * filled in), as compact JSON with sorted keys (codex-rs hooks discovery; the hash is the `currentHash`
 * Codex's app-server lists for the hook). Codex reads it from the user's config; here, as `-c`.
 */
async function codexHookTrust(project: string): Promise<string[]> {
  const file = join(project, '.codex/hooks.json')
  type Group = { matcher?: string; hooks: Array<{ type: string; command: string; timeout?: number }> }
  const { hooks } = JSON.parse(await readFile(file, 'utf8')) as { hooks: Record<string, Group[]> }
  const sorted = (value: unknown): unknown =>
    Array.isArray(value) ? value.map(sorted) : typeof value === 'object' && value !== null ? Object.fromEntries(Object.keys(value).sort().map((key) => [key, sorted((value as Record<string, unknown>)[key])])) : value
  const entries: string[] = []
  for (const [event, groups] of Object.entries(hooks)) {
    const name = event.replace(/(?<=.)[A-Z]/g, (letter) => `_${letter}`).toLowerCase()
    // Codex matches these events without a matcher, and leaves it out of their identity.
    const matched = !['user_prompt_submit', 'stop', 'pre_compact'].includes(name)
    groups.forEach((group, g) =>
      group.hooks.forEach((handler, h) => {
        const identity = { event_name: name, ...(matched && group.matcher !== undefined && { matcher: group.matcher }), hooks: [{ type: handler.type, command: handler.command, timeout: handler.timeout ?? 600, async: false }] }
        const hash = createHash('sha256').update(JSON.stringify(sorted(identity))).digest('hex')
        entries.push(`${JSON.stringify(`${file}:${name}:${g}:${h}`)} = { trusted_hash = "sha256:${hash}" }`)
      }),
    )
  }
  // One inline table: the keys hold dots, which a dotted `-c hooks.state."<key>"` would split.
  return ['-c', `hooks.state={ ${entries.join(', ')} }`]
}

interface HookRun {
  project: CompiledProject
  model: ScriptedModel
  /** The main agent's requests, in order; the `n`th after the first carries the result of the `n`th call. */
  requests: SeenRequest[]
  /** The lines `once-more` and `compact-log` wrote to the project's hook-runs.log. */
  notes: string[]
}

const cleanup: string[] = []

afterAll(async () => {
  for (const dir of cleanup) await rm(dir, { recursive: true, force: true })
})

const call = (id: Harness, plan: Plan, tool: string, input: Record<string, unknown>): Turn => ({ calls: [toolCall(id, plan, tool, input)] })

/** The script's calls, in order: each one's result is in the request after it. */
const CALLS = ['prod', 'draft', 'ask', 'rm', 'ls', 'stamp', 'count'] as const
const resultOf = (run: HookRun, name: (typeof CALLS)[number]): ToolResult => {
  const results = run.requests[CALLS.indexOf(name) + 1]!.toolResults
  expect(results).toHaveLength(1)
  return results[0]!
}

/** Compiles the fixture into a project of its own, and runs the CLI there once through the whole script. */
async function runHooks(driver: HarnessDriver): Promise<HookRun> {
  const id = driver.id
  const project = await compiledProject(fixture, `oac-hooks-${id}-`, { config: 'test' })
  cleanup.push(project.dir)
  const { dir, plan } = project
  await mkdir(join(dir, 'reports'))
  for (const report of ['prod-q3', 'draft', 'ask-me']) await writeFile(join(dir, `reports/${report}.md`), `# ${report}\n`)
  await mkdir(join(dir, 'victim'))
  await writeFile(join(dir, 'victim/keep.txt'), 'keep me\n')
  const { shell, keepGoing } = OBSERVED[id]
  const main: Turn[] = [
    call(id, plan, 'delete_report', { name: 'prod-q3' }),
    call(id, plan, 'delete_report', { name: 'draft' }),
    call(id, plan, 'delete_report', { name: 'ask-me' }),
    { calls: [{ name: shell.name, input: shell.input('rm -rf victim') }] },
    { calls: [{ name: shell.name, input: shell.input('ls') }] },
    call(id, plan, 'stamp', { text: 'hello', stamp: 'model' }),
    call(id, plan, 'count_words', { text: 'one two three' }),
    { text: 'done' },
    ...(keepGoing ? [{ text: 'done again' }] : []),
  ]
  const { home, env } = await isolatedHome()
  cleanup.push(home)
  const args = id === 'codex' ? await codexHookTrust(dir) : []
  // `converse` checks that the run ended well and asked for each turn of the script, no more.
  const model = await converse(driver, { project: dir, plan, home, env, args }, { main })
  const log = join(dir, 'hook-runs.log')
  const notes = existsSync(log) ? (await readFile(log, 'utf8')).trim().split('\n') : []
  return { project, model, requests: model.conversation('main'), notes }
}

it('covers every harness, each of which has the six events but Cline, whose plugin hooks are beforeTool and afterTool', () => {
  expect(Object.keys(OBSERVED).sort()).toEqual([...HARNESSES].sort())
  for (const id of HARNESSES) {
    const events = Object.keys(harness(id).hooks.events).sort()
    expect(events, id).toEqual(id === 'cline' ? ['afterTool', 'beforeTool'] : ['afterTool', 'beforeTool', 'preCompact', 'sessionStart', 'stop', 'userPrompt'])
    // A context the model is shown only where the harness has the event that adds it.
    expect(OBSERVED[id].session !== undefined, id).toBe(events.includes('sessionStart'))
    expect(OBSERVED[id].prompt !== undefined, id).toBe(events.includes('userPrompt'))
  }
})

for (const id of HARNESSES) {
  const driver = DRIVERS[id]
  const observed = OBSERVED[id]
  const support = harness(id).hooks
  /** What the runtime makes of a decision the harness cannot carry (see runtime/hook.ts): the call blocked with this text. */
  const insteadOf = (hook: string, kind: string, reason?: string) => `The hook "${hook}" decided to ${kind} this call${reason ? `: ${reason}` : ''}, which ${id} cannot carry, so the call is blocked instead.`
  const text = (result: ToolResult) => driver.resultText(result.text).trim()
  let run: HookRun
  /**
   * Where the harness has no `event`: compile warned that `hook` does not run there, the hook wrote no
   * line, and no request held its `marker`.
   */
  const neverRan = (event: keyof typeof support.events, hook: string, marker: string) => {
    expect(support.events[event]).toBeUndefined()
    const title = harness(id).title
    expect(run.project.diagnostics.filter((d) => d.code === 'hook-unsupported' && d.message.startsWith(`${title} `) && d.message.includes(`hook "${hook}"`)).map((d) => d.message)).toEqual([`${title} has no ${event} event: hook "${hook}" does not run there.`])
    expect(run.notes.filter((line) => line.startsWith(event))).toEqual([])
    for (const request of run.model.requests) expect(occurrences(request, marker)).toBe(0)
  }

  describe(driver.title, () => {
    beforeAll(async () => {
      await driver.install()
      run = await runHooks(driver)
    })

    it('(a) blocks delete_report on a report that must survive, and the model reads the reason; another report is deleted', () => {
      const tool = support.toolName(run.project.plan.serverName, 'delete_report')
      expect(text(resultOf(run, 'prod'))).toBe(observed.blocked(`HOOK-GUARD ${id} keeps prod-q3`, { tool }))
      expect(existsSync(join(run.project.dir, 'reports/prod-q3.md'))).toBe(true)
      expect(text(resultOf(run, 'draft'))).toBe('Deleted reports/draft.md.')
      expect(existsSync(join(run.project.dir, 'reports/draft.md'))).toBe(false)
    })

    it('holds a call the hook asks about: no one can answer in a headless run', () => {
      const reason = `HOOK-ASK ${id} wants a person to confirm`
      const tool = support.toolName(run.project.plan.serverName, 'delete_report')
      if (support.limits.ask) {
        // The description's limit: the call is blocked instead, with a message that says so.
        expect(support.limits.ask.instead).toBe('block')
        expect(observed.asked).toBeUndefined()
        expect(text(resultOf(run, 'ask'))).toBe(observed.blocked(insteadOf('guard', 'ask', reason), { tool }))
      } else {
        expect(text(resultOf(run, 'ask'))).toBe(observed.asked!(reason))
      }
      expect(existsSync(join(run.project.dir, 'reports/ask-me.md'))).toBe(true)
    })

    it("(c) blocks rm -rf in the harness's own shell tool (the portable `shell`), and lets ls run", () => {
      const [tool] = support.builtins.shell!
      expect(text(resultOf(run, 'rm'))).toBe(observed.blocked(`HOOK-GUARD ${id} refuses rm -rf`, { tool: tool!, command: 'rm -rf victim' }))
      expect(existsSync(join(run.project.dir, 'victim/keep.txt'))).toBe(true)
      const listed = observed.shell.output?.(resultOf(run, 'ls').text) ?? resultOf(run, 'ls').text
      expect(listed).toMatch(/\bvictim\n/)
      expect(listed).toMatch(/\breports\n/)
      expect(listed).not.toContain('HOOK-')
    })

    it('(b) rewrites one field of our tool input, and the result shows it (where the harness applies a new input)', () => {
      if (support.limits.rewrite) {
        expect(support.limits.rewrite.instead).toBe('block')
        expect(text(resultOf(run, 'stamp'))).toBe(observed.blocked(insteadOf('restamp', 'rewrite'), { tool: support.toolName(run.project.plan.serverName, 'stamp') }))
      } else {
        // The model's own `text` stays; only the `stamp` the hook rewrote changed.
        expect(text(resultOf(run, 'stamp'))).toContain(`[HOOK-STAMP-${id}] hello`)
      }
    })

    it('(d) adds session context that the first model request contains, once (where the harness has the event)', () => {
      const [first] = run.requests
      const context = `HOOK-SESSION ${id} context`
      if (observed.session === undefined) return neverRan('sessionStart', 'session-context', 'HOOK-SESSION')
      expect(occurrences(first!, context)).toBe(1)
      expect(placesOf(first!, context)).toEqual([observed.session])
    })

    it('adds prompt context to the first request, from the prompt the hook read (where the harness has the event)', () => {
      const [first] = run.requests
      const context = `HOOK-PROMPT ${id} read "Go."`
      if (observed.prompt === undefined) return neverRan('userPrompt', 'prompt-context', 'HOOK-PROMPT')
      expect(occurrences(first!, context)).toBe(1)
      expect(placesOf(first!, context)).toEqual([observed.prompt])
    })

    it('(e) adds context after a tool, quoting the result the hook read, that the next request contains', () => {
      const next = run.requests[CALLS.indexOf('count') + 1]!
      expect(resultOf(run, 'count').text).toContain('3 words')
      const context = `HOOK-AFTER ${id} read "3 words" for "one two three"`
      expect(occurrences(next, context)).toBe(1)
      expect(placesOf(next, context)).toEqual([observed.afterTool])
      // Not before the call.
      expect(occurrences(run.requests[CALLS.indexOf('count')]!, 'HOOK-AFTER')).toBe(0)
    })

    it('keeps the agent going once from a stop hook, where the harness can; elsewhere the run ends as its description says', () => {
      const instruction = `HOOK-STOP ${id} asks for one more answer`
      const last = run.requests.at(-1)!
      if (support.events.stop === undefined) {
        expect(run.requests).toHaveLength(CALLS.length + 1)
        neverRan('stop', 'once-more', 'HOOK-STOP')
      } else if (observed.keepGoing) {
        expect(support.limits.keepGoing).toBeUndefined()
        expect(run.requests).toHaveLength(CALLS.length + 2)
        expect(placesOf(last, instruction)).toEqual([observed.keepGoing])
        expect(run.notes.filter((line) => line.startsWith('stop'))).toEqual([`stop ${id} continued=false`, `stop ${id} continued=true`])
      } else {
        expect(support.limits.keepGoing?.instead).toBe('ignore')
        expect(run.requests).toHaveLength(CALLS.length + 1)
        for (const request of run.model.requests) expect(occurrences(request, 'HOOK-STOP')).toBe(0)
        // The hook ran (and its decision was passed over).
        expect(run.notes.filter((line) => line.startsWith('stop'))).toEqual([`stop ${id} continued=false`])
      }
    })

    it('`oac hook` tells, for each hook of the run, what this CLI did with it (its decoding of the answers agrees with the runs above)', async () => {
      /** `oac hook <args>` on the run's project for this harness alone: its decision, reason and texts. */
      const tried = async (args: string[]) => {
        let out = ''
        const code = await oac(['hook', ...args, '--target', run.project.dir, '--harness', id, '--json'], (t) => (out += t), () => undefined)
        expect(code, args.join(' ')).toBe(0)
        return (JSON.parse(out) as { harnesses: Array<Record<string, unknown>> }).harnesses[0]!
      }
      // (a) the CLI showed the reason and kept the report.
      expect(await tried(['guard', '--tool', 'delete_report', '--input', '{"name":"prod-q3"}'])).toMatchObject({ decision: 'block', reason: `HOOK-GUARD ${id} keeps prod-q3` })
      // The ask: carried where the harness can ask (a headless run then refuses), blocked instead where its description says.
      const ask = `HOOK-ASK ${id} wants a person to confirm`
      expect(await tried(['guard', '--tool', 'delete_report', '--input', '{"name":"ask-me"}'])).toMatchObject(support.limits.ask ? { decision: 'block', reason: insteadOf('guard', 'ask', ask) } : { decision: 'ask', reason: ask })
      // (c) the portable shell, by this harness's own name for it.
      expect(await tried(['guard', '--tool', 'shell', '--input', '{"command":"rm -rf victim"}'])).toMatchObject({ decision: 'block', reason: `HOOK-GUARD ${id} refuses rm -rf` })
      // (b) the CLI ran the tool with the new input, or blocked it (Qwen Code).
      const stamped = await tried(['restamp', '--tool', 'stamp', '--input', '{"text":"hello","stamp":"model"}'])
      expect(stamped).toMatchObject(support.limits.rewrite ? { decision: 'block', reason: insteadOf('restamp', 'rewrite') } : { decision: 'rewrite', input: { text: 'hello', stamp: `HOOK-STAMP-${id}` } })
      // (d), (e): the contexts reached the model; the hook read the result as the CLI handed it. Where the
      // harness has no such event, the hook is skipped and says why.
      const skipped = (event: string) => ({ skipped: `${harness(id).title} has no ${event} event: the hook does not run there` })
      expect(await tried(['session-context'])).toMatchObject(observed.session ? { decision: 'context', context: `HOOK-SESSION ${id} context` } : skipped('sessionStart'))
      expect(await tried(['prompt-context', '--prompt', 'Go.'])).toMatchObject(observed.prompt ? { decision: 'context', context: `HOOK-PROMPT ${id} read "Go."` } : skipped('userPrompt'))
      expect(await tried(['after-count', '--tool', 'count_words', '--input', '{"text":"one two three"}', '--output', '3 words'])).toMatchObject({ decision: 'context', context: `HOOK-AFTER ${id} read "3 words" for "one two three"` })
      // The stop hook kept the CLI going where `observed.keepGoing` says it did.
      expect(await tried(['once-more'])).toMatchObject(support.events.stop === undefined ? skipped('stop') : observed.keepGoing ? { decision: 'keepGoing', reason: `HOOK-STOP ${id} asks for one more answer` } : { decision: 'none' })
    })

    it('runs a preCompact hook only where the harness fires it (no compaction in a run this short)', () => {
      const fired = run.notes.filter((line) => line.startsWith('preCompact'))
      if (observed.preCompactEveryRequest) expect(fired).toEqual(run.requests.map(() => `preCompact ${id} trigger=auto`))
      else expect(fired).toEqual([])
    })
  })
}

describe(`${DRIVERS.codex.title}, hooks not trusted`, () => {
  beforeAll(() => DRIVERS.codex.install())

  it("runs none of the project's hooks, and says nothing of them: the prod report is deleted", async () => {
    const { dir, plan } = await compiledProject(fixture, 'oac-hooks-codex-untrusted-', { config: 'test' })
    cleanup.push(dir)
    await mkdir(join(dir, 'reports'))
    await writeFile(join(dir, 'reports/prod-q3.md'), '# prod-q3\n')
    const { home, env } = await isolatedHome()
    cleanup.push(home)
    const model = await converse(DRIVERS.codex, { project: dir, plan, home, env }, { main: [call('codex', plan, 'delete_report', { name: 'prod-q3' }), { text: 'done' }] })
    const requests = model.conversation('main')
    expect(DRIVERS.codex.resultText(requests[1]!.toolResults[0]!.text)).toBe('Deleted reports/prod-q3.md.')
    expect(existsSync(join(dir, 'reports/prod-q3.md'))).toBe(false)
    for (const request of requests) expect(occurrences(request, 'HOOK-')).toBe(0)
    expect(existsSync(join(dir, 'hook-runs.log'))).toBe(false)
  })
})
