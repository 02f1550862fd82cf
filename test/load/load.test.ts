import { existsSync } from 'node:fs'
import { mkdir, readdir, readFile, stat, symlink, utimes, writeFile } from 'node:fs/promises'
import { join, resolve } from 'node:path'
import { describe, expect, it } from 'vitest'
import type { AgentDefinition, AnyToolDefinition } from '../../src/define/types.js'
import { RegistryBundler } from '../../src/load/bundle.js'
import { type LoadedRegistry, loadRegistry } from '../../src/load/index.js'
import { copyProject, repoRoot } from '../util/project.js'
import { tempDir } from '../util/temp.js'

const basic = resolve(repoRoot, 'test/fixtures/load-basic')
const errors = resolve(repoRoot, 'test/fixtures/load-errors')

/** The 1-based line and column of `call` on the first line of a file that contains `lineText`, found by reading it. */
async function positionOf(file: string, lineText: string, call = lineText): Promise<{ line: number; column: number }> {
  const lines = (await readFile(file, 'utf8')).split('\n')
  const index = lines.findIndex((text) => text.includes(lineText))
  if (index < 0) throw new Error(`${lineText} not in ${file}`)
  return { line: index + 1, column: lines[index]!.indexOf(call) + 1 }
}

function agent(loaded: { registry: { agents: readonly AgentDefinition[] } }, name: string): AgentDefinition {
  const found = loaded.registry.agents.find((a) => a.name === name)
  if (!found) throw new Error(`no agent ${name}`)
  return found
}

describe('loadRegistry: a valid registry', () => {
  it('loads the named export with its agents, tools and every local file it came from', async () => {
    const loaded = await loadRegistry('agents/registry.ts:registry', basic)
    expect(loaded.diagnostics).toEqual([])
    expect(loaded.registry.kind).toBe('oac:registry')
    expect(loaded.registry.agents.map((a) => a.name)).toEqual(['planner', 'gambler'])
    expect(loaded.registry.tools.map((t) => t.name)).toEqual(['dice'])
    expect(agent(loaded, 'gambler').tools).toEqual(['dice'])
    const inline = agent(loaded, 'planner').tools[0] as AnyToolDefinition
    expect(inline.name).toBe('weather')
    // Our own define API is bundled in, so its files are not the user's; the prompt file is.
    expect(loaded.files).toEqual(
      ['agents/planner.md', 'agents/registry.ts', 'agents/tools/dice.ts', 'agents/tools/weather.ts'].map((f) => join(basic, f)),
    )
  })

  it('accepts path#export and a bare path (the default export) for the same registry', async () => {
    const named = await loadRegistry('agents/registry.ts:registry', basic)
    for (const spec of ['agents/registry.ts#registry', 'agents/registry.ts', './agents/registry.ts:default']) {
      const loaded = await loadRegistry(spec, basic)
      expect(loaded.diagnostics, spec).toEqual([])
      expect(loaded.registry.agents.map((a) => a.name), spec).toEqual(named.registry.agents.map((a) => a.name))
      expect(loaded.registry.source, spec).toEqual(named.registry.source)
    }
  })

  it('records where each definition was written: the user file, line and column', async () => {
    const loaded = await loadRegistry('agents/registry.ts:registry', basic)
    const weatherFile = join(basic, 'agents/tools/weather.ts')
    const inline = agent(loaded, 'planner').tools[0] as AnyToolDefinition
    expect(inline.source).toEqual({ file: weatherFile, ...(await positionOf(weatherFile, 'defineTool({')) })
    const diceFile = join(basic, 'agents/tools/dice.ts')
    expect(loaded.registry.tools[0]!.source).toEqual({ file: diceFile, ...(await positionOf(diceFile, 'defineTool({')) })
    const registryFile = join(basic, 'agents/registry.ts')
    expect(agent(loaded, 'gambler').source).toEqual({ file: registryFile, ...(await positionOf(registryFile, 'const gambler =', 'defineAgent(')) })
    expect(loaded.registry.source).toEqual({ file: registryFile, ...(await positionOf(registryFile, 'defineRegistry({')) })
  })

  it('reads prompt files next to the defining module, and import.meta.url names the user file', async () => {
    const loaded = await loadRegistry('agents/registry.ts:registry', basic)
    expect(loaded.prompts.get(agent(loaded, 'planner'))).toBe(await readFile(join(basic, 'agents/planner.md'), 'utf8'))
    expect(loaded.prompts.get(agent(loaded, 'gambler'))).toBe(await readFile(join(basic, 'agents/data/gambler.txt'), 'utf8'))
  })

  it('sees fresh code on every call and leaves no bundle behind', async () => {
    const project = await copyProject(basic)
    const first = await loadRegistry('agents/registry.ts:registry', project)
    const toolFile = join(project, 'agents/tools/weather.ts')
    await writeFile(toolFile, (await readFile(toolFile, 'utf8')).replace('Current weather for a city.', 'Weather, edited.'))
    const second = await loadRegistry('agents/registry.ts:registry', project)
    expect((agent(first, 'planner').tools[0] as AnyToolDefinition).description).toBe('Current weather for a city.')
    expect((agent(second, 'planner').tools[0] as AnyToolDefinition).description).toBe('Weather, edited.')
    const cache = join(project, 'node_modules/.cache/oac')
    expect((await readdir(cache)).filter((f) => f.startsWith(`registry-${process.pid}-`))).toEqual([])
  })

  it.each([false, true])('with one bundler across loads (keeping modules: %s), sees an edit that keeps the size and modification time of the file it replaces', async (keepModules) => {
    // A coarse clock (whole seconds on some file systems) gives a quick second edit the first one's mtime.
    const project = await copyProject(basic)
    const toolFile = join(project, 'agents/tools/weather.ts')
    const original = await readFile(toolFile, 'utf8')
    const bundler = new RegistryBundler({ keepModules })
    try {
      const descriptions: string[] = []
      for (const description of ['Weather, edit one.', 'Weather, edit two.']) {
        const before = await stat(toolFile)
        await writeFile(toolFile, original.replace('Current weather for a city.', description))
        await utimes(toolFile, before.atime, before.mtime)
        const loaded = await loadRegistry('agents/registry.ts:registry', project, bundler)
        descriptions.push((agent(loaded, 'planner').tools[0] as AnyToolDefinition).description)
      }
      expect(descriptions).toEqual(['Weather, edit one.', 'Weather, edit two.'])
    } finally {
      await bundler.dispose()
    }
  })
})

describe('loadRegistry: a watch session runs again only what an edit can change', () => {
  const tool = (loaded: LoadedRegistry, name: string) =>
    [...(loaded.registry.tools as AnyToolDefinition[]), ...loaded.registry.agents.flatMap((a) => a.tools as AnyToolDefinition[])].find((t) => t.name === name)!
  const bundles = async (project: string) => (await readdir(join(project, 'node_modules/.cache/oac'))).filter((f) => f.startsWith(`registry-${process.pid}-`))

  /**
   * Dates the project's files written in the last minute a minute back: a file modified just before a
   * load is not trusted to stay as read (FileVersion), so it would run again on every load.
   */
  async function settle(folder: string): Promise<void> {
    const past = Date.now() - 60_000
    for (const entry of await readdir(folder, { withFileTypes: true })) {
      if (entry.name === 'node_modules') continue
      const path = join(folder, entry.name)
      if (entry.isDirectory()) await settle(path)
      else if ((await stat(path)).mtimeMs > past) await utimes(path, new Date(past), new Date(past))
    }
  }

  /** Loads, then after each step (an edit) loads again with the same bundler; every edit is settled first. */
  async function session(project: string, steps: Array<() => Promise<void>>) {
    await settle(project)
    const bundler = new RegistryBundler({ keepModules: true })
    const loads = []
    try {
      loads.push(await loadRegistry('agents/registry.ts:registry', project, bundler))
      for (const step of steps) {
        await step()
        await settle(project)
        loads.push(await loadRegistry('agents/registry.ts:registry', project, bundler))
      }
      return { loads, bundlesDuring: await bundles(project) }
    } finally {
      await bundler.dispose()
    }
  }

  it('an edited tool module and its importer run again; another tool keeps its very definition; no edit runs nothing', async () => {
    const project = await copyProject(basic)
    const toolFile = join(project, 'agents/tools/weather.ts')
    const original = await readFile(toolFile, 'utf8')
    const { loads, bundlesDuring } = await session(project, [
      () => writeFile(toolFile, original.replace('Current weather for a city.', 'Weather, edited.')),
      async () => {},
    ])
    const [first, edited, again] = loads as [LoadedRegistry, LoadedRegistry, LoadedRegistry]
    expect(tool(edited, 'weather').description).toBe('Weather, edited.')
    expect(tool(edited, 'dice')).toBe(tool(first, 'dice'))
    expect(agent(edited, 'planner')).not.toBe(agent(first, 'planner'))
    // The registry module ran again: its import-time read is fresh, and its definitions are located in the user's files.
    expect(agent(edited, 'gambler').source.file).toBe(join(project, 'agents/registry.ts'))
    expect(tool(edited, 'weather').source).toEqual({ file: toolFile, ...(await positionOf(toolFile, 'export const weather', 'defineTool(')) })
    expect(again.registry).toBe(edited.registry)
    expect(edited.files).toEqual(first.files)
    // Both bundles hold kept instances while the session runs (dice's is in the first); none is left after it.
    expect(bundlesDuring).toHaveLength(2)
    expect(await bundles(project)).toEqual([])
  })

  it('an edit only inside a tool’s run body runs nothing, also just after it was made; an edit of its definition runs it again', async () => {
    const project = await copyProject(basic)
    const toolFile = join(project, 'agents/tools/weather.ts')
    const original = await readFile(toolFile, 'utf8')
    const runEdited = original.replace('`sunny in ${city}`', '`rainy in ${city}`')
    const { loads } = await session(project, [
      () => writeFile(toolFile, runEdited),
      () => writeFile(toolFile, runEdited.replace('Current weather for a city.', 'Weather, edited.')),
    ])
    const [first, afterRunEdit, afterDescriptionEdit] = loads as [LoadedRegistry, LoadedRegistry, LoadedRegistry]
    expect(afterRunEdit.registry).toBe(first.registry)
    expect(afterRunEdit.files).toEqual(first.files)
    expect(afterDescriptionEdit.registry).not.toBe(first.registry)
    expect(tool(afterDescriptionEdit, 'weather').description).toBe('Weather, edited.')
    expect(tool(afterDescriptionEdit, 'dice')).toBe(tool(first, 'dice'))

    // As a watcher sees it: the edit a moment ago, within the stamps' racy window.
    await settle(project)
    const bundler = new RegistryBundler({ keepModules: true })
    try {
      const before = await loadRegistry('agents/registry.ts:registry', project, bundler)
      const current = await readFile(toolFile, 'utf8')
      await writeFile(toolFile, current.replace('`rainy in ${city}`', '`sunny in ${city}`'))
      expect((await loadRegistry('agents/registry.ts:registry', project, bundler)).registry).toBe(before.registry)
      // Saved in the very millisecond the rebuild looks, or by a clock a little ahead: a stamp no older than the look.
      await writeFile(toolFile, current)
      const ahead = new Date(Date.now() + 1_000)
      await utimes(toolFile, ahead, ahead)
      expect((await loadRegistry('agents/registry.ts:registry', project, bundler)).registry).toBe(before.registry)
      await writeFile(toolFile, current.replace('Weather, edited.', 'Weather, again.'))
      expect(tool(await loadRegistry('agents/registry.ts:registry', project, bundler), 'weather').description).toBe('Weather, again.')
    } finally {
      await bundler.dispose()
    }
  })

  it('an edit of a module a tool imports (TypeScript, JSON or CommonJS) runs the tool module again', async () => {
    const project = await copyProject(basic)
    const toolFile = join(project, 'agents/tools/weather.ts')
    const files = { ts: join(project, 'agents/tools/wording.ts'), json: join(project, 'agents/tools/wording.json'), cjs: join(project, 'agents/tools/wording.cjs') }
    await writeFile(files.ts, "export const lead = 'Current'\n")
    await writeFile(files.json, '{ "what": "weather" }\n')
    await writeFile(files.cjs, "module.exports = { where: 'for a city.' }\n")
    await writeFile(
      toolFile,
      (await readFile(toolFile, 'utf8'))
        .replace("import { z } from 'zod'", "import { z } from 'zod'\nimport { lead } from './wording.ts'\nimport wording from './wording.json'\nimport legacy from './wording.cjs'")
        .replace("'Current weather for a city.'", '`${lead} ${wording.what} ${legacy.where}`'),
    )
    const { loads } = await session(project, [
      async () => writeFile(files.ts, "export const lead = 'Today'\n"),
      async () => writeFile(files.json, '{ "what": "rain" }\n'),
      async () => writeFile(files.cjs, "module.exports = { where: 'in town.' }\n"),
    ])
    expect(loads.map((loaded) => tool(loaded, 'weather').description)).toEqual([
      'Current weather for a city.',
      'Today weather for a city.',
      'Today rain for a city.',
      'Today rain in town.',
    ])
    for (const loaded of loads.slice(1)) expect(tool(loaded, 'dice')).toBe(tool(loads[0]!, 'dice'))
    expect(loads.at(-1)!.files).toEqual(expect.arrayContaining(Object.values(files)))
  })

  it('an edit that breaks the build is reported as in a first build, and the fix loads', async () => {
    const project = await copyProject(basic)
    const toolFile = join(project, 'agents/tools/weather.ts')
    const original = await readFile(toolFile, 'utf8')
    const { loads } = await session(project, [
      () => writeFile(toolFile, original.replace('export const weather', 'export const weather = = ')),
      () => writeFile(toolFile, original.replace('Current weather for a city.', 'Weather, fixed.')),
    ])
    const broken = loads[1]!.diagnostics
    expect(broken.map((d) => [d.code, d.file, d.line])).toEqual([['registry-build-failed', 'agents/tools/weather.ts', (await positionOf(toolFile, 'export const weather')).line]])
    expect(tool(loads[2]!, 'weather').description).toBe('Weather, fixed.')
    expect(tool(loads[2]!, 'dice')).toBe(tool(loads[0]!, 'dice'))
  })
})

describe('loadRegistry: problems come back as diagnostics', () => {
  async function only(spec: string) {
    const loaded = await loadRegistry(spec, errors)
    expect(loaded.diagnostics).toHaveLength(1)
    return { ...loaded, diagnostic: loaded.diagnostics[0]! }
  }

  it('a registry file that does not exist', async () => {
    const { diagnostic, files } = await only('agents/nowhere.ts:registry')
    expect(diagnostic).toMatchObject({ severity: 'error', code: 'registry-not-found' })
    expect(diagnostic.message).toContain('agents/nowhere.ts')
    expect(files).toEqual([])
  })

  it('a syntax error, at the line esbuild reports, and the file is still watched', async () => {
    const { diagnostic, files } = await only('syntax-error.ts:registry')
    expect(diagnostic).toMatchObject({ code: 'registry-build-failed', file: 'syntax-error.ts' })
    expect(diagnostic.line).toBe((await positionOf(join(errors, 'syntax-error.ts'), 'oops')).line)
    expect(files).toEqual([join(errors, 'syntax-error.ts')])
  })

  it('an import that does not resolve', async () => {
    const { diagnostic } = await only('unresolved.ts:registry')
    expect(diagnostic).toMatchObject({ code: 'registry-build-failed', file: 'unresolved.ts' })
    expect(diagnostic.message).toContain('./does-not-exist.ts')
    expect(diagnostic.line).toBe((await positionOf(join(errors, 'unresolved.ts'), 'does-not-exist')).line)
  })

  it('an exception while importing: its message and the user line that threw', async () => {
    const { diagnostic, files } = await only('throws.ts:registry')
    expect(diagnostic).toMatchObject({ code: 'registry-import-failed', file: 'helpers/explode.ts' })
    expect(diagnostic.message).toContain('the tool catalogue is unreachable')
    expect(diagnostic.line).toBe((await positionOf(join(errors, 'helpers/explode.ts'), 'throw new Error')).line)
    expect(diagnostic.message).not.toContain('node_modules')
    expect(files).toEqual([join(errors, 'helpers/explode.ts'), join(errors, 'throws.ts')])
  })

  it('a package that is not installed, named at the importing line without the temp bundle path', async () => {
    const { diagnostic } = await only('missing-package.ts:registry')
    expect(diagnostic).toMatchObject({ code: 'registry-build-failed', file: 'missing-package.ts', line: 2 })
    expect(diagnostic.fix).toContain('install the package')
    expect(diagnostic.message).toContain('oac-fixture-package-that-is-not-installed')
    expect(diagnostic.message).not.toContain('.cache')
  })

  it('an export that is missing lists the exports that exist', async () => {
    const { diagnostic } = await only('not-a-registry.ts:agents')
    expect(diagnostic).toMatchObject({ code: 'registry-export-missing', file: 'not-a-registry.ts' })
    expect(diagnostic.message).toContain('Its exports: helper, registry.')
    const byDefault = await only('not-a-registry.ts')
    expect(byDefault.diagnostic.code).toBe('registry-export-missing')
    expect(byDefault.diagnostic.message).toContain('has no default export')
  })

  it('a bare path to a module with no default export and one registry export loads that registry', async () => {
    const exportsRoot = resolve(repoRoot, 'test/fixtures/load-exports')
    for (const spec of ['one-registry.ts', './one-registry.ts', 'one-registry']) {
      const loaded = await loadRegistry(spec, exportsRoot)
      expect(loaded.diagnostics, spec).toEqual([])
      expect(loaded.registry.agents.map((a) => a.name), spec).toEqual(['writer'])
    }
  })

  it('a bare path to a module with several registry exports and no default names them', async () => {
    const loaded = await loadRegistry('./two-registries.ts', resolve(repoRoot, 'test/fixtures/load-exports'))
    expect(loaded.diagnostics).toHaveLength(1)
    const [diagnostic] = loaded.diagnostics
    expect(diagnostic).toMatchObject({ severity: 'error', code: 'registry-export-missing', file: 'two-registries.ts' })
    expect(diagnostic!.message).toContain('several registries: reading, writing')
    expect(diagnostic!.fix).toContain('./two-registries.ts:reading')
  })

  it('an export not made by defineRegistry says to wrap it', async () => {
    const { diagnostic } = await only('not-a-registry.ts:registry')
    expect(diagnostic).toMatchObject({ code: 'registry-not-defined', file: 'not-a-registry.ts' })
    expect(diagnostic.fix).toContain('defineRegistry(')
  })

  it('a prompt file that is missing names the agent, its line and the path tried', async () => {
    const { diagnostic, files } = await only('missing-prompt.ts:registry')
    expect(diagnostic).toMatchObject({ code: 'prompt-file-missing', file: 'missing-prompt.ts' })
    expect(diagnostic.line).toBe((await positionOf(join(errors, 'missing-prompt.ts'), 'const writer')).line)
    expect(diagnostic.message).toContain('"writer"')
    expect(diagnostic.message).toContain('prompts/writer.md')
    expect(files).toContain(join(errors, 'prompts/writer.md'))
    expect(existsSync(join(errors, 'prompts/writer.md'))).toBe(false)
  })
})

describe("loadRegistry: what each hook's and tool's run uses of its ctx", () => {
  // Hooks and tools of one module, and a skill's tool among them: each is read from the same code.
  const REGISTRY = `import { z } from 'zod'
import { defineAgent, defineHook, defineRegistry, defineSkill, defineTool } from 'unplugin-oac'
const city = z.object({ city: z.string() })
export const chart = defineTool({ name: 'chart', description: 'A chart.', input: city, run: ({ city }, ctx) => ctx.result({ value: city, images: [] }) })
export const check = defineTool({ name: 'check', description: 'Checks.', input: city, run: ({ city }, { error }) => error(city) })
export const plain = defineTool({ name: 'plain', description: 'Text.', input: city, run: ({ city }) => city })
function decide(ctx: unknown) { return ctx }
export const guard = defineHook({ name: 'guard', description: 'Blocks charts.', on: 'beforeTool', tools: [chart], run: (event, ctx) => ctx.block('no') })
export const passer = defineHook({ name: 'passer', description: 'Passes ctx on.', on: 'beforeTool', run: (event, ctx) => decide(ctx) })
export const registry = defineRegistry({
  agents: [defineAgent({ name: 'drawer', description: 'Draws.', prompt: 'Draw.', tools: [chart, plain], hooks: [passer] })],
  skills: [defineSkill({ name: 'checking', description: 'Checks a city.', instructions: 'Check it.', tools: [check] })],
  hooks: [guard],
})
`

  it('reads them from the module that defines them; one whose code does not tell is left out', async () => {
    const project = await tempDir('oac-run-context-')
    await symlink(join(repoRoot, 'node_modules'), join(project, 'node_modules'), 'dir')
    await writeFile(join(project, 'registry.ts'), REGISTRY)
    const loaded = await loadRegistry('registry.ts:registry', project)
    expect(loaded.diagnostics).toEqual([])
    const byName = <D extends { name: string }>(map: ReadonlyMap<D, string[]>) => Object.fromEntries([...map].map(([definition, used]) => [definition.name, used]))
    expect(byName(loaded.hookDecisions)).toEqual({ guard: ['block'] })
    expect(byName(loaded.toolResults)).toEqual({ chart: ['details', 'images'], check: ['details'], plain: [] })
  })
})

describe('loadRegistry: how modules are found', () => {
  it("resolves the original tool's extension-less module form (agents:registry)", async () => {
    const loaded = await loadRegistry('agents:registry', resolve(repoRoot, 'test/fixtures/load-module-path'))
    expect(loaded.diagnostics).toEqual([])
    expect(loaded.registry.agents.map((a) => a.name)).toEqual(['solo'])
  })

  it('bundles a workspace package linked into node_modules from the monorepo, TypeScript sources and all', async () => {
    const monorepo = await copyProject(resolve(repoRoot, 'test/fixtures/load-workspace'))
    const link = join(monorepo, 'app/node_modules/@oac-fixture')
    await mkdir(link, { recursive: true })
    await symlink(join(monorepo, 'packages/tools'), join(link, 'tools'), 'dir')
    const loaded = await loadRegistry('agents/registry.ts:registry', join(monorepo, 'app'))
    expect(loaded.diagnostics).toEqual([])
    const [caller] = loaded.registry.agents
    const shout = caller?.tools[0] as AnyToolDefinition
    expect(shout.name).toBe('shout')
    // The shared package's source is a local file of the app: watched, and located for diagnostics.
    expect(loaded.files).toContain(join(monorepo, 'packages/tools/src/index.ts'))
    expect(shout.source.file).toBe(join(monorepo, 'packages/tools/src/index.ts'))
  })
})
