import { existsSync } from 'node:fs'
import { appendFile, readdir, readFile, symlink } from 'node:fs/promises'
import { join, relative } from 'node:path'
import { describe, expect, it } from 'vitest'
import { compile } from '../../src/api.js'
import { HARNESSES } from '../../src/define/types.js'
import { importProject, writeNewFiles } from '../../src/import/index.js'
import { repoRoot } from '../util/project.js'
import { meaning, project, withoutManifest } from './project.js'

/*
 * `oac import` on a project unplugin-oac compiled into: what compile wrote is a registry's output (an
 * agent's and a skill's tool docs, the skill's copies of its tools' scripts), listed as compiled and not
 * carried; the files the user wrote by hand beside it come back as before.
 */

const REGISTRY = `import { z } from 'zod'
import { defineAgent, defineCommand, defineHook, defineRegistry, defineRule, defineSkill, defineTool } from 'unplugin-oac'
const forecast = defineTool({ name: 'forecast', description: 'A forecast.', input: z.object({ city: z.string().describe('The city') }), run: ({ city }) => city })
const planner = defineAgent({ name: 'planner', description: 'Plans trips around the weather.', prompt: 'You plan trips.', tools: [forecast] })
const guard = defineHook({ name: 'guard', description: 'Refuses Atlantis.', on: 'beforeTool', tools: [forecast], run: (event, ctx) => (event.input.city === 'Atlantis' ? ctx.block('no weather') : undefined) })
export const registry = defineRegistry({
  agents: [planner],
  hooks: [guard],
  skills: [defineSkill({ name: 'trip-reports', description: 'Writes trip reports. Use when asked for one.', instructions: 'Write a trip report for each city.', tools: [forecast] })],
  commands: [defineCommand({ name: 'plan-trip', description: 'Plan a trip', prompt: 'Plan a trip to {{args}}.', agent: planner })],
  rules: [defineRule({ name: 'testing', description: 'How we test.', text: 'Test every forecast.', paths: ['test/**'] })],
})
`

/** The user's own files, written by hand beside what compile writes. */
const HELPER = ['---', 'name: helper', 'description: Helps with anything.', 'tools: Read, Grep', 'model: sonnet', '---', 'You help.', ''].join('\n')
const NOTES = ['---', 'name: notes', 'description: Takes notes. Use when asked to note something.', '---', 'Write the note in notes/.', ''].join('\n')
const TEMPLATE = '# Note\n'

/** Every file under a folder, by its path there. */
async function filesUnder(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true })
  return entries.filter((entry) => entry.isFile()).map((entry) => relative(dir, join(entry.parentPath, entry.name)).split('\\').join('/'))
}

/** A project holding the user's files, with the registry compiled into it for every harness. */
async function compiledProject(): Promise<string> {
  const root = await project('oac-import-compiled-tree-', {
    'source/registry.ts': REGISTRY,
    '.claude/agents/helper.md': HELPER,
    '.claude/skills/notes/SKILL.md': NOTES,
    '.claude/skills/notes/template.md': TEMPLATE,
    // A settings file of the user's, which compile merges the hook and the server into.
    '.gemini/settings.json': '{ "ui": { "theme": "Dracula" } }\n',
  })
  await symlink(join(repoRoot, 'node_modules'), join(root, 'node_modules'), 'dir')
  const compiled = await compile({ registry: 'source/registry.ts:registry', root, harnesses: [...HARNESSES] })
  expect(compiled.diagnostics.filter((d) => d.severity === 'error')).toEqual([])
  return root
}

/** Imports the project into `imported/`, compiles that registry back into `back/`, and gives the launchers there whose script is not. */
async function compiledBack(root: string): Promise<{ back: string; dangling: string[]; launchers: string[] }> {
  const imported = await importProject(root, { out: 'imported/registry.ts' })
  await writeNewFiles(root, imported.files, '')
  const result = await compile({ registry: 'imported/registry.ts:registry', root, target: 'back', harnesses: [...HARNESSES] })
  expect(result.diagnostics.filter((d) => d.severity === 'error')).toEqual([])
  const back = join(root, 'back')
  // A skill's copy of a script, `<skills folder>/<skill>/scripts/<tool>.mjs`, starts the project's `scripts/<tool>.mjs`.
  const launchers = (await filesUnder(back)).flatMap((path) => /\/skills\/[^/]+\/(scripts\/.+\.mjs)$/.exec(path)?.[1] ?? [])
  return { back, launchers, dangling: launchers.filter((script) => !existsSync(join(back, script))) }
}

describe('oac import of a project unplugin-oac compiled into', () => {
  it("lists each file compile wrote once, as compiled, and brings back the user's own", async () => {
    const root = await compiledProject()
    const manifest = JSON.parse(await readFile(join(root, '.oac/manifest.oac-tools.json'), 'utf8')) as { files: Record<string, unknown>; merges: Record<string, unknown> }
    const result = await importProject(root)

    // The user's agent and skill, as they wrote them; nothing of the registry's.
    expect(result.registry.agents.map((agent) => agent.name)).toEqual(['helper'])
    expect(result.registry.agents[0]).toMatchObject({ prompt: 'You help.', model: { claude: 'sonnet' }, builtinTools: { claude: ['Read', 'Grep'] } })
    expect(result.registry.skills.map((skill) => [skill.name, skill.instructions, skill.files])).toEqual([['notes', 'Write the note in notes/.', { 'template.md': TEMPLATE }]])
    expect(result.registry.commands).toEqual([])
    expect(result.registry.rules).toEqual([])
    expect(result.registry.hooks).toEqual([])
    expect(result.registry.mcpServers).toEqual([])
    expect(result.found).toEqual(['claude'])

    // Each compiled definition file listed once, as compiled, and each one the manifest's.
    const compiled = result.notCarried.filter((item) => item.why.startsWith('unplugin-oac compiled this file (.oac/manifest.oac-tools.json lists it); import the registry that holds it rather than its output'))
    const files = compiled.map((item) => item.at.file)
    expect(new Set(files).size).toBe(files.length)
    for (const file of files) expect([...Object.keys(manifest.files), ...Object.keys(manifest.merges)]).toContain(file)
    for (const file of ['.claude/agents/planner.md', '.opencode/agent/planner.md', '.codex/agents/planner.toml', '.gemini/agents/planner.md', '.github/agents/planner.agent.md', '.claude/commands/plan-trip.md', '.gemini/commands/plan-trip.toml', '.claude/skills/trip-reports/SKILL.md', '.agents/skills/trip-reports/SKILL.md', '.claude/rules/testing.md']) {
      expect(files, file).toContain(file)
    }
    // Nothing else is listed about a compiled skill's folder (its copies of the scripts go with it).
    expect(result.notCarried.filter((item) => item.at.file.includes('/trip-reports/') && !item.at.file.endsWith('/SKILL.md'))).toEqual([])
    // The files compile made to hold the hook and the server (nothing of the user's in them), and its plugins, once each as the file.
    for (const file of ['.claude/settings.json', '.mcp.json', '.codex/config.toml', '.qwen/settings.json', '.opencode/plugins/oac-tools-hooks.ts']) {
      expect(compiled.filter((item) => item.at.file === file).map((item) => item.what), file).toEqual([`the file ${file}`])
    }
    // In the user's settings file: their key listed as before, our hooks as merged there, our server as compile's.
    const geminiSettings = result.notCarried.filter((item) => item.at.file === '.gemini/settings.json').map((item) => `${item.what}: ${item.why}`)
    expect(geminiSettings.sort()).toEqual([
      'MCP server "oac-tools": unplugin-oac compiled it: it serves a registry\'s own tools, and that registry holds them',
      '`hooks`: unplugin-oac merged it into this file (.oac/manifest.oac-tools.json lists it); import the registry that holds it rather than its output',
      '`ui`: no definition holds this setting; it stays in your settings file, which compile merges into and never removes',
    ])
    // Nothing else is listed: the user's other files hold nothing the import cannot carry.
    expect(result.notCarried.filter((item) => !compiled.includes(item) && item.at.file !== '.gemini/settings.json')).toEqual([])
    // Nothing of the registry's in what the import writes.
    for (const file of result.files) {
      for (const ours of ['planner', 'trip-reports', 'plan-trip', 'Test every forecast', '## Tools', 'forecast']) expect(file.content, file.path).not.toContain(ours)
    }

    // Compiled back: the user's files, and no copy of a script that is not there.
    const { back, launchers, dangling } = await compiledBack(root)
    expect(dangling).toEqual([])
    expect(launchers).toEqual([])
    expect(meaning(await readFile(join(back, '.claude/agents/helper.md'), 'utf8'))).toEqual(meaning(HELPER))
    expect(meaning(await readFile(join(back, '.claude/skills/notes/SKILL.md'), 'utf8'))).toEqual(meaning(NOTES))
    expect(await readFile(join(back, '.claude/skills/notes/template.md'), 'utf8')).toBe(TEMPLATE)
    expect(existsSync(join(back, '.claude/agents/planner.md'))).toBe(false)
  }, 60_000)

  it('lists a compiled file edited by hand since as compiled too, saying so', async () => {
    const root = await compiledProject()
    const path = join(root, '.claude/agents/planner.md')
    await appendFile(path, '\nAlso pack light.\n')
    const result = await importProject(root, { from: ['claude'] })
    expect(result.registry.agents.map((agent) => agent.name)).toEqual(['helper'])
    expect(result.notCarried.find((item) => item.at.file === '.claude/agents/planner.md')?.why).toBe(
      'unplugin-oac compiled this file (.oac/manifest.oac-tools.json lists it), and it was edited by hand since (make the edit in the registry); import the registry that holds it rather than its output' +
        ' (where that registry is gone, delete .oac/manifest.oac-tools.json and import again: the files are then read as yours)',
    )
  }, 60_000)

  it("without its manifest, still leaves out a skill's copies of its scripts, and compiles back without one", async () => {
    const root = await compiledProject()
    const launcher = await readFile(join(root, '.claude/skills/trip-reports/scripts/forecast.mjs'), 'utf8')
    expect(launcher.split('\n')[0]).toContain('Generated by unplugin-oac for the skill "trip-reports"')
    await withoutManifest(root)
    const result = await importProject(root)
    // Read as the user's (no record says otherwise), but for the copies compile makes again from a tool.
    const skill = result.registry.skills.find((found) => found.name === 'trip-reports')
    expect(skill?.files).toEqual({})
    const copies = result.notCarried.filter((item) => item.what === 'the file "scripts/forecast.mjs" of skill "trip-reports"')
    expect(copies.map((item) => item.at.file).sort()).toEqual(['.agents/skills/trip-reports/scripts/forecast.mjs', '.claude/skills/trip-reports/scripts/forecast.mjs'])
    expect(copies[0]!.why).toContain("unplugin-oac generated it: the skill's copy of a tool's script")
    // The user's skill keeps its files.
    expect(result.registry.skills.find((found) => found.name === 'notes')?.files).toEqual({ 'template.md': TEMPLATE })

    const { dangling } = await compiledBack(root)
    expect(dangling).toEqual([])
  }, 60_000)
})

