import { cp, readFile, rm, writeFile } from 'node:fs/promises'
import { join, resolve } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { compile } from '../../src/api.js'
import { main } from '../../src/cli.js'
import { HARNESSES, type Harness } from '../../src/define/types.js'
import { repoRoot } from '../util/project.js'
import { tempDir } from '../util/temp.js'

/*
 * `oac hook` on the hooks of test/fixtures/hooks/trial.ts, compiled by the real pipeline for all ten
 * harnesses: each harness's registered command run with its payload, each in-process harness's script
 * handed its plugin's event, and each answer read back as that harness reads it.
 */

const root = resolve(repoRoot, 'test/fixtures/hooks')
let target = ''

beforeAll(async () => {
  target = await tempDir('oac-hook-cli-')
  const { diagnostics } = await compile({ root, registry: 'trial.ts:trial', target })
  expect(diagnostics.filter((d) => d.severity === 'error')).toEqual([])
}, 300_000)
afterAll(() => rm(target, { recursive: true, force: true }))

interface Trial {
  harness: Harness
  ran: boolean
  decision?: string
  reason?: string
  input?: Record<string, unknown>
  context?: string
  error?: string
  output?: string
  message?: string
  skipped?: string
}

async function oac(args: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = ''
  let err = ''
  const code = await main(['hook', ...args, '--target', target], (t) => (out += t), (t) => (err += t))
  return { code, out, err }
}

/** `oac hook ... --json`: the exit code and each harness's result, by harness. */
async function trial(args: string[]): Promise<{ code: number; by: Record<Harness, Trial> }> {
  const { code, out, err } = await oac([...args, '--json'])
  expect(err).toBe('')
  const { harnesses } = JSON.parse(out) as { harnesses: Trial[] }
  return { code, by: Object.fromEntries(harnesses.map((entry) => [entry.harness, entry])) as Record<Harness, Trial> }
}

const decisions = (by: Record<Harness, Trial>) => Object.fromEntries(Object.entries(by).map(([id, entry]) => [id, entry.decision]))
const IN_PROCESS: Harness[] = ['opencode', 'kilo', 'pi', 'omp', 'cline']

describe('oac hook: what each harness is told', () => {
  it("blocks rm -rf in every harness's own shell tool, named as each harness's hooks see it", async () => {
    const { code, by } = await trial(['guard', '--tool', 'shell', '--input', '{"command":"rm -rf build"}'])
    expect(code).toBe(0)
    // The guard blocks only what its event names `shell`: each harness's payload named its own shell tool (Bash, run_shell_command, bash).
    expect(Object.keys(by).sort()).toEqual([...HARNESSES].sort())
    for (const id of HARNESSES) expect(by[id], id).toMatchObject({ ran: true, decision: 'block', reason: 'no rm -rf' })
    // Our tool, by each harness's name for it (mcp__oac-tools__delete_report, oac-tools-delete_report, ...).
    const prod = await trial(['guard', '--tool', 'delete_report', '--input', '{"name":"prod-q3"}'])
    for (const id of HARNESSES) expect(prod.by[id], id).toMatchObject({ decision: 'block', reason: 'prod-q3 is kept' })
    const draft = await trial(['guard', '--tool', 'delete_report', '--input', '{"name":"draft"}'])
    for (const id of HARNESSES) expect(draft.by[id], id).toMatchObject({ ran: true, decision: 'none' })
  })

  it("is not run by a command harness for a tool its matcher leaves out; the script itself has no opinion on it", async () => {
    const { code, by } = await trial(['guard', '--tool', 'read', '--input', '{"path":"x"}'])
    expect(code).toBe(0)
    expect(by.claude).toMatchObject({ ran: false, skipped: expect.stringContaining('does not match Read') })
    expect(by.copilot).toMatchObject({ ran: false, skipped: expect.stringContaining('does not match view') })
    for (const id of IN_PROCESS) expect(by[id], id).toMatchObject({ ran: true, decision: 'none' })
  })

  it("allows where the harness reads an allow, and has no opinion in the plugins, which pass it over; the hook's console output is kept apart", async () => {
    const { code, by } = await trial(['allower', '--tool', 'read', '--input', '{"path":"README.md"}'])
    expect(code).toBe(0)
    expect(decisions(by)).toEqual({ opencode: 'none', claude: 'allow', codex: undefined, pi: 'none', omp: 'none', gemini: 'allow', copilot: 'allow', qwen: 'allow', kilo: 'none', cline: 'none' })
    expect(by.codex).toMatchObject({ ran: false, skipped: 'Codex has no built-in read tool' })
    expect(by.claude.reason).toBe('reading is fine')
    // A console.log of hook code goes to stderr in a command, and is caught in-process: never into the answer.
    expect(by.gemini.output).toBe('allowing read in gemini')
    expect(by.pi.output).toBe('allowing read in pi')
  })

  it("rewrites the input, and is blocked instead in Qwen Code, which applies no new input", async () => {
    const { code, by } = await trial(['shaper', '--tool', 'word_count', '--input', '{"text":"one two three four"}'])
    expect(code).toBe(0)
    for (const id of HARNESSES.filter((id) => id !== 'qwen')) expect(by[id], id).toMatchObject({ decision: 'rewrite', input: { text: 'one two' } })
    expect(by.qwen).toMatchObject({ decision: 'block', reason: 'The hook "shaper" decided to rewrite this call, which qwen cannot carry, so the call is blocked instead.' })
  })

  it('adds context at session start, and after a tool from the result each harness handed it', async () => {
    const session = await trial(['welcome'])
    for (const id of HARNESSES.filter((id) => id !== 'cline')) expect(session.by[id], id).toMatchObject({ decision: 'context', context: `Working in ${id}.` })
    // Cline's plugins have hooks around tool calls only.
    expect(session.by.cline).toMatchObject({ ran: false, skipped: 'Cline has no sessionStart event: the hook does not run there' })
    const after = await trial(['after', '--tool', 'word_count', '--input', '{"text":"a b"}', '--output', '2 words'])
    expect(after.code).toBe(0)
    for (const id of HARNESSES) expect(after.by[id], id).toMatchObject({ decision: 'context', context: 'counted: 2 words' })
  })

  it("keeps the agent going where the harness can, and has no opinion where its description passes keepGoing over", async () => {
    const { by } = await trial(['keeper'])
    expect(decisions(by)).toEqual({ opencode: 'none', claude: 'keepGoing', codex: 'keepGoing', pi: 'none', omp: 'keepGoing', gemini: 'keepGoing', copilot: 'keepGoing', qwen: 'keepGoing', kilo: 'none', cline: undefined })
    expect(by.claude.reason).toBe('one more check, please')
    expect(by.cline).toMatchObject({ ran: false, skipped: 'Cline has no stop event: the hook does not run there' })
  })

  it('asks where the harness can, and blocks with the question where its description says a hook cannot ask', async () => {
    const { code, by } = await trial(['confirmer', '--tool', 'delete_report', '--input', '{"name":"draft"}', '--harness', 'claude,gemini,cline'])
    expect(code).toBe(0)
    expect(by.claude).toMatchObject({ decision: 'ask', reason: 'delete draft?' })
    for (const id of ['gemini', 'cline'] as const) {
      expect(by[id], id).toMatchObject({ decision: 'block', reason: `The hook "confirmer" decided to ask this call: delete draft?, which ${id} cannot carry, so the call is blocked instead.` })
    }
  })

  it('runs a hook only one agent lists from that agent\'s Claude Code file, and from the settings elsewhere', async () => {
    const { by } = await trial(['helper-only', '--tool', 'word_count', '--harness', 'claude,gemini'])
    expect(by.claude).toMatchObject({ decision: 'context', context: 'the helper used word_count' })
    expect(by.gemini).toMatchObject({ decision: 'context', context: 'the helper used word_count' })
  })
})

describe('oac hook: a hook that fails', () => {
  it('exits 1, with the error in every harness; a prompt goes on', async () => {
    const { code, by } = await trial(['thrower', '--prompt', 'hi'])
    expect(code).toBe(1)
    expect(by.cline).toMatchObject({ ran: false, skipped: 'Cline has no userPrompt event: the hook does not run there' })
    for (const id of HARNESSES.filter((id) => id !== 'cline')) expect(by[id], id).toMatchObject({ ran: true, decision: 'none', error: 'The hook "thrower" failed: prompt hook broke' })
    // Claude Code and Gemini CLI show it to the user (the answer's systemMessage).
    expect(by.claude.message).toBe('The hook "thrower" failed: prompt hook broke')
  })

  it('a beforeTool hook that allows on error lets the call go, and says why', async () => {
    const { code, by } = await trial(['lenient', '--tool', 'shell', '--input', '{"command":"ls"}', '--harness', 'claude,copilot,kilo'])
    expect(code).toBe(1)
    for (const id of ['claude', 'copilot', 'kilo'] as const) expect(by[id], id).toMatchObject({ decision: 'none', error: 'The hook "lenient" failed: lenient broke' })
  })

  it('a hook whose code fails to load blocks a tool call, in every harness, with why', async () => {
    const broken = await tempDir('oac-hook-broken-')
    await cp(target, broken, { recursive: true })
    const code = join(broken, 'scripts/hooks/guard.code.mjs')
    await writeFile(code, `throw new Error("guard code broke at load")\n${await readFile(code, 'utf8')}`)
    let out = ''
    const exit = await main(['hook', 'guard', '--target', broken, '--tool', 'shell', '--input', '{"command":"ls"}', '--harness', 'claude,copilot,opencode,pi', '--json'], (t) => (out += t), () => undefined)
    await rm(broken, { recursive: true, force: true })
    expect(exit).toBe(1)
    const by = Object.fromEntries((JSON.parse(out) as { harnesses: Trial[] }).harnesses.map((entry) => [entry.harness, entry]))
    // A command exits 2 with why (the launcher's fail-closed answer); a plugin's handler throws the error, which blocks the call.
    for (const id of ['claude', 'copilot']) expect(by[id], id).toMatchObject({ decision: 'block', reason: 'The hook "guard" could not be loaded: guard code broke at load', error: 'The hook "guard" could not be loaded: guard code broke at load' })
    for (const id of ['opencode', 'pi']) expect(by[id], id).toMatchObject({ decision: 'block', reason: 'guard code broke at load', error: 'The hook could not be loaded: guard code broke at load' })
  })
})

describe('oac hook: the text it prints', () => {
  it('one line per harness, with what it is told', async () => {
    const { code, out } = await oac(['shaper', '--tool', 'word_count', '--input', '{"text":"one two three"}', '--harness', 'claude,qwen'])
    expect(code).toBe(0)
    expect(out).toBe(
      `oac: hook "shaper" (beforeTool) on word_count {"text":"one two three"}, in ${target}\n` +
        '  claude: rewrite — {"text":"one two"}\n' +
        '  qwen:   block — The hook "shaper" decided to rewrite this call, which qwen cannot carry, so the call is blocked instead.\n',
    )
    const failed = await oac(['thrower', '--harness', 'opencode'])
    expect(failed.out).toContain('  opencode: no decision\n            error: The hook "thrower" failed: prompt hook broke\n')
  })
})

describe('oac hook --scope user', () => {
  it('tries the tree installed in the home, whose commands find their scripts from the home folder', async () => {
    const home = await tempDir('oac-hook-home-')
    await compile({ root, registry: 'trial.ts:trial', scope: 'user', target: home })
    const saved = process.env.HOME
    process.env.HOME = home
    let out = ''
    try {
      const code = await main(['hook', 'guard', '--scope', 'user', '--tool', 'shell', '--input', '{"command":"rm -rf ~"}', '--harness', 'claude,codex,copilot,opencode', '--json'], (t) => (out += t), () => undefined)
      expect(code).toBe(0)
    } finally {
      process.env.HOME = saved
      await rm(home, { recursive: true, force: true })
    }
    const { harnesses } = JSON.parse(out) as { harnesses: Trial[] }
    expect(harnesses.map((entry) => [entry.harness, entry.decision, entry.reason])).toEqual([
      ['claude', 'block', 'no rm -rf'],
      ['codex', 'block', 'no rm -rf'],
      ['copilot', 'block', 'no rm -rf'],
      ['opencode', 'block', 'no rm -rf'],
    ])
  })
})

describe('oac hook: the command line', () => {
  it.each([
    [['nope'], 'the tree in', 'has no hook "nope". Its hooks: after, allower, confirmer, guard, helper-only, keeper, lenient, shaper, thrower, welcome.'],
    [['guard'], 'runs on beforeTool: name the tool called with --tool (delete_report, word_count, shell, read, write, edit, search, fetch)'],
    [['guard', '--event', 'afterTool', '--tool', 'shell'], 'the hook "guard" runs on beforeTool, not afterTool.'],
    [['welcome', '--tool', 'shell'], 'runs on sessionStart, which is about no tool: leave out --tool.'],
    [['guard', '--tool', 'shell', '--input', '[1]'], '--input must be a JSON object'],
    [['guard', '--tool', 'shell', '--harness', 'claude,vim'], '--harness takes a comma-separated list of'],
  ])('%j: exit code 2, and says what to do', async (args, ...messages) => {
    const { code, err } = await oac(args)
    expect(code).toBe(2)
    for (const message of messages) expect(err).toContain(message)
  })

  it('a folder with no compiled tree says so', async () => {
    const empty = await tempDir('oac-hook-empty-')
    let err = ''
    const code = await main(['hook', 'guard', '--target', empty], () => undefined, (t) => (err += t))
    await rm(empty, { recursive: true, force: true })
    expect(code).toBe(2)
    expect(err).toContain('holds no tree compiled for oac-tools')
  })
})
