import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { parse as parseToml } from 'smol-toml'
import { describe, expect, it } from 'vitest'
import { compile } from '../../src/api.js'
import { HARNESSES } from '../../src/define/types.js'
import { OacError } from '../../src/diagnostics.js'
import { importProject, writeNewFiles } from '../../src/import/index.js'
import { project as inFolder, meaning } from './project.js'

const project = (files: Record<string, string>) => inFolder('oac-import-command-names-', files)

const COMMIT = '---\ndescription: Writes a commit message.\n---\nWrite a commit message for $ARGUMENTS.\n'
const PLAN = '---\ndescription: Plans the feature.\n---\nPlan $ARGUMENTS.\n'
const FIX = '---\ndescription: Fixes an issue.\n---\nFix issue $ARGUMENTS.\n'

describe('namespaced, dotted and underscored command names', () => {
  it('imports a subfolder as a namespace and writes each name in every harness\'s own form, warning where the user types another', async () => {
    const root = await project({
      '.claude/commands/git/commit.md': COMMIT,
      '.claude/commands/speckit.plan.md': PLAN,
      '.claude/commands/fix_issue.md': FIX,
      // opencode's copy of the same command is the same definition.
      '.opencode/command/git/commit.md': '---\ndescription: Writes a commit message.\n---\nWrite a commit message for $ARGUMENTS.\n',
    })
    const result = await importProject(root, { from: ['claude', 'opencode'] })
    expect(result.notCarried).toEqual([])
    expect(result.registry.commands.map((command) => command.name)).toEqual(['fix_issue', 'git:commit', 'speckit.plan'])
    // The prompt is a file in a folder of the namespace, as the harnesses have it.
    expect(result.files.map((file) => file.path)).toContain('agents/commands/git/commit.md')

    await writeNewFiles(root, result.files, '')
    const compiled = await compile({ registry: 'agents/registry.ts:registry', root, target: 'back', harnesses: [...HARNESSES] })
    expect(compiled.diagnostics.filter((d) => d.severity === 'error')).toEqual([])
    const read = (path: string) => readFile(join(root, 'back', path), 'utf8')

    // Where a subfolder is a namespace, the command is in it: Claude Code and the Copilot CLI, Gemini CLI, Qwen Code, opencode, Kilo.
    expect(meaning(await read('.claude/commands/git/commit.md'))).toEqual(meaning(COMMIT))
    const toml = parseToml(await read('.gemini/commands/git/commit.toml'))
    expect({ ...toml, prompt: String(toml.prompt).trim() }).toEqual({ description: 'Writes a commit message.', prompt: 'Write a commit message for {{args}}.' })
    expect(meaning(await read('.qwen/commands/git/commit.md')).body).toBe('Write a commit message for {{args}}.')
    for (const folder of ['.opencode/command', '.kilo/command']) expect(meaning(await read(`${folder}/git/commit.md`))).toEqual(meaning(COMMIT))
    // Where one folder holds every command, one flat name.
    for (const path of ['.pi/prompts/git-commit.md', '.omp/commands/git-commit.md', '.github/prompts/git-commit.prompt.md', '.cline/workflows/git-commit.md']) {
      expect(compiled.files.some((file) => file.path === path), path).toBe(true)
    }
    const skill = meaning(await read('.codex/skills/git-commit/SKILL.md'))
    expect(skill.data).toMatchObject({ name: 'git-commit' })
    expect(skill.body).toContain('the text after `$git-commit`')
    // A dot and an underscore are a file's name as it is, except in Codex, whose `$name` ends at a dot.
    expect(meaning(await read('.claude/commands/speckit.plan.md'))).toEqual(meaning(PLAN))
    expect(meaning(await read('.pi/prompts/speckit.plan.md')).body).toBe('Plan $ARGUMENTS.')
    expect(meaning(await read('.codex/skills/speckit-plan/SKILL.md')).data).toMatchObject({ name: 'speckit-plan' })
    expect(meaning(await read('.claude/commands/fix_issue.md'))).toEqual(meaning(FIX))
    expect(meaning(await read('.codex/skills/fix_issue/SKILL.md')).data).toMatchObject({ name: 'fix_issue' })

    const changed = compiled.diagnostics.filter((d) => d.code === 'command-name-changed')
    expect(changed.map((d) => d.severity)).toEqual(['warning', 'warning'])
    const commit = changed.find((d) => d.message.startsWith('Command "git:commit"'))!
    expect(commit.message).toContain('/git/commit in opencode and Kilo')
    expect(commit.message).toContain('/git-commit in pi, oh-my-pi, GitHub Copilot (VS Code), and Cline')
    expect(commit.message).toContain('$git-commit in Codex')
    expect(commit.message).not.toContain('Claude Code')
    const plan = changed.find((d) => d.message.startsWith('Command "speckit.plan"'))!
    expect(plan.message).toBe('Command "speckit.plan" is started as $speckit-plan in Codex: each harness takes only some characters in a command\'s name.')
  })

  it('stops the build where two commands would be one file in a harness', async () => {
    const root = await project({ '.claude/commands/git/commit.md': COMMIT, '.claude/commands/git-commit.md': COMMIT })
    const result = await importProject(root, { from: ['claude'] })
    await writeNewFiles(root, result.files, '')
    const claudeOnly = await compile({ registry: 'agents/registry.ts:registry', root, target: 'back', harnesses: ['claude'] })
    expect(claudeOnly.diagnostics.filter((d) => d.severity === 'error')).toEqual([])
    const withPi = await compile({ registry: 'agents/registry.ts:registry', root, target: 'again', harnesses: ['claude', 'pi'] }).catch((error: unknown) => error)
    expect(withPi).toBeInstanceOf(OacError)
    const collision = (withPi as OacError).diagnostics.filter((d) => d.code === 'command-name-collision')
    expect(collision).toHaveLength(1)
    expect(collision[0]).toMatchObject({ severity: 'error', file: 'agents/registry.ts' })
    expect(collision[0]!.message).toMatch(/^Commands "git-commit" \(agents\/registry\.ts:\d+\) and "git:commit" are one file for pi, \.pi\/prompts\/git-commit\.md/)
    expect(await readFile(join(root, 'again/.claude/commands/git/commit.md'), 'utf8').catch(() => 'not written')).toBe('not written')
  })

  it('lists a name no harness starts as written, and a subfolder command whose frontmatter even Claude Code cannot read, and imports the rest', async () => {
    const root = await project({
      '.claude/commands/Git/Commit.md': COMMIT,
      '.claude/commands/a..b.md': COMMIT,
      // Met in a public project: two quoted scalars on one line.
      '.claude/commands/ops/deploy.md': '---\ndescription: Deploys.\nargument-hint: "[profile]" "[env]"\n---\nDeploy $ARGUMENTS.\n',
      '.claude/commands/ops/status.md': '---\ndescription: Shows the status.\n---\nShow the status of $ARGUMENTS.\n',
    })
    const result = await importProject(root, { from: ['claude'] })
    expect(result.registry.commands.map((command) => command.name)).toEqual(['ops:status'])
    expect(result.notCarried.map((item) => `${item.at.file} ${item.what}`).sort()).toEqual([
      '.claude/commands/Git/Commit.md command "Git:Commit"',
      '.claude/commands/a..b.md command "a..b"',
      '.claude/commands/ops/deploy.md command "ops:deploy"',
    ])
    expect(result.notCarried.find((item) => item.what === 'command "ops:deploy"')!.why).toContain('its frontmatter is not YAML, even as the harness repairs it')
  })
})
