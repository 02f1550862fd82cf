import { readFile, writeFile } from 'node:fs/promises'
import { join, resolve } from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import { main } from '../../src/cli.js'
import type { Diagnostic } from '../../src/diagnostics.js'
import { DIAGNOSTIC_CODES } from '../../src/diagnostic-codes.js'
import { copyProject, repoRoot } from '../util/project.js'

/*
 * Warnings a team has read: a config profile's `diagnostics` and `--diagnostic code=level` turn a
 * warning code off or down to a note; errors stay errors; a code that does not exist is a warning.
 * The playground's prod config warns tools-not-scoped, approval-unsupported and tool-result-text-only (Copilot's and Cline's: its
 * chart returns an image), and a target outside any git repository codex-no-project-root.
 */

let project = ''
let registryLine = 0

beforeAll(async () => {
  project = await copyProject(resolve(repoRoot, 'playground'), 'oac-levels-')
  const registry = join(project, 'agents/registry.ts')
  const text = await readFile(registry, 'utf8')
  // A profile of the playground's prod config with levels of its own.
  const withLevels = text.replace("    dev: {\n", "    quiet: {\n      approval: { allow: [{ effect: 'readOnly' }], ask: [{ effect: 'destructive' }] },\n      diagnostics: { 'tools-not-scoped': 'off', 'approval-unsupported': 'note', 'tool-result-text-only': 'off', 'tools-not-scope': 'off', 'tool-name-invalid': 'off' },\n    },\n    dev: {\n")
  expect(withLevels).not.toBe(text)
  await writeFile(registry, withLevels)
  registryLine = withLevels.split('\n').findIndex((line) => line.includes('defineRegistry({')) + 1
}, 60_000)

async function dryRun(...args: string[]): Promise<{ code: number; diagnostics: Diagnostic[]; text: string }> {
  let out = ''
  const code = await main(['compile', 'agents/registry.ts:registry', '--root', project, '--target', 'out', '--dry-run', '--reporter', 'json', ...args], (t) => (out += t), () => undefined)
  let text = ''
  await main(['compile', 'agents/registry.ts:registry', '--root', project, '--target', 'out', '--dry-run', ...args], () => undefined, (t) => (text += t))
  return { code, diagnostics: (JSON.parse(out) as { diagnostics: Diagnostic[] }).diagnostics, text }
}

const codes = (diagnostics: Diagnostic[], severity: Diagnostic['severity']) => diagnostics.filter((d) => d.severity === severity).map((d) => d.code).sort()

describe('diagnostic levels', () => {
  it('with none set, the warnings are warnings', async () => {
    const { code, diagnostics } = await dryRun('--config', 'prod')
    expect(code).toBe(0)
    expect(codes(diagnostics, 'warning')).toEqual(['approval-unsupported', 'approval-unsupported', 'codex-no-project-root', 'tool-result-text-only', 'tool-result-text-only', 'tools-not-scoped'])
  }, 60_000)

  it('--diagnostic turns a code off or down to a note, a harness-prefixed code too; a note prints on one line', async () => {
    const { code, diagnostics, text } = await dryRun('--config', 'prod', '--diagnostic', 'tools-not-scoped=off', '--diagnostic', 'codex-no-project-root=off', '--diagnostic', 'approval-unsupported=note', '--diagnostic', 'tool-result-text-only=off')
    expect(code).toBe(0)
    expect(codes(diagnostics, 'warning')).toEqual([])
    expect(codes(diagnostics, 'note')).toEqual(['approval-unsupported', 'approval-unsupported'])
    expect(text).toMatch(/agents\/registry\.ts:\d+:\d+: note \[approval-unsupported\] [^\n]+\n(?! {2}fix:)/)
    expect(text).not.toContain('warning [')
  }, 60_000)

  it("a profile's levels apply; an unknown code names the nearest one and the profile's place; an error stays an error", async () => {
    const { diagnostics } = await dryRun('--config', 'quiet')
    expect(codes(diagnostics, 'note')).toEqual(['approval-unsupported', 'approval-unsupported'])
    expect(codes(diagnostics, 'warning')).toEqual(['codex-no-project-root', 'diagnostic-code-unknown', 'diagnostic-error-kept'])
    const unknown = diagnostics.find((d) => d.code === 'diagnostic-code-unknown')
    expect(unknown?.message).toContain('"tools-not-scope"')
    expect(unknown?.fix).toContain('Did you mean "tools-not-scoped"?')
    expect([unknown?.file, unknown?.line]).toEqual(['agents/registry.ts', registryLine])
    const kept = diagnostics.find((d) => d.code === 'diagnostic-error-kept')
    expect(kept?.message).toContain('"tool-name-invalid" is an error, and errors stay errors')
  }, 60_000)

  it('the command line wins over the profile, code by code', async () => {
    const { diagnostics } = await dryRun('--config', 'quiet', '--diagnostic', 'tools-not-scoped=warning', '--diagnostic', 'approval-unsupported=off')
    expect(codes(diagnostics, 'warning')).toContain('tools-not-scoped')
    expect(diagnostics.some((d) => d.code === 'approval-unsupported')).toBe(false)
  }, 60_000)

  it('a level that is none is a usage error', async () => {
    let err = ''
    const code = await main(['compile', 'agents/registry.ts:registry', '--root', project, '--diagnostic', 'tools-not-scoped=silent'], () => undefined, (t) => (err += t))
    expect(code).toBe(2)
    expect(err).toContain('--diagnostic takes <code>=<level>')
  })

  it('every code the playground reports is in the one list of codes', async () => {
    const { diagnostics } = await dryRun('--config', 'quiet')
    for (const diagnostic of diagnostics) expect(DIAGNOSTIC_CODES.has(diagnostic.code), diagnostic.code).toBe(true)
    expect(DIAGNOSTIC_CODES.get('codex-no-project-root')).toBe('warning')
  }, 60_000)
})
