import { describe, expect, it } from 'vitest'
import type { PlannedHook } from '../../src/compile/plan.js'
import { hookSpec } from '../../src/bundle/entries.js'
import { emitHooks } from '../../src/emit/hooks.js'
import { fixturePlan, owned } from '../emit-claude-codex/fixture.js'

/** A planned hook on `on`, as compile makes it. */
function hook(name: string, on: PlannedHook['on'], fields: Partial<PlannedHook> = {}): PlannedHook {
  return { name, description: `The ${name} hook.`, on, onError: 'block', timeoutMs: 10_000, source: { file: 'agents/hooks.ts', line: 4, column: 14 }, script: `scripts/hooks/${name}.mjs`, ...fields }
}

describe('a stop hook in the in-process harnesses', () => {
  const plan = fixturePlan({ harnesses: ['pi', 'omp'], hooks: [hook('once-more', 'stop')] })
  const files = emitHooks(plan)

  it("only watches pi's agent_end: a follow-up sent there comes after pi's loop looked for one", () => {
    const pi = owned(files, '.pi/extensions/oac-tools-hooks.ts').content
    expect(pi).toContain('pi.on("agent_end"')
    expect(pi).not.toContain('turn_end')
    expect(pi).not.toContain('sendUserMessage')
    // The runtime passes a keepGoing over in pi, as the compile warning says.
    expect(hookSpec(plan, plan.hooks[0]!).fallbacks.pi).toEqual({ keepGoing: 'ignore' })
  })

  it("keeps omp going through its session_stop answer", () => {
    const omp = owned(files, '.omp/extensions/oac-tools-hooks.ts').content
    expect(omp).toContain('pi.on("session_stop"')
    expect(omp).toContain('{ decision: "block", reason }')
    expect(hookSpec(plan, plan.hooks[0]!).fallbacks.omp).toBeUndefined()
  })
})
