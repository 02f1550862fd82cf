import { readFile, rm, writeFile } from 'node:fs/promises'
import { join, resolve } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { Compiler } from '../../src/api.js'
import type { OutputFile } from '../../src/emit/types.js'
import { copyProject, repoRoot } from '../util/project.js'

/** Every generated file of the playground (all harnesses) as path -> its bytes or our merge entries. */
async function tree(project: string): Promise<Map<string, string>> {
  const compiler = new Compiler(project)
  try {
    const { files } = await compiler.generate({ registry: 'agents/registry.ts:registry', config: 'prod' })
    return new Map(files.map((file: OutputFile) => [file.path, file.kind === 'owned' ? file.content : JSON.stringify(file.entries)]))
  } finally {
    await compiler.dispose()
  }
}

describe('a change that alters no definition changes no generated file', () => {
  let project = ''
  let before = new Map<string, string>()

  beforeAll(async () => {
    project = await copyProject(resolve(repoRoot, 'playground'), 'oac-stable-tree-')
    before = await tree(project)
  }, 120_000)

  afterAll(async () => {
    if (project) await rm(project, { recursive: true, force: true })
  })

  it('moving an import and adding blank lines above the definitions leaves every file as it was', async () => {
    const registry = join(project, 'agents', 'registry.ts')
    const lines = (await readFile(registry, 'utf8')).split('\n')
    const moved = lines.findIndex((line) => line.startsWith('import { forecast }'))
    expect(moved).toBeGreaterThan(0)
    const [importLine] = lines.splice(moved, 1)
    await writeFile(registry, ['', '', ...lines.slice(0, 1), importLine!, '', ...lines.slice(1)].join('\n'))
    const after = await tree(project)
    // The edit did move every definition down, so a header naming a line would differ.
    expect([...after.keys()]).toEqual([...before.keys()])
    for (const [path, content] of before) expect(after.get(path), path).toBe(content)
    expect([...before.keys()].some((path) => path.startsWith('.opencode/agent/'))).toBe(true)
  }, 120_000)
})
