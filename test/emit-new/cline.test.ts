import { existsSync } from 'node:fs'
import { mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises'
import { dirname, join, resolve } from 'node:path'
import { pathToFileURL } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { compile } from '../../src/api.js'
import type { Plan } from '../../src/compile/plan.js'
import { emitCline } from '../../src/emit/cline.js'
import { buildTarget, fixturePlan, linkedTempDir } from '../emit-native/fixture.js'
import { copyProject, repoRoot } from '../util/project.js'
import { tempDir } from '../util/temp.js'

/*
 * Cline's plugin module, loaded as Cline's plugin sandbox loads it (its default export's `setup(api, ctx)`)
 * with the real bundled scripts beside it; and what a compile writes for Cline in a plugin folder and in a
 * home. That Cline itself loads them is test/harness/cline.test.ts.
 */

interface Registered {
  name: string
  description: string
  inputSchema: Record<string, unknown>
  execute(input: unknown): Promise<string>
}

interface ClineModule {
  name: string
  manifest: { capabilities: string[] }
  setup(api: { registerTool(tool: Registered): void }, ctx: { workspaceInfo?: { rootPath?: string } }): void
}

/** The tools a plugin module registers when Cline sets it up for the workspace `rootPath`. */
async function setUp(file: string, rootPath: string): Promise<{ plugin: ClineModule; tools: Map<string, Registered> }> {
  const plugin = ((await import(pathToFileURL(file).href)) as { default: ClineModule }).default
  const tools = new Map<string, Registered>()
  plugin.setup({ registerTool: (tool) => tools.set(tool.name, tool) }, { workspaceInfo: { rootPath } })
  return { plugin, tools }
}

const failure = (running: Promise<string>) => running.then(() => 'no error', (error: Error) => error.message)

describe("Cline's plugin module in a project", () => {
  let plan: Plan
  let target = ''
  let tools: Map<string, Registered>
  let plugin: ClineModule

  beforeAll(async () => {
    plan = await fixturePlan({ harnesses: ['cline'] })
    target = await buildTarget(plan, await linkedTempDir())
    const files = emitCline(plan)
    expect(files.map((file) => file.path)).toEqual(['.cline/plugins/oac-tools.ts'])
    await mkdir(join(target, '.cline/plugins'), { recursive: true })
    await writeFile(join(target, '.cline/plugins/oac-tools.ts'), files[0]!.kind === 'owned' ? files[0]!.content : '')
    await mkdir(join(target, 'sub'))
    ;({ plugin, tools } = await setUp(join(target, '.cline/plugins/oac-tools.ts'), join(target, 'sub')))
  }, 120_000)
  afterAll(() => rm(target, { recursive: true, force: true }))

  it('registers every JSON tool by its own name, its description as written and its JSON Schema as inputSchema', () => {
    expect(plugin.name).toBe(plan.serverName)
    expect(plugin.manifest).toEqual({ capabilities: ['tools'] })
    const json = plan.tools.filter((tool) => tool.json)
    expect([...tools.keys()]).toEqual(json.map((tool) => tool.name))
    for (const tool of json) {
      // The fixture's forecast description holds quotes, `${...}`, `*/`, a line break and U+2028.
      expect(tools.get(tool.name)!.description).toBe(tool.description)
      expect(tools.get(tool.name)!.inputSchema).toEqual(tool.schema)
    }
  })

  it("runs the script found beside the module, in the workspace folder, and hands Cline the tool's text", async () => {
    expect(await tools.get('count')!.execute({ to: 2 })).toMatch(/^counted to 2 in sub; token /)
  })

  it("throws the tool's error, and the failure naming the field of invalid input, for Cline to give the model", async () => {
    expect(await failure(tools.get('explode')!.execute({ reason: 'boom' }))).toBe('exploded: boom')
    expect(await failure(tools.get('forecast')!.execute({ days: 'two' }))).toMatch(/^city: missing/)
  })
})

describe('Cline in a plugin folder and in a home', () => {
  it('a plugin folder: the tools\' and the hooks\' modules under cline/, named by package.json, their scripts found from there, the skills at the root, and a warning for the workflows it cannot carry', async () => {
    const project = await copyProject(resolve(repoRoot, 'test/fixtures/plugin-gemini'), 'oac-plugin-cline-')
    const dir = await tempDir('oac-plugin-cline-dir-')
    const result = await compile({ root: project, registry: 'agents/registry.ts:registry', config: 'test', harnesses: ['cline'], plugin: {}, target: dir })
    expect(result.diagnostics.filter((d) => d.severity === 'error')).toEqual([])
    const files = (await readdir(dir, { recursive: true, withFileTypes: true })).filter((entry) => entry.isFile()).map((entry) => join(entry.parentPath, entry.name).slice(dir.length + 1))
    const modules = files.filter((path) => path.startsWith('cline/')).sort()
    expect(modules).toEqual(['cline/extensions/oac-tools-hooks.ts', 'cline/oac-tools.ts'])
    // `cline plugin install` loads the paths package.json's `cline` key names (test/harness/plugin-cline.test.ts).
    const manifest = JSON.parse(await readFile(join(dir, 'package.json'), 'utf8')) as { cline: { plugins: Array<{ paths: string[] }> } }
    expect(manifest.cline.plugins.flatMap((entry) => entry.paths).sort()).toEqual(modules.map((path) => `./${path}`))
    // An installed Cline plugin's skills are the skills/ beside its package.json.
    expect(files.filter((path) => path.startsWith('skills/') && path.endsWith('/SKILL.md')).length).toBeGreaterThan(0)
    expect(files.filter((path) => path.startsWith('.cline/') || path.startsWith('.agents/'))).toEqual([])
    for (const module of modules) {
      const text = await readFile(join(dir, module), 'utf8')
      const scripts = [...text.matchAll(/(?:runTool|load)\("([^"]+)"/g)].map((match) => match[1]!)
      expect(scripts.length, module).toBeGreaterThan(0)
      for (const script of scripts) expect(existsSync(resolve(dir, dirname(module), script)), `${module} -> ${script}`).toBe(true)
    }
    const warnings = result.diagnostics.filter((d) => d.severity === 'warning' && d.message.includes('Cline')).map((d) => d.message)
    expect(warnings).toEqual(expect.arrayContaining([expect.stringContaining('workflows are read from folders only')]))
    expect(warnings.filter((message) => message.includes("plugin's skills"))).toEqual([])
    await rm(project, { recursive: true, force: true })
    await rm(dir, { recursive: true, force: true })
  })

  it('a home: the plugin module, its workflows and skills at the places Cline reads in a home, the scripts found from the home folder', async () => {
    const source = await copyProject(resolve(repoRoot, 'test/fixtures/user-scope'), 'oac-user-cline-src-')
    const home = await tempDir('oac-user-cline-home-')
    const { report, diagnostics } = await compile({ root: source, registry: 'agents/registry.ts:writing', scope: 'user', harnesses: ['cline'], target: home, serverName: 'writing-tools' })
    expect(diagnostics.filter((d) => d.severity === 'error')).toEqual([])
    expect(report.written).toEqual(expect.arrayContaining(['.cline/plugins/writing-tools.ts', '.cline/workflows/count.md', '.agents/skills/counting/SKILL.md']))
    const text = await readFile(join(home, '.cline/plugins/writing-tools.ts'), 'utf8')
    const scripts = [...text.matchAll(/runTool\("([^"]+)"/g)].map((match) => match[1]!)
    expect(scripts.length).toBeGreaterThan(0)
    for (const script of scripts) expect(existsSync(join(home, script)), script).toBe(true)
    expect(text).toContain('pathToFileURL(join(homedir(), script))')
    await rm(source, { recursive: true, force: true })
    await rm(home, { recursive: true, force: true })
  })
})
