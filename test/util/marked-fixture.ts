import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { expect } from 'vitest'
import { compilePlan, type PlanOptions } from '../../src/compile/index.js'
import type { Diagnostic } from '../../src/diagnostics.js'
import { loadRegistry } from '../../src/load/index.js'

/**
 * A compile fixture: `file` (relative to `root`) exports registries by name; it, and any other file of
 * the fixture its definitions come from, marks the lines a diagnostic must point at with a trailing
 * `// @marker` comment, which the tests find by reading it.
 */
export function markedFixture(root: string, file: string) {
  /** The 1-based line that carries `// @marker` in `markedFile` (relative to `root`; default: the registries' file). */
  async function markedLine(marker: string, markedFile = file): Promise<number> {
    const lines = (await readFile(join(root, markedFile), 'utf8')).split('\n')
    const index = lines.findIndex((line) => line.trimEnd().endsWith(`// @${marker}`))
    if (index < 0) throw new Error(`no @${marker} in ${markedFile}`)
    return index + 1
  }

  /** Loads the registry `exportName` and compiles it with the real stages. */
  async function compile(exportName: string, options: Partial<PlanOptions> = {}) {
    const loaded = await loadRegistry(`${file}:${exportName}`, root)
    return { loaded, ...compilePlan(loaded, { root, ...options }) }
  }

  /** Compiles a registry that loads cleanly, expects no plan, and returns the diagnostics with `code`, each with a fix. */
  async function failing(exportName: string, code: string, options: Partial<PlanOptions> = {}): Promise<Diagnostic[]> {
    const result = await compile(exportName, options)
    expect(result.loaded.diagnostics).toEqual([])
    expect(result.plan).toBeUndefined()
    const found = result.diagnostics.filter((d) => d.code === code)
    expect(found.length, JSON.stringify(result.diagnostics, null, 2)).toBeGreaterThan(0)
    for (const d of found) expect(d.fix).toBeTruthy()
    return found
  }

  /** Expects `d` at the marked line of `at.file` (default: the registries' file), with `at.severity` (default: error). */
  async function expectAt(d: Diagnostic, marker: string, at: { file?: string; severity?: Diagnostic['severity'] } = {}): Promise<void> {
    const { file: markedFile = file, severity = 'error' } = at
    expect(d).toMatchObject({ severity, file: markedFile, line: await markedLine(marker, markedFile) })
    expect(d.column).toBeGreaterThan(0)
  }

  return { markedLine, compile, failing, expectAt }
}
