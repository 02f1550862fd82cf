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

/**
 * Three builds of one watch Compiler on a copy of the basic fixture: the first, one after an edit
 * only inside its weather tool's `run` body, and one after an edit of that tool's description.
 */
async function editSession(options: { settled: boolean }) {
  const project = await copyProject(basic)
  // Older than the stamps' racy window, the first build keeps every module it ran.
  if (options.settled) await backdate(project)
  const toolFile = join(project, 'agents/tools/weather.ts')
  const original = await readFile(toolFile, 'utf8')
  const compiler = new Compiler(project)
  try {
    const first = await compiler.generate(OPTIONS)
    await writeFile(toolFile, original.replace('sunny in', 'rainy in'))
    const bodyEdited = await compiler.generate(OPTIONS)
    await writeFile(toolFile, original.replace('Current weather for a city.', 'Weather, described anew.'))
    const described = await compiler.generate(OPTIONS)
    return { first, bodyEdited, described }
  } finally {
    await compiler.dispose()
  }
}

describe('Compiler: one watch session', () => {
  it('follows edits of a tool body (scripts only) and of its description (every file that shows it)', async () => {
    const { first, bodyEdited, described } = await editSession({ settled: false })
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
    const { first, bodyEdited, described } = await editSession({ settled: true })
    expect(bodyEdited.plan).toBe(first.plan)
    expect(contentOf(bodyEdited, 'scripts/tools/weather.mjs')).toContain('rainy in')
    expect(described.plan).not.toBe(first.plan)
    expect(contentOf(described, '.claude/agents/planner.md')).toContain('Weather, described anew.')
  })
})
