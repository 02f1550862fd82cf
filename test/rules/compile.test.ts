import { readFile } from 'node:fs/promises'
import { join, resolve } from 'node:path'
import { describe, expect, it } from 'vitest'
import { compilePlan } from '../../src/compile/index.js'
import { loadRegistry } from '../../src/load/index.js'
import { markedFixture } from '../util/marked-fixture.js'
import { repoRoot } from '../util/project.js'

const root = resolve(repoRoot, 'test/fixtures/rules')
const FILE = 'agents/registries.ts'

const { markedLine, compile, failing, expectAt } = markedFixture(root, FILE)

describe('rules in the plan', () => {
  it('plans an always-on rule and a path rule (its text read from its file), and warns where a harness cannot scope by path', async () => {
    const { plan, loaded, diagnostics } = await compile('valid')
    expect(diagnostics.filter((d) => d.severity === 'error')).toEqual([])
    expect(plan?.rules).toEqual([
      { name: 'house-style', description: 'How we answer.', text: 'Answer in short sentences.', source: { file: FILE, line: await markedLine('rule-house-style'), column: expect.any(Number) } },
      {
        name: 'testing',
        description: 'How we write tests.',
        text: await readFile(join(root, 'agents/rules/testing.md'), 'utf8'),
        paths: ['**/*.test.ts', 'test/**'],
        source: { file: FILE, line: await markedLine('rule-testing'), column: expect.any(Number) },
      },
    ])
    expect(loaded.files).toContain(join(root, 'agents/rules/testing.md'))
    // opencode, Codex, pi, Gemini CLI and Kilo have no path-scoped rules (docs/instructions.md).
    expect(diagnostics).toHaveLength(1)
    expect(diagnostics[0]).toMatchObject({ code: 'rule-paths-unscoped' })
    expect(diagnostics[0]!.message).toContain('opencode, Codex, pi, Gemini CLI, Kilo, Cline cannot scope a rule by path')
    await expectAt(diagnostics[0]!, 'rule-testing', { severity: 'warning' })
    // With only harnesses that scope by path, nothing to warn about.
    expect((await compile('valid', { harnesses: ['claude', 'copilot', 'qwen', 'omp'] })).diagnostics).toEqual([])
  })

  it("a config's rules pick rules by name; an unknown name is an error", async () => {
    expect((await compile('valid', { config: 'style' })).plan?.rules?.map((rule) => rule.name)).toEqual(['house-style'])
    const [unknown] = await failing('valid', 'config-rule-unknown', { config: 'unknown' })
    expect(unknown!.message).toContain('"nope"')
    expect(unknown!.fix).toContain('house-style, testing')
  })

  it('a registry without rules keeps its plan as before (no rules key)', async () => {
    const fixture = resolve(repoRoot, 'test/fixtures/compile-valid')
    const bare = compilePlan(await loadRegistry('agents/registry.ts:registry', fixture), { root: fixture }).plan!
    expect(Object.keys(bare)).not.toContain('rules')
  })

  it('reports a bad name, a missing description, an empty text and a text holding our marker, each at its definition', async () => {
    const result = await compile('badRules')
    expect(result.plan).toBeUndefined()
    const codes = result.diagnostics.map((d) => d.code)
    expect(codes).toEqual(['rule-name-invalid', 'rule-description-missing', 'rule-text-empty', 'rule-text-marker'])
    for (const d of result.diagnostics) await expectAt(d, d.code)
  })

  it('reports an unreadable text file at the definition, with the path it tried', async () => {
    const { loaded } = await compile('missingFile')
    expect(loaded.diagnostics).toHaveLength(1)
    expect(loaded.diagnostics[0]).toMatchObject({ code: 'prompt-file-missing', file: FILE, line: await markedLine('rule-file-missing') })
    expect(loaded.diagnostics[0]!.message).toContain('text file of rule "missing"')
    expect(loaded.diagnostics[0]!.message).toContain('agents/rules/missing.md')
  })

  it('reports two rules of one name', async () => {
    const [d] = await failing('ruleDuplicate', 'rule-duplicate')
    await expectAt(d!, 'rule-twin-b')
    expect(d!.message).toContain(`${FILE}:${await markedLine('rule-twin-a')}`)
  })

  it('reports globs no harness reads: absolute, with "..", with a backslash, negated; and an empty paths list', async () => {
    const found = await failing('badGlobs', 'rule-glob-invalid')
    expect(found.map((d) => d.message.match(/glob "([^"]+)"/)?.[1])).toEqual(['/abs/**', '../up/*.ts', 'src\\a.ts', '!skip/**'])
    for (const d of found) await expectAt(d, 'rule-glob-invalid')
    await expectAt((await failing('emptyPaths', 'rule-paths-invalid'))[0]!, 'rule-paths-invalid')
  })

  it("reports a comma in a glob only where Copilot's comma-joined applyTo would split it", async () => {
    const [d] = await failing('braceGlob', 'rule-glob-comma')
    expect(d!.message).toContain('GitHub Copilot (`applyTo`)')
    await expectAt(d!, 'rule-glob-comma')
    expect((await compile('braceGlob', { harnesses: ['claude', 'qwen'] })).plan?.rules?.[0]?.paths).toEqual(['src/**/*.{ts,tsx}'])
  })

  it('warns about an `@file` line the importing harnesses would inline, naming them; an address is no import', async () => {
    const { plan, diagnostics } = await compile('importing')
    expect(plan?.rules).toHaveLength(1)
    expect(diagnostics.map((d) => d.code)).toEqual(['rule-text-expanded'])
    expect(diagnostics[0]!.message).toContain('`@d`')
    expect(diagnostics[0]!.message).toContain('Claude Code, Gemini CLI, GitHub Copilot, Qwen Code read as its own syntax')
    await expectAt(diagnostics[0]!, 'rule-text-expanded', { severity: 'warning' })
    expect((await compile('importing', { harnesses: ['codex', 'opencode'] })).diagnostics).toEqual([])
  })

  it("warns, naming the rule that passes it, when the rules' text passes Codex's 32 KiB cap", async () => {
    const { diagnostics } = await compile('overCap')
    expect(diagnostics.map((d) => d.code)).toEqual(['rule-instructions-cap'])
    expect(diagnostics[0]!.message).toContain('with rule "second" the rules\' text alone is 40000 bytes')
    expect(diagnostics[0]!.fix).toContain('project_doc_max_bytes')
    await expectAt(diagnostics[0]!, 'rule-instructions-cap', { severity: 'warning' })
    expect((await compile('overCap', { harnesses: ['claude'] })).diagnostics).toEqual([])
  })
})
