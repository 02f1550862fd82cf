import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { compile } from '../../src/api.js'
import { OacError } from '../../src/diagnostics.js'
import { meaning, project } from '../import/project.js'

/** A project whose registry holds the skills written by `skills` (defineSkill calls), and its compile for `harnesses`. */
async function compileSkills(skills: string, harnesses: string[]) {
  const root = await project('oac-skill-fields-', {
    'agents/registry.ts': `import { defineRegistry, defineSkill } from 'unplugin-oac'\n\nexport const registry = defineRegistry({\n  agents: [],\n  skills: [\n${skills}\n  ],\n})\n`,
  })
  const compiled = await compile({ registry: 'agents/registry.ts:registry', root, target: 'out', harnesses: harnesses as never }).catch((error: unknown) => {
    if (error instanceof OacError) return { diagnostics: error.diagnostics }
    throw error
  })
  return { compiled, read: async (path: string) => meaning(await readFile(join(root, 'out', path), 'utf8')) }
}

const skill = (fields: string) => `    defineSkill({ name: 'notes', description: 'Keeps notes.', instructions: 'Write notes.', ${fields} }),`

describe("a skill's SKILL.md fields", () => {
  it("writes the format's fields into every harness's SKILL.md, and each harness's own keys where it reads the folder, after the user's allowed tools its own", async () => {
    const { compiled, read } = await compileSkills(
      skill(`license: 'MIT', compatibility: 'Needs git.', metadata: { author: 'acme' }, allowedTools: 'Bash(git:*) Read', harness: { claude: { 'user-invocable': false }, codex: { version: '1.0.0' }, pi: { version: '1.0.0' } }`),
      ['claude', 'codex', 'pi'],
    )
    expect(compiled.diagnostics.filter((d) => d.severity === 'error')).toEqual([])
    const format = { name: 'notes', description: 'Keeps notes.', license: 'MIT', compatibility: 'Needs git.', metadata: { author: 'acme' }, 'allowed-tools': 'Bash(git:*) Read' }
    expect(await read('.claude/skills/notes/SKILL.md')).toEqual({ data: { ...format, 'user-invocable': false }, body: 'Write notes.' })
    // Codex and pi read one folder: it carries the keys of both.
    expect(await read('.agents/skills/notes/SKILL.md')).toEqual({ data: { ...format, version: '1.0.0' }, body: 'Write notes.' })
  })

  it('reports each field out of the format, a harness key compile writes itself, and two values for one shared file', async () => {
    const { compiled } = await compileSkills(
      [
        skill(`metadata: { version: 2 } as never, compatibility: '${'x'.repeat(501)}', allowedTools: [''] }), defineSkill({ name: 'other', description: 'Other.', instructions: 'Other.', harness: { claude: { license: 'MIT' }, codex: { version: '1' }, pi: { version: '2' } }`),
      ].join('\n'),
      ['claude', 'codex', 'pi'],
    )
    const errors = compiled.diagnostics.filter((d) => d.severity === 'error')
    expect(errors.map((d) => [d.code, d.message])).toEqual([
      ['skill-field-invalid', 'Skill "notes"\'s compatibility is 501 characters; the Agent Skills format allows 500.'],
      ['skill-field-invalid', 'Skill "notes"\'s metadata.version is not a text.'],
      ['skill-field-invalid', 'Skill "notes"\'s allowedTools is not a text or a list of texts.'],
      ['skill-harness-field-reserved', 'Skill "other"\'s harness.claude sets "license", which compile writes from the skill\'s own fields.'],
      ['skill-harness-conflict', 'Skill "other" sets "version" to one value for Codex and another for pi, which read the same .agents/skills/other/SKILL.md.'],
    ])
    expect(errors.every((d) => d.file === 'agents/registry.ts')).toBe(true)
  })
})
