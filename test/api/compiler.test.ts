import { readFile, writeFile } from 'node:fs/promises'
import { join, resolve } from 'node:path'
import { describe, expect, it } from 'vitest'
import { Compiler, type Generated, type GenerateOptions } from '../../src/api.js'
import { backdate } from '../plugin/watchers.js'
import { copyProject, repoRoot } from '../util/project.js'

const basic = resolve(repoRoot, 'test/fixtures/load-basic')

function contentOf(generated: Generated, path: string): string {
  const file = generated.files.find((f) => f.path === path)
  if (!file || file.kind !== 'owned') throw new Error(`${path} is not an owned file of the build`)
  return file.content
}

const OPTIONS: GenerateOptions = { registry: 'agents/registry.ts:registry', harnesses: ['opencode', 'claude'] }

type Edit = (text: string) => string
const BODY_EDIT: Edit = (text) => text.replace('sunny in', 'rainy in')
const DESCRIPTION_EDIT: Edit = (text) => text.replace('Current weather for a city.', 'Weather, described anew.')

/**
 * Builds of one watch Compiler on a copy of the basic fixture: the first, then one after each edit
 * of its weather tool's module, each edit made on the text the last one left, right before its build.
 */
async function editSession(options: { settled: boolean }, edits: [Edit, Edit]): Promise<[Generated, Generated, Generated]> {
  const project = await copyProject(basic)
  // Older than the stamps' racy window, the first build keeps every module it ran.
  if (options.settled) await backdate(project)
  const toolFile = join(project, 'agents/tools/weather.ts')
  const compiler = new Compiler(project)
  try {
    const editAndBuild = async (edit: Edit) => {
      await writeFile(toolFile, edit(await readFile(toolFile, 'utf8')))
      return compiler.generate(OPTIONS)
    }
    const first = await compiler.generate(OPTIONS)
    return [first, await editAndBuild(edits[0]), await editAndBuild(edits[1])]
  } finally {
    await compiler.dispose()
  }
}

describe('Compiler: one watch session', () => {
  it('follows edits of a tool body (scripts only) and of its description (every file that shows it)', async () => {
    const [first, bodyEdited, described] = await editSession({ settled: false }, [BODY_EDIT, DESCRIPTION_EDIT])
    expect(contentOf(bodyEdited, 'scripts/tools/weather.mjs')).toContain('rainy in')
    expect(contentOf(first, 'scripts/tools/weather.mjs')).toContain('sunny in')
    const others = (generated: Generated) => generated.files.filter((f) => !f.path.startsWith('scripts/'))
    expect(others(bodyEdited)).toEqual(others(first))
    for (const path of ['.opencode/tool/weather.ts', '.opencode/agent/planner.md', '.claude/agents/planner.md']) {
      expect(contentOf(described, path)).toContain('Weather, described anew.')
      expect(contentOf(first, path)).not.toContain('Weather, described anew.')
    }
  })

  it('after an edit only inside a run body, gives the very plan of the last build and rebuilds that tool’s script', async () => {
    const [first, bodyEdited, described] = await editSession({ settled: true }, [BODY_EDIT, DESCRIPTION_EDIT])
    expect(bodyEdited.plan).toBe(first.plan)
    expect(contentOf(bodyEdited, 'scripts/tools/weather.mjs')).toContain('rainy in')
    expect(described.plan).not.toBe(first.plan)
    expect(contentOf(described, '.claude/agents/planner.md')).toContain('Weather, described anew.')
  })

  it('an edit only inside a run body right after a build that ran the edited module again still keeps the plan', async () => {
    // That build read the module moments after its save: what it kept must still be told apart from a later edit.
    const [, described, bodyEdited] = await editSession({ settled: true }, [DESCRIPTION_EDIT, BODY_EDIT])
    expect(contentOf(described, '.claude/agents/planner.md')).toContain('Weather, described anew.')
    expect(bodyEdited.plan).toBe(described.plan)
    expect(contentOf(bodyEdited, 'scripts/tools/weather.mjs')).toContain('rainy in')
  })
})

describe('Compiler: a plugin folder', () => {
  it("follows the project's package.json for the plugin's identity, and watches it", async () => {
    const project = await copyProject(basic)
    const manifest = join(project, 'package.json')
    await writeFile(manifest, JSON.stringify({ name: '@team/trip-kit', version: '1.0.0', description: 'Trips.' }))
    const compiler = new Compiler(project)
    try {
      const first = await compiler.generate({ ...OPTIONS, plugin: {} })
      expect(first.plan.plugin).toEqual({ name: 'trip-kit', version: '1.0.0', description: 'Trips.' })
      expect(first.watchFiles).toContain(manifest)
      await writeFile(manifest, JSON.stringify({ name: '@team/trip-kit', version: '1.1.0', description: 'Trips.' }))
      const second = await compiler.generate({ ...OPTIONS, plugin: {} })
      expect(second.plan.plugin?.version).toBe('1.1.0')
      expect(contentOf(second, 'package.json')).toContain('"version": "1.1.0"')
      // Given fields win over package.json's.
      expect((await compiler.generate({ ...OPTIONS, plugin: { version: '2.0.0' } })).plan.plugin?.version).toBe('2.0.0')
    } finally {
      await compiler.dispose()
    }
  })
})
