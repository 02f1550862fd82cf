import { describe, expect, it } from 'vitest'
import { importProject } from '../../src/import/index.js'
import { project as inFolder } from './project.js'

const project = (files: Record<string, string>) => inFolder('oac-import-fit-', files)

describe('oac import of definitions compile would refuse', () => {
  it('lists a command whose file name is no command name, and an agent without a description, and keeps the rest', async () => {
    // Shapes met in public projects: a README among the commands, spec-kit's dotted names (carried), an agent file with only a name.
    const root = await project({
      '.opencode/command/README.md': 'These commands review and release.\n',
      '.opencode/command/speckit.plan.md': '---\ndescription: Plans a feature.\n---\nPlan $ARGUMENTS.\n',
      '.opencode/command/review.md': '---\ndescription: Reviews a change.\n---\nReview $ARGUMENTS.\n',
      '.opencode/agent/implementer.md': '---\nmode: subagent\n---\nImplement the plan.\n',
      '.opencode/agent/reviewer.md': '---\ndescription: Reviews diffs.\nmode: subagent\n---\nReview the diff.\n',
    })
    const result = await importProject(root, { from: ['opencode'] })
    expect(result.registry.commands.map((command) => command.name)).toEqual(['review', 'speckit.plan'])
    expect(result.registry.agents.map((agent) => agent.name)).toEqual(['reviewer'])
    const listed = result.notCarried.map((item) => `${item.at.file}:${item.at.line} ${item.what}: ${item.why}`)
    expect(listed).toContain('.opencode/command/README.md:1 command "README": its name must be lowercase letters and digits, in words joined by "-", "_" or "." (none first or last), with a namespace before ":" where it has one ("git:commit"), as every command definition\'s must; rename the file (or the skill\'s `name`) and import again')
    expect(listed.some((line) => line.includes('speckit'))).toBe(false)
    expect(listed).toContain('.opencode/agent/implementer.md:1 agent "implementer": it has no description, which every agent definition needs (a harness shows it to choose the agent); add one to the file and import again')
    expect(result.files.find((file) => file.path === 'agents/registry.ts')!.content).not.toContain('implementer')
  })

  it('lists the agents/openai.yaml of a skill folder that says more than its policy, since compile writes that file itself', async () => {
    const root = await project({
      '.agents/skills/observability/SKILL.md': '---\nname: observability\ndescription: Shows token usage.\n---\nRead the usage logs.\n',
      '.agents/skills/observability/agents/openai.yaml': 'interface:\n  display_name: "Observability"\n',
      '.agents/skills/observability/notes.md': 'Costs are per million tokens.\n',
    })
    const result = await importProject(root, { from: ['codex'] })
    expect(result.registry.skills.map((skill) => [skill.name, Object.keys(skill.files), skill.modelInvocation])).toEqual([['observability', ['notes.md'], true]])
    expect(result.notCarried.map((item) => `${item.at.file} ${item.what}`)).toContain('.agents/skills/observability/agents/openai.yaml the file "agents/openai.yaml" of skill "observability"')
  })

  it("lists a command whose text a harness would read as its own syntax with no placeholder of a definition's for it, and keeps the rest", async () => {
    const root = await project({
      // Claude Code runs a "```!" block; no definition says one.
      '.claude/commands/status.md': '---\ndescription: Summarises the working tree.\n---\n```!\ngit status\n```\n',
      // `$5` is text to Claude Code (no sixth word) but a placeholder to opencode: `$5.00` stays text in Claude Code alone.
      '.claude/commands/price.md': '---\ndescription: Prices a plan.\n---\nPrice it at \\$5.00.\n',
      '.claude/commands/fix.md': '---\ndescription: Fixes an issue.\n---\nFix issue $ARGUMENTS.\n',
    })
    const result = await importProject(root, { from: ['claude'] })
    expect(result.registry.commands.map((command) => command.name)).toEqual(['fix'])
    const listed = result.notCarried.map((item) => `${item.at.file} ${item.what}: ${item.why}`)
    expect(listed.some((line) => line.startsWith('.claude/commands/status.md command "status": its text has ````!`, which '))).toBe(true)
    expect(listed.some((line) => line.startsWith('.claude/commands/price.md command "price": '))).toBe(true)
  })
})
