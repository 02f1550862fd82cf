import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { compile } from '../../src/api.js'
import { importProject, writeNewFiles } from '../../src/import/index.js'
import { project as inFolder, meaning } from './project.js'

const project = (files: Record<string, string>) => inFolder('oac-import-skill-fields-', files)

// The Agent Skills format's optional fields, a list of allowed tools, and two keys of Claude Code's own.
const RELEASE = [
  '---',
  'name: release',
  'description: Cuts a release. Use when asked to publish.',
  'license: MIT',
  'compatibility: Requires git and network access.',
  'metadata:',
  '  author: acme',
  '  version: "2.0.0"',
  'allowed-tools:',
  '  - Bash(git *)',
  '  - Read',
  'user-invocable: false',
  'version: 1.2.0',
  '---',
  'Tag the release and push it.',
  '',
].join('\n')
// A skill of the shared folder, with a key of the harness that read it.
const REVIEW = '---\nname: review\ndescription: Reviews a change.\nlicense: Apache-2.0\nmetadata:\n  audience: developers\nrelated: release\n---\nRead the diff and comment.\n'

describe('oac import of SKILL.md fields', () => {
  it("carries the format's fields into every SKILL.md and a harness's own keys into its own, round-trip whole", async () => {
    const root = await project({ '.claude/skills/release/SKILL.md': RELEASE, '.agents/skills/review/SKILL.md': REVIEW })
    const result = await importProject(root, { from: ['claude', 'codex'] })
    expect(result.notCarried).toEqual([])
    const skills = Object.fromEntries(result.registry.skills.map((skill) => [skill.name, skill]))
    expect(skills.release).toMatchObject({
      license: 'MIT',
      compatibility: 'Requires git and network access.',
      metadata: { author: 'acme', version: '2.0.0' },
      allowedTools: ['Bash(git *)', 'Read'],
      harness: { claude: { 'user-invocable': false, version: '1.2.0' } },
    })
    expect(skills.review).toMatchObject({ license: 'Apache-2.0', metadata: { audience: 'developers' }, harness: { codex: { related: 'release' } } })

    await writeNewFiles(root, result.files, '')
    const compiled = await compile({ registry: 'agents/registry.ts:registry', root, target: 'back', harnesses: ['claude', 'codex', 'opencode'] })
    expect(compiled.diagnostics.filter((d) => d.severity === 'error')).toEqual([])
    const read = async (path: string) => meaning(await readFile(join(root, 'back', path), 'utf8'))
    // In the harness it came from, what the file said, field for field.
    expect(await read('.claude/skills/release/SKILL.md')).toEqual(meaning(RELEASE))
    expect(await read('.agents/skills/review/SKILL.md')).toEqual(meaning(REVIEW))
    // Elsewhere the format's fields, without Claude Code's own keys.
    const shared = await read('.agents/skills/release/SKILL.md')
    expect(shared.data).toEqual({
      name: 'release',
      description: 'Cuts a release. Use when asked to publish.',
      license: 'MIT',
      compatibility: 'Requires git and network access.',
      metadata: { author: 'acme', version: '2.0.0' },
      'allowed-tools': ['Bash(git *)', 'Read'],
    })
    // Claude Code reads only its own folder: the shared folder's key of Codex's is not written there.
    expect(await read('.claude/skills/review/SKILL.md')).toEqual(meaning(REVIEW.replace('related: release\n', '')))
  })

  it('lists a field in a shape the format does not give it, naming the file and line', async () => {
    const root = await project({ '.claude/skills/odd/SKILL.md': '---\nname: odd\ndescription: Odd.\nmetadata:\n  version: 2\n---\nText.\n' })
    const result = await importProject(root, { from: ['claude'] })
    expect(result.notCarried).toEqual([
      { at: { file: '.claude/skills/odd/SKILL.md', line: 4 }, what: '`metadata` of skill "odd"', why: 'its value is not in the shape the Agent Skills format gives it (text keys to text values; quote a number)' },
    ])
  })
})
