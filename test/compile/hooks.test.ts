import { resolve } from 'node:path'
import { describe, expect, it } from 'vitest'
import type { PlanOptions } from '../../src/compile/index.js'
import type { Diagnostic } from '../../src/diagnostics.js'
import { markedFixture } from '../util/marked-fixture.js'
import { repoRoot } from '../util/project.js'

const root = resolve(repoRoot, 'test/fixtures/hooks')
const fixture = markedFixture(root, 'registries.ts')
const { markedLine, failing, expectAt } = fixture

/** Compiles a registry that loads cleanly. */
async function compile(exportName: string, options: Partial<PlanOptions> = {}) {
  const result = await fixture.compile(exportName, options)
  expect(result.loaded.diagnostics).toEqual([])
  return result
}

const codes = (diagnostics: Diagnostic[]) => diagnostics.map((d) => `${d.severity} ${d.code}`)

describe('hooks in the plan', () => {
  it('each hook with what it watches, what its code decides, and its script', async () => {
    const { plan, diagnostics } = await compile('all')
    expect(codes(diagnostics).filter((code) => code.startsWith('error'))).toEqual([])
    const byName = new Map(plan!.hooks.map((hook) => [hook.name, hook]))
    expect(byName.get('guard')).toMatchObject({
      on: 'beforeTool',
      tools: { ours: ['delete_report'], builtins: ['shell'] },
      onError: 'block',
      timeoutMs: 10_000,
      decisions: ['block'],
      script: 'scripts/hooks/guard.mjs',
      source: { file: 'hooks.ts' },
    })
    // Destructured ctx, a helper it is passed to, methods of no decision.
    expect(byName.get('shaper')?.decisions).toEqual(['rewrite'])
    expect(byName.get('passer')?.decisions).toBeUndefined()
    expect(byName.get('slow')?.decisions).toEqual([])
    expect(byName.get('welcome')).toMatchObject({ decisions: ['addContext'] })
    expect(byName.get('welcome')).not.toHaveProperty('tools')
    expect(plan!.hooks.map((hook) => hook.name)).toEqual(['guard', 'shaper', 'asker', 'welcome', 'after', 'keeper', 'passer', 'thrower', 'slow', 'lenient', 'liar', 'echo', 'helper-only'])
    // A hook only an agent lists runs for it alone; one the registry lists too, for every agent.
    expect(byName.get('helper-only')?.agents).toEqual(['helper'])
    expect(byName.get('guard')).not.toHaveProperty('agents')
  })

  it("a config's hooks picks them by name; a name the registry lacks is an error listing the known ones", async () => {
    expect((await compile('all', { config: 'guarded' })).plan!.hooks.map((hook) => hook.name)).toEqual(['guard'])
    const { plan, diagnostics } = await compile('all', { config: 'unknown' })
    expect(plan).toBeUndefined()
    expect(diagnostics).toMatchObject([{ severity: 'error', code: 'config-hook-unknown', message: expect.stringContaining('"nope"'), fix: expect.stringContaining('guard, shaper') }])
  })

  it('warns, per harness, about an event, a built-in or a decision it cannot carry, only where the hook needs it, and says what happens instead', async () => {
    const { diagnostics } = await compile('all')
    const warnings = diagnostics.filter((d) => d.code === 'hook-unsupported').map((d) => d.message)
    const about = (hook: string) => warnings.filter((message) => message.includes(`hook "${hook}"`))
    // guard only blocks, which every harness carries.
    expect(about('guard')).toEqual([])
    expect(about('shaper')).toEqual([expect.stringMatching(/^Qwen Code does not apply a new input from a hook: where hook "shaper" decides to rewrite, the call is blocked instead\.$/)])
    expect(about('asker')).toHaveLength(9)
    expect(about('asker')).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^Codex has no built-in "fetch" tool/),
        expect.stringMatching(/^Codex takes `ask` for an invalid answer .* the call is blocked instead/),
        expect.stringMatching(/^Gemini CLI cannot ask .* the call is blocked instead/),
        expect.stringMatching(/^Kilo has no way for a plugin to ask/),
        expect.stringMatching(/^pi has no built-in "fetch" tool/),
        expect.stringMatching(/^oh-my-pi has no built-in "fetch" tool/),
        expect.stringMatching(/^opencode has no way for a plugin to ask/),
        expect.stringMatching(/^Cline has no built-in "fetch" tool/),
        expect.stringMatching(/^Cline has no way for a plugin hook to ask the user: .* the call is blocked instead/),
      ]),
    )
    // Three harnesses pass a keepGoing over; Cline has no stop event at all.
    expect(about('keeper')).toHaveLength(4)
    expect(about('keeper').filter((message) => message.endsWith('it is passed over.'))).toHaveLength(3)
    expect(about('keeper')).toContain('Cline has no stop event: hook "keeper" does not run there.')
    // Its code passes its ctx on: any decision of its event may come.
    expect(about('passer').filter((message) => message.includes('(its code may: it passes its ctx on)')).length).toBeGreaterThan(3)
    expect(about('passer').filter((message) => message.includes('"notes" runs on the bash route only'))).toHaveLength(10)
    expect(about('helper-only')).toHaveLength(9)
    expect(about('helper-only')[0]).toMatch(/^opencode cannot run a hook for one agent alone: hook "helper-only", which "helper" lists, runs for every agent there\.$/)
    for (const d of diagnostics.filter((d) => d.code === 'hook-unsupported')) expect(d).toMatchObject({ severity: 'warning', file: 'hooks.ts', fix: expect.any(String) })
  })

  it.each([
    ['nameInvalid', 'hook-name-invalid'],
    ['eventUnknown', 'hook-event-unknown'],
    ['toolsOnSession', 'hook-tools-invalid'],
    ['builtinUnknown', 'hook-tool-unknown'],
    ['timeoutInvalid', 'hook-timeout-invalid'],
    ['duplicate', 'hook-duplicate'],
  ])('%s fails with %s at the definition, with the fix', async (exportName, code) => {
    const found = await failing(exportName, code)
    expect(found).toHaveLength(1)
    await expectAt(found[0]!, code)
  })

  it('a hook watching a tool the registry does not serve names it', async () => {
    const { plan, diagnostics } = await compile('toolNotInRegistry')
    expect(plan).toBeUndefined()
    expect(diagnostics.filter((d) => d.severity === 'error')).toMatchObject([{ code: 'hook-tool-unknown', line: await markedLine('hook-tool-stray'), message: expect.stringContaining('"stray_tool"') }])
  })
})
