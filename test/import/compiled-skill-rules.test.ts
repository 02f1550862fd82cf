import { readFile, symlink } from 'node:fs/promises'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { compile } from '../../src/api.js'
import { importProject } from '../../src/import/index.js'
import { repoRoot } from '../util/project.js'
import { meaning, project, withoutManifest } from './project.js'

/*
 * A skill with tools, compiled into a project, ends its Claude Code `allowed-tools` with the rules that
 * let its commands run unasked (`Bash(node scripts/<tool>.mjs:*)`, and one for the skill's copy of the
 * script). Importing that project without the manifest that names the files compile's (which would list
 * the skill as compiled: compiled-tree.test.ts) gives the skill back with the user's own entries alone,
 * and without the copies of the scripts.
 */

/** A registry whose skill "forecasting" has two tools, and `allowedTools` as `given` (a JavaScript expression) says. */
function registry(given: string | undefined): string {
  return `import { z } from 'zod'
import { defineRegistry, defineSkill, defineTool } from 'unplugin-oac'
const city = z.object({ city: z.string().describe('The city') })
const forecast = defineTool({ name: 'forecast', description: 'A forecast.', input: city, run: ({ city }) => city })
const tides = defineTool({ name: 'tides', description: 'The tides.', input: city, run: ({ city }) => city })
export const registry = defineRegistry({
  agents: [],
  skills: [defineSkill({ name: 'forecasting', description: 'Forecasts. Use when asked about the weather.', instructions: 'Look it up.', tools: [forecast, tides]${given === undefined ? '' : `, allowedTools: ${given}`} })],
})
`
}

/** Compiles `given`'s registry into a project for Claude Code and Codex, and imports the project back. */
async function compiledAndImported(given: string | undefined) {
  const root = await project('oac-import-compiled-skill-', { 'source/registry.ts': registry(given) })
  await symlink(join(repoRoot, 'node_modules'), join(root, 'node_modules'), 'dir')
  const compiled = await compile({ registry: 'source/registry.ts:registry', root, harnesses: ['claude', 'codex'] })
  expect(compiled.diagnostics.filter((d) => d.severity === 'error')).toEqual([])
  const written = meaning(await readFile(join(root, '.claude/skills/forecasting/SKILL.md'), 'utf8')).data['allowed-tools']
  await withoutManifest(root)
  const imported = await importProject(root)
  const skill = imported.registry.skills.find((found) => found.name === 'forecasting')
  expect(skill).toBeDefined()
  return { written, skill: skill!, disagreements: imported.disagreements }
}

describe('oac import of a skill unplugin-oac compiled', () => {
  it('leaves out the rules compile wrote for its commands', async () => {
    const { written, skill, disagreements } = await compiledAndImported(undefined)
    // What compile wrote: rules naming both tools' scripts, and the skill's copies of them.
    expect(written).toEqual(expect.stringContaining('scripts/forecast.mjs'))
    expect(written).toEqual(expect.stringContaining('.claude/skills/forecasting/scripts/tides.mjs'))
    expect(skill.allowedTools).toBeUndefined()
    // The skill's copies of the two scripts are compile's, made again for the tools the registry gives it.
    expect(Object.keys(skill.files)).toEqual([])
    // The Claude Code copy now says what the shared folder's copy says.
    expect(disagreements).toEqual([])
  })

  it("keeps the user's own entries, as a text and as a list", async () => {
    const asText = await compiledAndImported("'Bash(git status)'")
    expect(asText.written).not.toBe('Bash(git status)')
    expect(asText.skill.allowedTools).toBe('Bash(git status)')
    expect(asText.disagreements).toEqual([])

    const asList = await compiledAndImported("['Bash(git status)', 'Read']")
    expect(asList.written).toHaveLength(3)
    expect(asList.skill.allowedTools).toEqual(['Bash(git status)', 'Read'])
    expect(asList.disagreements).toEqual([])
  })

  it("keeps a hand-written rule for a script of the skill's own, which is not all compile would write for it", async () => {
    const text = ['---', 'name: checking', 'description: Checks.', 'allowed-tools: Bash(node scripts/check.mjs:*)', '---', 'Run `node scripts/check.mjs`.', ''].join('\n')
    const root = await project('oac-import-own-rule-', { '.claude/skills/checking/SKILL.md': text, '.claude/skills/checking/scripts/check.mjs': 'console.log("ok")\n' })
    const imported = await importProject(root, { from: ['claude'] })
    expect(imported.registry.skills[0]).toMatchObject({ name: 'checking', allowedTools: 'Bash(node scripts/check.mjs:*)' })
  })
})
