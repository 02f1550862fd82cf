import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Plan } from '../../src/compile/plan.js'
import { emitOmp } from '../../src/emit/omp.js'
import { emitOpencode } from '../../src/emit/opencode.js'
import { emitPi } from '../../src/emit/pi.js'
import type { OutputFile } from '../../src/emit/types.js'
import { buildFixtureServer, type BuiltServer, connect } from '../mcp/server-fixture.js'
import { repoRoot } from '../util/project.js'
import { buildTarget, fixturePlan, linkedTempDir } from './fixture.js'

/*
 * A tool's `title`: the name people see. The model still calls it by its name; each harness that shows
 * people a name gets the title there (MCP's `title` and `annotations.title`, pi's and omp's `label`, the
 * title opencode and Kilo show for a call), and a tool without one keeps the files it had.
 */
const root = join(repoRoot, 'test/fixtures/tool-titles')

function content(files: OutputFile[], path: string): string {
  const file = files.find((f) => f.path === path)
  if (file?.kind !== 'owned') throw new Error(`no owned file ${path}`)
  return file.content
}

let plan: Plan
beforeAll(async () => {
  plan = await fixturePlan({}, root)
})

describe('tool titles', () => {
  it('are planned beside the name, and only where a tool gives one', () => {
    expect(plan.tools.map((tool) => [tool.name, tool.title])).toEqual([
      ['forecast', 'Weather forecast'],
      ['add_note', 'Add a note "quoted"'],
      ['count', undefined],
    ])
    expect(Object.hasOwn(plan.tools[2]!, 'title')).toBe(false)
  })

  it("are pi's and oh-my-pi's label; a tool without one is labelled with its name", () => {
    const pi = content(emitPi(plan), '.pi/extensions/oac-tools.ts')
    expect(pi).toContain('name: "forecast",\n    label: "Weather forecast",')
    expect(pi).toContain('name: "add_note",\n    label: "Add a note \\"quoted\\"",')
    expect(pi).toContain('name: "count",\n    label: "count",')
    const omp = emitOmp(plan)
    expect(content(omp, '.omp/tools/forecast/index.ts')).toContain('name: "forecast",\n    label: "Weather forecast",')
    expect(content(omp, '.omp/tools/count/index.ts')).toContain('name: "count",\n    label: "count",')
  })

  it("are the title opencode shows for a call, set when it starts and given with its result", async () => {
    const files = emitOpencode(plan)
    expect(content(files, '.opencode/tool/count.ts')).not.toContain('title:')
    const target = await linkedTempDir()
    await buildTarget(plan, target, root)
    const shim = async (tool: string) =>
      ((await import(pathToFileURL(join(target, `.opencode/tool/${tool}.ts`)).href)) as { default: { execute(args: unknown, context: unknown): Promise<{ title?: string; output: string }> } }).default
    const titles: string[] = []
    const context = {
      directory: target,
      abort: new AbortController().signal,
      metadata: ({ title }: { title?: string }) => titles.push(title ?? ''),
      ask: async () => undefined,
    }
    const result = await (await shim('forecast')).execute({ city: 'Oslo' }, context)
    expect(result).toMatchObject({ title: 'Weather forecast', output: 'Sunny in Oslo' })
    // The title first, then the tool's progress in its place while it runs.
    expect(titles).toEqual(['Weather forecast', 'looking up Oslo'])
    const untitled = await (await shim('count')).execute({ text: 'a b c' }, { ...context, metadata: () => undefined })
    expect(untitled.output).toBe('3')
    expect(Object.hasOwn(untitled, 'title')).toBe(false)
  })
})

describe("tool titles in the MCP server's list", () => {
  let server: BuiltServer
  beforeAll(async () => {
    server = await buildFixtureServer(root)
  })
  afterAll(async () => server?.remove())

  it('are each titled tool\'s `title` and `annotations.title`, beside its effects; the name is what a call names', async () => {
    const connection = await connect(server.target)
    try {
      const { tools } = await connection.client.listTools()
      const byName = new Map(tools.map((tool) => [tool.name, tool]))
      expect(byName.get('forecast')).toMatchObject({ title: 'Weather forecast', annotations: { title: 'Weather forecast', readOnlyHint: true } })
      expect(byName.get('add_note')).toMatchObject({ title: 'Add a note "quoted"', annotations: { title: 'Add a note "quoted"' } })
      expect(byName.get('count')!.title).toBeUndefined()
      expect(byName.get('count')!.annotations).toBeUndefined()
      const result = await connection.client.callTool({ name: 'forecast', arguments: { city: 'Lima' } })
      expect(result.content).toEqual([{ type: 'text', text: 'Sunny in Lima' }])
    } finally {
      await connection.close()
    }
  })
})
