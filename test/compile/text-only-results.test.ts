import { resolve } from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import { compilePlan, type PlanOptions } from '../../src/compile/index.js'
import { harness } from '../../src/compile/harnesses/index.js'
import { HARNESSES } from '../../src/define/types.js'
import type { Diagnostic } from '../../src/diagnostics.js'
import { type LoadedRegistry, loadRegistry } from '../../src/load/index.js'
import { repoRoot } from '../util/project.js'

/*
 * A harness whose tool route loses a part of a rich result (its description's `results`: Copilot and
 * Cline the images, Cline the details too) gets one warning, `tool-result-text-only`, naming the
 * native tools whose code returns that part (ctx.result, ctx.error) or does not tell: the fixture's
 * tools each show one way a `run` is read (test/fixtures/text-only-results/tools.ts).
 */

const root = resolve(repoRoot, 'test/fixtures/text-only-results')
let loaded: LoadedRegistry
let textAlone: LoadedRegistry

beforeAll(async () => {
  loaded = await loadRegistry('registries.ts:registry', root)
  textAlone = await loadRegistry('registries.ts:textAlone', root)
  expect(loaded.diagnostics).toEqual([])
}, 60_000)

function warnings(from: LoadedRegistry, options: Partial<PlanOptions> = {}): Diagnostic[] {
  const { plan, diagnostics } = compilePlan(from, { root, ...options })
  expect(plan, JSON.stringify(diagnostics, null, 2)).toBeDefined()
  return diagnostics.filter((d) => d.code === 'tool-result-text-only')
}

/** The tool names a sentence of the message lists in parentheses after `part`'s words. */
function named(message: string, part: 'images' | 'details'): string[] {
  const words = part === 'images' ? 'an image a tool returns with ctx.result({ images }) does not reach the model' : "a result's details (ctx.result({ details }), ctx.error(message, { details })) reach no one"
  const at = message.indexOf(`${words} (`)
  if (at < 0) return []
  const list = message.slice(at + words.length + 2, message.indexOf(')', at + words.length + 2))
  return [...list.matchAll(/"([^"]+)"/g)].map((match) => match[1]!)
}

describe('tool-result-text-only', () => {
  it("is said once for each harness whose description loses a part, in the harness's words", () => {
    const found = warnings(loaded, { harnesses: [...HARNESSES] })
    const losing = HARNESSES.filter((id) => typeof harness(id).results.images === 'object' || typeof harness(id).results.details === 'object')
    expect(losing).toEqual(['copilot', 'cline'])
    expect(found).toHaveLength(losing.length)
    for (const [i, id] of losing.entries()) {
      const { title, results } = harness(id)
      const warning = found[i]!
      expect(warning).toMatchObject({ severity: 'warning', file: 'registries.ts' })
      expect(warning.message.startsWith(title)).toBe(true)
      for (const part of ['images', 'details'] as const) {
        const carried = results[part]
        if (typeof carried === 'object') expect(warning.message).toContain(`${title} ${carried.lost}`)
      }
      expect(warning.fix).toContain(`leave ${id} out of the config's harnesses`)
      expect(warning.fix).toContain("diagnostics: { 'tool-result-text-only': 'off' }")
    }
  })

  it("names the tools whose run returns the part, or whose code does not tell, and no tool of the bash route", () => {
    const [copilot, cline] = warnings(loaded, { harnesses: ['copilot', 'cline'] })
    // ctx.result may carry images; a run given by name from another module, one that passes ctx on or takes rest parameters, may do anything.
    const images = ['charted', 'passed_on', 'imported', 'rest']
    expect(named(copilot!.message, 'images')).toEqual(images)
    expect(named(copilot!.message, 'details')).toEqual([])
    expect(named(cline!.message, 'images')).toEqual(images)
    expect(named(cline!.message, 'details')).toEqual(['charted', 'failing', 'passed_on', 'imported', 'rest'])
    // Not plain (no ctx), progressing (progress and signal only), named (read where this module defines it), shell_only (json: false).
  })

  it('says nothing where no harness loses a part, no tool can return one, or native tools are off', () => {
    expect(warnings(loaded, { harnesses: ['claude', 'codex', 'opencode', 'kilo', 'pi', 'omp', 'gemini', 'qwen'] })).toEqual([])
    expect(warnings(textAlone, { harnesses: [...HARNESSES] })).toEqual([])
    expect(warnings(loaded, { harnesses: [...HARNESSES], nativeTools: false })).toEqual([])
  })

  it("is turned off or down to a note by the config's diagnostics", () => {
    expect(warnings(loaded, { harnesses: ['copilot', 'cline'], config: 'quiet' })).toEqual([])
    expect(warnings(loaded, { harnesses: ['copilot', 'cline'], config: 'noted' }).map((d) => d.severity)).toEqual(['note', 'note'])
  })
})
