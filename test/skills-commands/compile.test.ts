import { readFile } from 'node:fs/promises'
import { join, resolve } from 'node:path'
import { describe, expect, it } from 'vitest'
import { compilePlan, type PlanOptions } from '../../src/compile/index.js'
import { loadRegistry } from '../../src/load/index.js'
import { markedFixture } from '../util/marked-fixture.js'
import { repoRoot } from '../util/project.js'

const root = resolve(repoRoot, 'test/fixtures/skills-commands')
const FILE = 'agents/registries.ts'

const fixture = markedFixture(root, FILE)
const { markedLine, failing, expectAt } = fixture

/** Compiles a registry that loads cleanly. */
async function compile(exportName: string, options: Partial<PlanOptions> = {}) {
  const result = await fixture.compile(exportName, options)
  expect(result.loaded.diagnostics).toEqual([])
  return result
}

describe('skills and commands in the plan', () => {
  it('plans a skill with its instructions and files read, its tools collected (by definition and by name), and a command with its agent', async () => {
    const { plan, loaded, diagnostics } = await compile('valid')
    expect(plan?.skills).toEqual([
      {
        name: 'weather-reports',
        description: 'Writes weather reports. Use when asked for a report.',
        instructions: await readFile(join(root, 'agents/skills/reports.md'), 'utf8'),
        tools: ['forecast', 'chart'],
        files: { 'templates/report.md': await readFile(join(root, 'agents/skills/template.md'), 'utf8'), 'notes.txt': 'Plain notes.' },
        modelInvocation: true,
        fields: {},
        harness: {},
        source: { file: FILE, line: await markedLine('skill-reports'), column: expect.any(Number) },
      },
    ])
    // The skill's tools get scripts like any other tool.
    expect(plan!.tools.map((tool) => tool.name).sort()).toEqual(['chart', 'forecast'])
    expect(plan?.commands).toEqual([
      {
        name: 'forecast',
        description: 'Forecast for a city',
        prompt: 'Get the forecast for {{args}} and summarise it.',
        argumentHint: '<city>',
        agent: 'planner',
        source: { file: FILE, line: await markedLine('command-forecast'), column: expect.any(Number) },
      },
    ])
    // Watch mode sees the instruction and extra files.
    expect(loaded.files).toEqual(expect.arrayContaining([join(root, 'agents/skills/reports.md'), join(root, 'agents/skills/template.md')]))
    // The harnesses whose command files cannot name an agent are named, once (and Codex's unscoped tools, as ever).
    expect(diagnostics.map((d) => d.code)).toEqual(['command-agent-unsupported', 'tools-not-scoped'])
    expect(diagnostics[0]!.message).toContain('Codex, pi, oh-my-pi, Gemini CLI, Qwen Code')
    await expectAt(diagnostics[0]!, 'command-forecast', { severity: 'warning' })
  })

  it('a registry without skills or commands keeps its plan as before (no skills or commands keys)', async () => {
    const { plan } = await compile('valid', { harnesses: ['claude'] })
    expect(plan).toHaveProperty('skills')
    const loaded = await loadRegistry('agents/registry.ts:registry', resolve(repoRoot, 'test/fixtures/compile-valid'))
    const bare = compilePlan(loaded, { root: resolve(repoRoot, 'test/fixtures/compile-valid') }).plan!
    expect(Object.keys(bare)).not.toContain('skills')
    expect(Object.keys(bare)).not.toContain('commands')
  })
})

describe('each invalid skill or command fails with a diagnostic at its definition', () => {
  it('a name outside the Agent Skills format, a description over 1,024 characters, and none', async () => {
    const result = await compile('badSkills')
    expect(result.plan).toBeUndefined()
    expect(result.diagnostics.map((d) => d.code)).toEqual(['skill-name-invalid', 'skill-description-long', 'skill-description-missing'])
    const [name, long, missing] = result.diagnostics
    await expectAt(name!, 'skill-name-invalid')
    expect(name!.message).toContain('"Weather_Reports"')
    expect(name!.fix).toContain('"weather-reports"')
    await expectAt(long!, 'skill-description-long')
    expect(long!.message).toContain('1025 characters')
    await expectAt(missing!, 'skill-description-missing')
  })

  it('two skills of one name, naming both places', async () => {
    const [d] = await failing('skillDuplicate', 'skill-duplicate')
    await expectAt(d!, 'skill-twin-b')
    expect(d!.message).toContain(`${FILE}:${await markedLine('skill-twin-a')}`)
  })

  it('extra files outside the folder or on a file unplugin-oac writes there', async () => {
    const found = await failing('skillFiles', 'skill-file-invalid')
    expect(found.map((d) => /file "([^"]+)"/.exec(d.message)?.[1])).toEqual(['../outside.md', 'SKILL.md', 'scripts/forecast.mjs'])
    for (const d of found) await expectAt(d, 'skill-file-invalid')
  })

  it("Claude Code's !`command` in a skill's text, only when Claude Code is selected", async () => {
    const [d] = await failing('skillShell', 'skill-placeholder')
    await expectAt(d!, 'skill-placeholder')
    expect(d!.message).toContain('!`rm -rf build`')
    expect(d!.message).toContain('which Claude Code reads as its own syntax when it loads the skill: there it is run as a shell command')
    expect((await compile('skillShell', { harnesses: ['codex', 'gemini', 'opencode'] })).plan).toBeDefined()
  })

  it('a skill tool that is another tool of a known name, or a name the registry lacks', async () => {
    const [duplicate] = await failing('skillToolDuplicate', 'tool-duplicate')
    expect(duplicate!.message).toContain('Two different tools are named "forecast"')
    const [unknown] = await failing('skillToolUnknown', 'skill-tool-unknown')
    await expectAt(unknown!, 'skill-tool-unknown')
  })

  it('a user-only skill warns for the harnesses that cannot keep it from the model', async () => {
    const { plan, diagnostics } = await compile('skillUserOnly')
    expect(plan?.skills?.[0]?.modelInvocation).toBe(false)
    expect(diagnostics.map((d) => d.code)).toEqual(['skill-user-only-unsupported'])
    await expectAt(diagnostics[0]!, 'skill-user-only', { severity: 'warning' })
    expect(diagnostics[0]!.message).toContain('opencode, Gemini CLI, Kilo')
    expect((await compile('skillUserOnly', { harnesses: ['claude', 'codex', 'pi', 'omp', 'copilot', 'qwen'] })).diagnostics).toEqual([])
  })

  it('prompt text a selected harness would fill in or run, naming the harnesses and their files, only for the selected ones', async () => {
    const found = await failing('commandPlaceholders', 'command-placeholder')
    const messages = found.map((d) => d.message)
    // `$1` is filled in by opencode, Kilo, pi and oh-my-pi (Claude Code's file escapes it); `!{` runs in Gemini CLI and Qwen Code.
    expect(messages.find((m) => m.startsWith('Command "dollars"'))).toMatch(/`\$1`, which opencode \(\.opencode\/command\/dollars\.md\) and pi \(\.pi\/prompts\/dollars\.md\) and oh-my-pi .* and Kilo .* read as its own syntax, with no escape for it: there it is filled in as an argument placeholder\./)
    expect(messages.find((m) => m.startsWith('Command "gemini"'))).toContain('`!{`, which Gemini CLI (.gemini/commands/gemini.toml) and Qwen Code (.qwen/commands/gemini.md) read as its own syntax, with no escape for it: there it is run as a shell command')
    // A backslash right before the placeholder would escape Claude Code's `$ARGUMENTS` itself.
    expect(messages.find((m) => m.startsWith('Command "glued"'))).toContain('`\\$ARGUMENTS`, which Claude Code (.claude/commands/glued.md)')
    for (const d of found) expect(d.line).toBeGreaterThan(0)
    await expectAt(found.find((d) => d.message.startsWith('Command "gemini"'))!, 'command-gemini')
    // Claude Code escapes `$1` and `$ARGUMENTS`; Codex's skill reads the text as written.
    expect((await compile('commandPlaceholders', { harnesses: ['claude', 'codex'] })).diagnostics.filter((d) => d.code === 'command-placeholder').map((d) => d.message)).toEqual([expect.stringContaining('Command "glued"')])
  })

  it('a command named like a skill, an agent the registry lacks, a bad name and no description', async () => {
    const [same] = await failing('commandSkillSameName', 'command-skill-same-name')
    await expectAt(same!, 'command-skill-same-name')
    expect(same!.message).toContain(`${FILE}:${await markedLine('skill-reports')}`)
    const [agent] = await failing('commandAgentUnknown', 'command-agent-unknown')
    expect(agent!.message).toContain('"stranger"')
    expect(agent!.message).toContain('(planner)')
    const result = await compile('commandInvalid')
    expect(result.diagnostics.map((d) => d.code)).toEqual(['command-name-invalid', 'command-description-missing'])
    for (const d of result.diagnostics) await expectAt(d, 'command-name-invalid')
  })

  it('a command without a description plans without one; a model that is not text and a harness entry that is not a map are errors', async () => {
    const found = await failing('commandFields', 'command-field-invalid')
    expect(found.map((d) => d.message)).toEqual([
      'Command "bad-fields"\'s model is neither a model id nor one per harness.',
      'Command "bad-fields"\'s harness is not a map of fields per harness.',
    ])
    for (const d of found) await expectAt(d, 'command-field-invalid')
    const result = await compile('commandUndescribed')
    expect(result.diagnostics).toEqual([])
    expect(result.plan!.commands).toEqual([{ name: 'undescribed', prompt: 'Summarise {{args}}.', source: expect.anything() }])
  })
})
