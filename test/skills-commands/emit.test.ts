import { resolve } from 'node:path'
import fc from 'fast-check'
import { parse as parseToml } from 'smol-toml'
import { beforeAll, describe, expect, it } from 'vitest'
import { parse as parseYaml } from 'yaml'
import { compilePlan } from '../../src/compile/index.js'
import { harness } from '../../src/compile/harnesses/index.js'
import type { Plan } from '../../src/compile/plan.js'
import { skillFolders } from '../../src/compile/skills.js'
import { type Harness, HARNESSES } from '../../src/define/types.js'
import { emitAll } from '../../src/emit/index.js'
import type { OutputFile } from '../../src/emit/types.js'
import { loadRegistry } from '../../src/load/index.js'
import { repoRoot } from '../util/project.js'

const root = resolve(repoRoot, 'test/fixtures/skills-commands')

let valid: Plan
beforeAll(async () => {
  const loaded = await loadRegistry('agents/registries.ts:valid', root)
  valid = compilePlan(loaded, { root }).plan!
})

/** The plan of the fixture's valid registry for `harnesses`, with `change` applied. */
function planFor(harnesses: Harness[], change: (plan: Plan) => Plan = (plan) => plan): Plan {
  return change({ ...valid, harnesses })
}

function content(files: OutputFile[], path: string): string {
  const file = files.find((f) => f.path === path)
  if (file?.kind !== 'owned') throw new Error(`no owned file ${path} among:\n${files.map((f) => f.path).join('\n')}`)
  return file.content
}

function splitMarkdown(text: string): { frontmatter: Record<string, unknown>; body: string } {
  const match = /^---\n([\s\S]*?)\n---\n\n([\s\S]*)$/.exec(text)
  if (!match) throw new Error(`no frontmatter in:\n${text}`)
  return { frontmatter: parseYaml(match[1]!) as Record<string, unknown>, body: match[2]! }
}

const skillPaths = (files: OutputFile[]) => files.map((f) => f.path).filter((path) => path.includes('/skills/weather-reports/')).sort()

describe('where skills land', () => {
  it('.agents/skills for every harness that reads it, .claude/skills for Claude Code, which reads only that', () => {
    expect(Object.fromEntries(skillFolders(HARNESSES))).toEqual({
      '.agents/skills': ['opencode', 'codex', 'pi', 'omp', 'gemini', 'copilot', 'qwen', 'kilo', 'cline'],
      '.claude/skills': ['claude'],
    })
    expect([...skillFolders(['claude']).keys()]).toEqual(['.claude/skills'])
    expect([...skillFolders(['gemini', 'opencode']).keys()]).toEqual(['.agents/skills'])
  })

  it('in every choice of harnesses, each selected harness reads a written folder, and one that reads two shows a skill once (its folders name the winner first)', () => {
    fc.assert(
      fc.property(fc.subarray([...HARNESSES], { minLength: 1 }), (harnesses) => {
        const written = [...skillFolders(harnesses).keys()]
        for (const id of harnesses) {
          const read = harness(id).skills.folders.filter((folder) => written.includes(folder))
          expect(read.length, id).toBeGreaterThan(0)
          // The description lists each folder it reads once, the winner of a name clash first.
          expect(new Set(harness(id).skills.folders).size).toBe(harness(id).skills.folders.length)
        }
      }),
    )
  })

  it("a skill's folder: SKILL.md, a launcher per tool at the script's own path, and its extra files", () => {
    const files = emitAll(planFor(['claude', 'gemini']))
    expect(skillPaths(files)).toEqual([
      '.agents/skills/weather-reports/SKILL.md',
      '.agents/skills/weather-reports/notes.txt',
      '.agents/skills/weather-reports/scripts/chart.mjs',
      '.agents/skills/weather-reports/scripts/forecast.mjs',
      '.agents/skills/weather-reports/templates/report.md',
      '.claude/skills/weather-reports/SKILL.md',
      '.claude/skills/weather-reports/notes.txt',
      '.claude/skills/weather-reports/scripts/chart.mjs',
      '.claude/skills/weather-reports/scripts/forecast.mjs',
      '.claude/skills/weather-reports/templates/report.md',
    ])
    expect(content(files, '.agents/skills/weather-reports/templates/report.md')).toBe(valid.skills![0]!.files['templates/report.md'])
    // The launcher finds the project four folders up, from its own place.
    expect(content(files, '.agents/skills/weather-reports/scripts/forecast.mjs')).toContain('new URL("../../../../", import.meta.url)')
    expect(content(files, '.agents/skills/weather-reports/scripts/forecast.mjs')).toContain('new URL("scripts/forecast.mjs", project)')
  })

  it('SKILL.md: the Agent Skills frontmatter, the instructions, then each tool documented as its command (and nothing of the tools it does not have)', () => {
    const files = emitAll(planFor(['gemini']))
    const { frontmatter, body } = splitMarkdown(content(files, '.agents/skills/weather-reports/SKILL.md'))
    expect(frontmatter).toEqual({ name: 'weather-reports', description: valid.skills![0]!.description })
    expect(body.startsWith(valid.skills![0]!.instructions)).toBe(true)
    expect(body).toContain('## Tools\n\n### forecast')
    expect(body).toContain('```bash\nnode scripts/forecast.mjs --city <string>\n```')
    expect(body).toContain('### chart')
    expect(body).toContain("with this skill's folder before `scripts/`")
    // Shared by every harness: no native tool name of any one of them.
    expect(body).not.toContain('mcp_')
    expect(body.match(/^### /gm)).toHaveLength(2)
  })

  it("Claude Code's copy: allowed-tools for its commands, and `$1` kept as written with Claude Code's escape; the shared copy as written", () => {
    const files = emitAll(planFor(['claude', 'opencode']))
    const claude = splitMarkdown(content(files, '.claude/skills/weather-reports/SKILL.md'))
    expect(claude.frontmatter['allowed-tools']).toBe(
      'Bash(node scripts/forecast.mjs:*), Bash(node */.claude/skills/weather-reports/scripts/forecast.mjs *), Bash(node scripts/chart.mjs:*), Bash(node */.claude/skills/weather-reports/scripts/chart.mjs *)',
    )
    expect(claude.body).toContain('A chart costs \\$1 per call')
    const shared = splitMarkdown(content(files, '.agents/skills/weather-reports/SKILL.md'))
    expect(shared.frontmatter).not.toHaveProperty('allowed-tools')
    expect(shared.body).toContain('A chart costs $1 per call')
  })

  it("a user-only skill: disable-model-invocation in SKILL.md, and Codex's agents/openai.yaml where Codex reads the folder", () => {
    const userOnly = (plan: Plan): Plan => ({ ...plan, skills: plan.skills!.map((skill) => ({ ...skill, modelInvocation: false })) })
    const files = emitAll(planFor(['claude', 'codex'], userOnly))
    expect(splitMarkdown(content(files, '.claude/skills/weather-reports/SKILL.md')).frontmatter['disable-model-invocation']).toBe(true)
    expect(splitMarkdown(content(files, '.agents/skills/weather-reports/SKILL.md')).frontmatter['disable-model-invocation']).toBe(true)
    expect(parseYaml(content(files, '.agents/skills/weather-reports/agents/openai.yaml'))).toEqual({ policy: { allow_implicit_invocation: false } })
    expect(files.map((f) => f.path)).not.toContain('.claude/skills/weather-reports/agents/openai.yaml')
    expect(emitAll(planFor(['pi'], userOnly)).map((f) => f.path)).not.toContain('.agents/skills/weather-reports/agents/openai.yaml')
  })
})

describe('command files, one per harness format', () => {
  const files = () => emitAll(planFor([...HARNESSES]))

  it('writes each command file once, at the path its harness reads', () => {
    const paths = files().map((f) => f.path).filter((path) => /\/(?:commands?|prompts)\/forecast\.|\/skills\/forecast\/SKILL\.md$/.test(path))
    expect(paths.sort()).toEqual([
      '.claude/commands/forecast.md',
      '.codex/skills/forecast/SKILL.md',
      '.gemini/commands/forecast.toml',
      '.github/prompts/forecast.prompt.md',
      '.kilo/command/forecast.md',
      '.omp/commands/forecast.md',
      '.opencode/command/forecast.md',
      '.pi/prompts/forecast.md',
      '.qwen/commands/forecast.md',
    ])
  })

  it.each([
    ['.claude/commands/forecast.md', { description: 'Forecast for a city', 'argument-hint': '<city>', context: 'fork', agent: 'planner' }, '$ARGUMENTS'],
    ['.github/prompts/forecast.prompt.md', { description: 'Forecast for a city', 'argument-hint': '<city>', agent: 'planner' }, '${input:args}'],
    ['.opencode/command/forecast.md', { description: 'Forecast for a city', agent: 'planner' }, '$ARGUMENTS'],
    ['.kilo/command/forecast.md', { description: 'Forecast for a city', agent: 'planner' }, '$ARGUMENTS'],
    ['.qwen/commands/forecast.md', { description: 'Forecast for a city', 'argument-hint': '<city>' }, '{{args}}'],
    ['.pi/prompts/forecast.md', { description: 'Forecast for a city', 'argument-hint': '<city>' }, '$ARGUMENTS'],
    ['.omp/commands/forecast.md', { description: 'Forecast for a city', 'argument-hint': '<city>' }, '$ARGUMENTS'],
    // A Cline workflow has no placeholder: Cline sends its text with the user's text after it, which the prompt points to.
    ['.cline/workflows/forecast.md', { description: 'Forecast for a city' }, 'the text at the end of this message'],
  ])('%s: its frontmatter fields and the arguments as %s', (path, frontmatter, args) => {
    const command = splitMarkdown(content(files(), path))
    expect(command.frontmatter).toEqual(frontmatter)
    expect(command.body).toBe(`Get the forecast for ${args} and summarise it.\n`)
  })

  it('Gemini CLI: TOML with description and prompt, {{args}} as Gemini CLI writes it', () => {
    expect(parseToml(content(files(), '.gemini/commands/forecast.toml'))).toEqual({ description: 'Forecast for a city', prompt: 'Get the forecast for {{args}} and summarise it.' })
  })

  it('Codex: a skill the user starts with $forecast, kept from the model by agents/openai.yaml (and from oh-my-pi by disable-model-invocation)', () => {
    const skill = splitMarkdown(content(files(), '.codex/skills/forecast/SKILL.md'))
    expect(skill.frontmatter).toEqual({ name: 'forecast', description: 'Forecast for a city', 'disable-model-invocation': true })
    expect(skill.body).toBe("Get the forecast for the text after `$forecast` in the user's message and summarise it.\n")
    expect(parseYaml(content(files(), '.codex/skills/forecast/agents/openai.yaml'))).toEqual({ policy: { allow_implicit_invocation: false } })
  })

  it("Claude Code's escape keeps `$1` and `$ARGUMENTS` of the text as written", () => {
    const plan = planFor(['claude'], (p) => ({ ...p, commands: [{ ...p.commands![0]!, prompt: 'Pay $1 for $ARGUMENTS[0] of {{args}}; $$ARGUMENTS.' }] }))
    expect(splitMarkdown(content(emitAll(plan), '.claude/commands/forecast.md')).body).toBe('Pay \\$1 for \\$ARGUMENTS[0] of $ARGUMENTS; $\\$ARGUMENTS.\n')
  })

  it("a model where the command file names one, per harness when given so, and a harness's own keys in its file alone", () => {
    const all: Harness[] = ['claude', 'copilot', 'opencode', 'kilo', 'gemini', 'pi']
    const withModel = (model: NonNullable<Plan['commands']>[number]['model']) =>
      emitAll(planFor(all, (p) => ({ ...p, commands: [{ ...p.commands![0]!, model, harness: { claude: { 'allowed-tools': 'Bash(git:*)' }, gemini: { note: 'kept' } } }] })))
    const one = withModel('sonnet')
    expect(splitMarkdown(content(one, '.claude/commands/forecast.md')).frontmatter).toMatchObject({ model: 'sonnet', 'allowed-tools': 'Bash(git:*)' })
    expect(splitMarkdown(content(one, '.github/prompts/forecast.prompt.md')).frontmatter.model).toBe('sonnet')
    expect(splitMarkdown(content(one, '.opencode/command/forecast.md')).frontmatter.model).toBe('sonnet')
    expect(splitMarkdown(content(one, '.pi/prompts/forecast.md')).frontmatter).not.toHaveProperty('model')
    expect(splitMarkdown(content(one, '.opencode/command/forecast.md')).frontmatter).not.toHaveProperty('allowed-tools')
    expect(parseToml(content(one, '.gemini/commands/forecast.toml'))).toEqual({ description: 'Forecast for a city', note: 'kept', prompt: 'Get the forecast for {{args}} and summarise it.' })
    const perHarness = withModel({ opencode: 'anthropic/claude-sonnet-4-5' })
    expect(splitMarkdown(content(perHarness, '.opencode/command/forecast.md')).frontmatter.model).toBe('anthropic/claude-sonnet-4-5')
    expect(splitMarkdown(content(perHarness, '.kilo/command/forecast.md')).frontmatter).not.toHaveProperty('model')
    expect(splitMarkdown(content(perHarness, '.claude/commands/forecast.md')).frontmatter).not.toHaveProperty('model')
  })

  it('no command files and no skill folders for a plan without them', () => {
    const bare = emitAll({ ...valid, skills: undefined, commands: undefined })
    expect(bare.filter((f) => /\/(skills|commands|command|prompts)\//.test(f.path) && !f.path.startsWith('prompts/'))).toEqual([])
  })
})
