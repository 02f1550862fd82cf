import { existsSync } from 'node:fs'
import { readFile, rm, writeFile } from 'node:fs/promises'
import { join, resolve } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { parse as parseYaml } from 'yaml'
import { isolatedHome } from './cache.js'
import { converse } from './conversation.js'
import { DRIVERS, toolCall } from './drivers.js'
import { type CompiledProject, compiledProject } from './project.js'
import type { ScriptedModel, SeenRequest, Turn } from './scripted-model.js'

/*
 * Proof that a hook an agent lists (and the registry does not) runs for that agent alone in Claude
 * Code, where it goes into the agent file's frontmatter `hooks`. The project compiled from
 * test/harness/fixtures/agent-hooks has sub-agents "a" and "b" with the same tool, count_words, and
 * an afterTool hook on it, `a-watch`, that only "a" lists. In one headless run against the scripted
 * model the main agent counts words, starts "a", which counts words, then "b", which counts words,
 * and counts words once more: the hook runs for a's call alone. Claude Code registers a project
 * agent's frontmatter hooks only in a folder the user has trusted (its trust dialog, recorded in
 * ~/.claude.json); a second run in a folder not trusted shows it skipping them.
 *   npx vitest run --config vitest.harness.config.ts test/harness/agent-hooks.test.ts
 */

const fixture = resolve(import.meta.dirname, 'fixtures/agent-hooks')
const driver = DRIVERS.claude

/** What each call counts: its text names the caller, and the hook quotes it. */
const TEXT = { mainBefore: 'main counts first', a: 'agent a counts', b: 'agent b counts', mainAfter: 'main counts last' }
const hookContext = (text: string) => `AGENT-HOOK claude read "3 words" for "${text}"`

/** How often `text` occurs in a request's body (as JSON text: a quote inside is escaped there). */
function occurrences(request: SeenRequest, text: string): number {
  return JSON.stringify(request.body).split(JSON.stringify(text).slice(1, -1)).length - 1
}

interface AgentHooksRun {
  project: CompiledProject
  model: ScriptedModel
  /** The calls the hook noted in the project's hook-runs.log, in order. */
  noted: string[]
  /** Claude Code's debug log of the run (`--debug-file`). */
  debug: string
}

const cleanup: string[] = []

afterAll(async () => {
  for (const dir of cleanup) await rm(dir, { recursive: true, force: true })
})

/** Compiles the fixture into a project of its own and runs the whole conversation there once; `trusted`: as after the user accepted the folder's trust dialog. */
async function runAgentHooks(trusted: boolean): Promise<AgentHooksRun> {
  const project = await compiledProject(fixture, 'oac-agent-hooks-', { config: 'test' })
  cleanup.push(project.dir)
  const { dir, plan } = project
  const { home, env } = await isolatedHome()
  cleanup.push(home)
  // What the trust dialog records, keyed by the project's folder (its git root).
  if (trusted) await writeFile(join(home, '.claude.json'), JSON.stringify({ projects: { [dir]: { hasTrustDialogAccepted: true } } }))
  const count = (text: string): Turn => ({ calls: [toolCall('claude', plan, 'count_words', { text })] })
  const scripts: Record<string, Turn[]> = {
    main: [count(TEXT.mainBefore), ...driver.startAgent!('a'), ...driver.startAgent!('b'), count(TEXT.mainAfter), { text: 'all done' }],
    a: [count(TEXT.a), driver.finishAgent('a finished')],
    b: [count(TEXT.b), driver.finishAgent('b finished')],
  }
  const debugFile = join(home, 'claude-debug.log')
  // `converse` checks that the run ended well and asked for each turn of the scripts, no more.
  const model = await converse(driver, { project: dir, plan, home, env, args: ['--debug-file', debugFile] }, scripts)
  const log = join(dir, 'hook-runs.log')
  const noted = existsSync(log) ? (await readFile(log, 'utf8')).trim().split('\n') : []
  return { project, model, noted, debug: await readFile(debugFile, 'utf8') }
}

/** Every call came back counted, whoever made it. */
function expectCounted({ model }: AgentHooksRun): void {
  const main = model.conversation('main')
  const results = [main[1]!, model.conversation('a')[1]!, model.conversation('b')[1]!, main.at(-1)!].map((request) => request.toolResults)
  for (const result of results) {
    expect(result).toHaveLength(1)
    expect(driver.resultText(result[0]!.text).trim()).toBe('3 words')
  }
}

describe(driver.title, () => {
  let run: AgentHooksRun

  beforeAll(async () => {
    await driver.install()
    run = await runAgentHooks(true)
  })

  it("compiles the hook into a's agent file alone, not into b's nor the project's settings, with no warning", async () => {
    expect(run.project.diagnostics).toEqual([])
    const frontmatter = async (agent: string) => parseYaml((await readFile(join(run.project.dir, `.claude/agents/${agent}.md`), 'utf8')).split('---\n')[1]!) as { hooks?: object }
    expect(Object.keys((await frontmatter('a')).hooks ?? {})).toEqual(['PostToolUse'])
    expect((await frontmatter('b')).hooks).toBeUndefined()
    const settings = join(run.project.dir, '.claude/settings.json')
    if (existsSync(settings)) expect(JSON.parse(await readFile(settings, 'utf8')).hooks).toBeUndefined()
  })

  it("(1) runs the hook when sub-agent a calls the tool: its context is in the tool result of a's next request", () => {
    expectCounted(run)
    const [, next] = run.model.conversation('a')
    expect(next!.toolResults[0]!.text).toContain(hookContext(TEXT.a))
    expect(occurrences(next!, hookContext(TEXT.a))).toBe(1)
    // Not before the call.
    expect(occurrences(run.model.conversation('a')[0]!, 'AGENT-HOOK')).toBe(0)
  })

  it('(2) does not run it when the main agent calls the tool, before a or after it, nor when sub-agent b does', () => {
    for (const request of [...run.model.conversation('main'), ...run.model.conversation('b')]) expect(occurrences(request, 'AGENT-HOOK')).toBe(0)
    expect(run.noted).toEqual([TEXT.a])
  })
})

describe(`${driver.title}, the project folder not trusted`, () => {
  beforeAll(() => driver.install())

  it("skips a project agent's frontmatter hooks, which its debug log says; the tools run", async () => {
    const run = await runAgentHooks(false)
    expectCounted(run)
    for (const request of run.model.requests) expect(occurrences(request, 'AGENT-HOOK')).toBe(0)
    expect(run.noted).toEqual([])
    expect(run.debug).toContain(`Skipping frontmatter hooks for agent 'a': the folder its definition file came from is not trusted`)
  })
})
