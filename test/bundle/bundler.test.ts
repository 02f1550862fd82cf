import { readFileSync } from 'node:fs'
import { cp, mkdir, readFile, symlink, utimes, writeFile } from 'node:fs/promises'
import { homedir, tmpdir } from 'node:os'
import { dirname, join, sep } from 'node:path'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { needsMcpServer } from '../../src/bundle/entries.js'
import { MCP_SERVER_ENTRY } from '../../src/compile/script-names.js'
import { type BundleResult, ScriptBundler } from '../../src/bundle/index.js'
import type { JsonSchema, Plan, PlannedTool } from '../../src/compile/plan.js'
import { compilePlan } from '../../src/compile/index.js'
import { loadRegistry } from '../../src/load/index.js'
import { packageRoot } from '../../src/package-paths.js'
import { fixturePlan, fixtureRoot, runNode, tempDir, writeAndMove } from './fixture.js'

/** The project of test/runtime-cli/hooks.test.ts: hooks, and the tools they watch. */
const hooksFixture = join(packageRoot, 'test', 'fixtures', 'hooks')

/** A copy of the fixture project at `dir`, resolving packages through a node_modules link to ours. */
async function copyFixture(dir: string): Promise<string> {
  await mkdir(dir, { recursive: true })
  await cp(fixtureRoot, dir, { recursive: true })
  await symlink(join(packageRoot, 'node_modules'), join(dir, 'node_modules'), 'dir')
  return dir
}

function contentOf(result: BundleResult, path: string): string {
  const file = result.files.find((f) => f.path === path)
  if (!file) throw new Error(`${path} was not produced; got ${result.files.map((f) => f.path).join(', ')}`)
  return file.content
}

function toolScripts(plan: Plan): string[] {
  return plan.tools.flatMap((tool) => [`scripts/${tool.name}.mjs`, `scripts/tools/${tool.name}.mjs`, `scripts/tools/${tool.name}.mjs.map`])
}

const isVendor = (path: string) => path.startsWith('scripts/vendor/')

/** Every `from "..."` and `import("...")` specifier in a module's text. */
function importsOf(text: string): string[] {
  return [...text.matchAll(/(?:\bfrom\s*|\bimport\s*\(\s*)"([^"]+)"/g)].map((match) => match[1]!)
}

describe('the fixture build', () => {
  const bundler = new ScriptBundler(fixtureRoot)
  let result: BundleResult
  beforeAll(async () => {
    result = await bundler.build(fixturePlan())
  })
  afterAll(() => bundler.dispose())

  it('produces per tool a launcher, its code and map; the MCP server; and vendor files named by package and version, nothing else', () => {
    expect(result.diagnostics).toEqual([])
    const own = result.files.filter((f) => !isVendor(f.path)).map((f) => f.path)
    expect(own).toEqual([...toolScripts(fixturePlan()), `scripts/${MCP_SERVER_ENTRY}.cjs`].sort())
    const vendor = result.files.filter((f) => isVendor(f.path)).map((f) => f.path)
    const version = (name: string) => (JSON.parse(readFileSync(join(packageRoot, 'node_modules', name, 'package.json'), 'utf8')) as { version: string }).version
    const ownVersion = (JSON.parse(readFileSync(join(packageRoot, 'package.json'), 'utf8')) as { version: string }).version
    expect(vendor).toEqual(
      expect.arrayContaining([
        `scripts/vendor/zod@${version('zod')}/index.mjs`,
        `scripts/vendor/@sinclair/typebox@${version('@sinclair/typebox')}/build+esm+index.mjs`,
        `scripts/vendor/@sinclair/typebox@${version('@sinclair/typebox')}/build+esm+value+index.mjs`,
        ...['index.mjs', 'script.mjs', 'start.mjs', 'mcp-server.cjs'].map((name) => `scripts/vendor/unplugin-oac@${ownVersion}/${name}`),
      ]),
    )
    for (const path of vendor) expect(path).toMatch(/^scripts\/vendor\/(@[\w-]+\/)?[\w-]+@\d[\w.-]*\/[\w+.-]+\.c?mjs$|\.cjs$/)
  })

  it('keeps third-party code and the runtime in the vendor files: a tool’s code imports them, and holds only its own module graph, readable', () => {
    for (const tool of fixturePlan().tools) {
      const code = contentOf(result, `scripts/tools/${tool.name}.mjs`)
      for (const specifier of importsOf(code)) expect(specifier, `${tool.name} imports ${specifier}`).toMatch(/^\.\.\/vendor\//)
      // Not minified: one statement a line, as a reviewer reads a diff.
      expect(code.split('\n').length).toBeGreaterThan(15)
      expect(Math.max(...code.split('\n').filter((line) => !line.startsWith('var spec = ')).map((line) => line.length))).toBeLessThan(200)
      expect(code).toContain(`//# sourceMappingURL=${tool.name}.mjs.map`)
    }
    expect(contentOf(result, 'scripts/tools/explode.mjs')).toContain('function detonate(reason) {\n  throw new Error(`the tool blew up: ${reason}`);\n}')
    // zod's own code ("Invalid input" is its default issue message) is in the vendor file only.
    const withZod = result.files.filter((f) => f.content.includes('ZodObject')).map((f) => f.path)
    expect(withZod.filter((path) => !isVendor(path))).toEqual([])
  })

  it('shares local code by copying it into the scripts of the tools that import it, and nowhere else', () => {
    // lib/format.ts is imported by the weather and add_note tools.
    const copies = result.files.filter((f) => f.content.includes('\\xB0F') || f.content.includes('\u00B0F') || f.content.includes('°F'))
    expect(copies.map((f) => f.path).sort()).toEqual(['scripts/tools/add_note.mjs', 'scripts/tools/weather.mjs'])
  })

  it('writes the MCP server as a list of tools that requires its vendor file, which at start loads only Node built-ins', () => {
    const server = contentOf(result, `scripts/${MCP_SERVER_ENTRY}.cjs`)
    const required = [...server.matchAll(/\brequire\("([^"]+)"\)/g)].map((match) => match[1]!)
    expect(required).toEqual(['node:module', `./vendor/unplugin-oac@${JSON.parse(readFileSync(join(packageRoot, 'package.json'), 'utf8')).version}/mcp-server.cjs`])
    const vendorServer = result.files.find((f) => f.path.endsWith('/mcp-server.cjs'))!.content
    expect(vendorServer).not.toMatch(/\bfrom\s*"/)
    for (const match of vendorServer.matchAll(/\brequire\("([^"]+)"\)/g)) expect(match[1]).toMatch(/^node:/)
    // Tool code still reaches the server only through the sibling scripts, imported on first call.
    for (const tool of fixturePlan().tools.filter((t) => t.json)) expect(server).toContain(`import("./${tool.name}.mjs")`)
  })

  it('leaves ajv out: the server gives the SDK a zod-based JSON Schema validator instead', () => {
    // ajv's own error text ("must be equal to one of the allowed values" is in its enum keyword).
    const withAjv = result.files.filter((f) => f.content.includes('ajv') || f.content.includes('must be equal to one of the allowed values'))
    expect(withAjv.map((f) => f.path)).toEqual([])
  })

  it('leaves no absolute path of this machine in any file', () => {
    const machinePaths = [packageRoot, fixtureRoot, join(homedir(), sep), join(tmpdir(), sep)]
    for (const file of result.files) {
      for (const path of machinePaths) expect(file.content.includes(path), `${file.path} contains ${path}`).toBe(false)
    }
  })

  it('maps each tool’s code back to its module, by a path relative to the map', () => {
    const map = JSON.parse(contentOf(result, 'scripts/tools/weather.mjs.map')) as { sources: string[]; sourcesContent?: unknown }
    // The tool's module is the build's entry: every line maps to the user's files, none to generated code.
    expect(map.sources).toEqual(['../../tools/weather.ts', '../../lib/format.ts'])
    expect(map.sourcesContent).toBeUndefined()
  })

  it('reports the local files the scripts were built from, without node_modules or the generated entries', () => {
    const tools = ['count.ts', 'explode.ts', 'notes.ts', 'trip.ts', 'wait.ts', 'weather.ts'].map((f) => join(fixtureRoot, 'tools', f))
    expect(result.inputs).toEqual([join(fixtureRoot, 'lib', 'format.ts'), ...tools])
  })

  it('serves the JSON tools from the moved MCP server, with the same text as the script', async () => {
    const dir = await writeAndMove(result.files)
    const client = new Client({ name: 'bundle-test', version: '1.0.0' })
    await client.connect(new StdioClientTransport({ command: process.execPath, args: [`scripts/${MCP_SERVER_ENTRY}.cjs`], cwd: dir, stderr: 'pipe' }))
    try {
      const listed = await client.listTools()
      const plan = fixturePlan()
      expect(listed.tools.map((t) => t.name)).toEqual(['weather', 'add_note', 'plan_trip', 'explode'])
      expect(listed.tools[0]!.inputSchema).toEqual(plan.tools[0]!.schema)
      const called = await client.callTool({ name: 'plan_trip', arguments: { traveller: { name: 'Ada' }, stops: [{ city: 'Rome', nights: 4 }] } })
      const cli = await runNode(dir, ['scripts/plan_trip.mjs', '--json'], { stdin: '{"traveller":{"name":"Ada"},"stops":[{"city":"Rome","nights":4}]}' })
      expect(called.content).toEqual([{ type: 'text', text: cli.stdout.replace(/\n$/, '') }])
      expect(called.isError).toBeFalsy()
      const typebox = await client.callTool({ name: 'add_note', arguments: { title: 'Buy milk', kind: 'todo' } })
      expect(typebox.content).toEqual([{ type: 'text', text: '[todo p3] Buy milk' }])
    } finally {
      await client.close()
    }
  })
})

describe('the MCP server entry', () => {
  it('exists only with native tools for Claude Code or Codex and some JSON tool', () => {
    expect(needsMcpServer(fixturePlan())).toBe(true)
    expect(needsMcpServer(fixturePlan({ harnesses: ['codex'] }))).toBe(true)
    expect(needsMcpServer(fixturePlan({ harnesses: ['opencode', 'pi', 'omp'] }))).toBe(false)
    expect(needsMcpServer(fixturePlan({ nativeTools: false }))).toBe(false)
    expect(needsMcpServer({ ...fixturePlan(), tools: fixturePlan().tools.map((t) => ({ ...t, json: false })) })).toBe(false)
  })

  it('is not built when not needed', async () => {
    const bundler = new ScriptBundler(fixtureRoot)
    try {
      const result = await bundler.build(fixturePlan({ nativeTools: false }))
      expect(result.diagnostics).toEqual([])
      expect(result.files.filter((f) => !isVendor(f.path)).map((f) => f.path)).toEqual(toolScripts(fixturePlan()).sort())
      expect(result.files.filter((f) => f.path.includes('mcp-server') || f.path.includes(MCP_SERVER_ENTRY))).toEqual([])
    } finally {
      await bundler.dispose()
    }
  })
})

describe('diagnostics', () => {
  it('names a tool whose module is gone, and a tool that takes the server’s name', async () => {
    const plan = fixturePlan()
    const tools = [{ ...plan.tools[0]!, source: { file: 'tools/gone.ts', line: 7, column: 3 } }, { ...plan.tools[1]!, name: MCP_SERVER_ENTRY }]
    const bundler = new ScriptBundler(fixtureRoot)
    try {
      const result = await bundler.build({ ...plan, tools })
      expect(result.files).toEqual([])
      expect(result.diagnostics).toEqual([
        expect.objectContaining({ severity: 'error', code: 'tool-module-missing', file: 'tools/gone.ts', line: 7, column: 3 }),
        expect.objectContaining({ severity: 'error', code: 'tool-name-reserved', file: 'tools/notes.ts', line: 5 }),
      ])
    } finally {
      await bundler.dispose()
    }
  })

  it('turns build errors into diagnostics with file and line', async () => {
    const root = await tempDir()
    await mkdir(join(root, 'tools'))
    await writeFile(join(root, 'tools', 'broken.ts'), "import { defineTool } from 'unplugin-oac'\n\nexport const broken = defineTool({\n  name: 'broken',,\n})\n")
    await writeFile(join(root, 'tools', 'lost.ts'), "import { helper } from './missing.js'\n\nexport const lost = helper\n")
    const plan = fixturePlan({ env: [] })
    const base = plan.tools[3]!
    const tools = [
      { ...base, name: 'broken', source: { file: 'tools/broken.ts', line: 3, column: 23 }, script: 'scripts/broken.mjs' },
      { ...base, name: 'lost', source: { file: 'tools/lost.ts', line: 3, column: 1 }, script: 'scripts/lost.mjs' },
    ]
    const bundler = new ScriptBundler(root)
    try {
      const result = await bundler.build({ ...plan, tools })
      expect(result.files).toEqual([])
      expect(result.diagnostics).toEqual([
        { severity: 'error', code: 'bundle-error', message: 'Expected identifier but found ","', file: 'tools/broken.ts', line: 4, column: 18 },
        { severity: 'error', code: 'bundle-error', message: 'Could not resolve "./missing.js"', file: 'tools/lost.ts', line: 1, column: 24 },
      ])
    } finally {
      await bundler.dispose()
    }
  })
})

describe('build calls', () => {
  it('produce nothing for a plan without tools', async () => {
    const bundler = new ScriptBundler(fixtureRoot)
    try {
      expect(await bundler.build(fixturePlan({ tools: [] }))).toEqual({ files: [], inputs: [], diagnostics: [] })
    } finally {
      await bundler.dispose()
    }
  })

  it('run one at a time, each giving the files of its own plan', async () => {
    const bundler = new ScriptBundler(fixtureRoot)
    try {
      const fewer = fixturePlan()
      fewer.tools = fewer.tools.filter((t) => t.name !== 'count')
      const [all, some] = await Promise.all([bundler.build(fixturePlan()), bundler.build(fewer)])
      expect(all.files.map((f) => f.path)).toContain('scripts/count.mjs')
      expect(some.files.map((f) => f.path)).not.toContain('scripts/count.mjs')
      expect(some.files.map((f) => f.path)).toContain('scripts/weather.mjs')
    } finally {
      await bundler.dispose()
    }
  })
})

describe('incremental rebuilds', () => {
  it('rebuilds an edited tool, keeps other scripts, and follows plan and entry-set changes', async () => {
    const root = await copyFixture(join(await tempDir(), 'project'))
    const bundler = new ScriptBundler(root)
    try {
      const first = await bundler.build(fixturePlan())
      expect(first.diagnostics).toEqual([])

      const explodePath = join(root, 'tools', 'explode.ts')
      await writeFile(explodePath, (await readFile(explodePath, 'utf8')).replace('the tool blew up', 'the edited tool failed'))
      const second = await bundler.build(fixturePlan())
      expect(second.diagnostics).toEqual([])
      expect(contentOf(second, 'scripts/tools/weather.mjs')).toBe(contentOf(first, 'scripts/tools/weather.mjs'))
      const dir = await writeAndMove(second.files)
      expect(await runNode(dir, ['scripts/explode.mjs', '--reason', 'x'])).toEqual({ code: 1, stdout: '', stderr: 'the edited tool failed: x\n' })

      // Same modules, new plan data: the launcher, which carries it, is made again.
      const described = fixturePlan()
      described.tools[0] = { ...described.tools[0]!, description: 'A rewritten description.' }
      const third = await bundler.build(described)
      const help = await runNode(await writeAndMove(third.files), ['scripts/weather.mjs', '--help'])
      expect(help.stdout).toContain('weather: A rewritten description.')

      // Another entry set: a tool dropped, then back.
      const fewer = fixturePlan()
      fewer.tools = fewer.tools.filter((t) => t.name !== 'count')
      const fourth = await bundler.build(fewer)
      expect(fourth.files.map((f) => f.path)).not.toContain('scripts/count.mjs')
      const fifth = await bundler.build(fixturePlan())
      expect(fifth.files.map((f) => f.path)).toContain('scripts/count.mjs')
      expect(contentOf(fifth, 'scripts/tools/weather.mjs')).toBe(contentOf(first, 'scripts/tools/weather.mjs'))
    } finally {
      await bundler.dispose()
    }
  })

  it('sees an edit that keeps the size and modification time of the file it replaces', async () => {
    // A coarse clock (whole seconds on some file systems) gives a quick second edit the first one's mtime:
    // each pair below is an edit, a build that reads it, and a second edit of the same size in the same tick.
    const root = await copyFixture(join(await tempDir(), 'project'))
    const bundler = new ScriptBundler(root)
    try {
      const explodePath = join(root, 'tools', 'explode.ts')
      const original = await readFile(explodePath, 'utf8')
      const edit = async (text: string, tick: Date) => {
        expect(text).toHaveLength('the tool blew up'.length)
        await writeFile(explodePath, original.replace('the tool blew up', text))
        await utimes(explodePath, tick, tick)
      }
      const seen = async () => /the tool fell \w+/.exec(contentOf(await bundler.build(fixturePlan()), 'scripts/tools/explode.mjs'))?.[0]
      for (const [first, second] of [['the tool fell up', 'the tool fell in'], ['the tool fell on', 'the tool fell by']]) {
        const tick = new Date(Math.floor(Date.now() / 1000) * 1000)
        await edit(first!, tick)
        expect(await seen()).toBe(first)
        await edit(second!, tick)
        expect(await seen()).toBe(second)
      }
      // Nothing changed: the same scripts again (from the last build, which is not rebuilt).
      const last = await bundler.build(fixturePlan())
      const again = await bundler.build(fixturePlan())
      expect(again.files).toEqual(last.files)
      expect(again.inputs).toEqual(last.inputs)
    } finally {
      await bundler.dispose()
    }
  })

  it('keeps reporting the inputs to watch through a failed build, and recovers once the error is fixed', async () => {
    const root = await copyFixture(join(await tempDir(), 'project'))
    const bundler = new ScriptBundler(root)
    try {
      const good = await bundler.build(fixturePlan())
      const weatherPath = join(root, 'tools', 'weather.ts')
      const original = await readFile(weatherPath, 'utf8')
      await writeFile(join(root, 'lib', 'extra.ts'), 'export const extra = (\n')
      await writeFile(weatherPath, `import { extra } from '../lib/extra.js'\n${original}\nexport const more = extra\n`)
      const failed = await bundler.build(fixturePlan())
      expect(failed.diagnostics).toEqual([expect.objectContaining({ code: 'bundle-error', file: 'lib/extra.ts', line: 2 })])
      expect(failed.files).toEqual([])
      expect(failed.inputs).toEqual(expect.arrayContaining([...good.inputs, join(root, 'lib', 'extra.ts')]))
      await writeFile(weatherPath, original)
      const fixed = await bundler.build(fixturePlan())
      expect(fixed.diagnostics).toEqual([])
      expect(fixed.files.map((f) => f.path)).toContain('scripts/weather.mjs')
    } finally {
      await bundler.dispose()
    }
  })
})

describe('tools that share a module', () => {
  // tools/shop.ts defines pick_color (TypeBox 1.x), order_total (zod), check_items (zod, which the plan
  // leaves out) and quote (zod, which calls check_items and order_total); all of them use one helper.
  const shop = readFileSync(join(fixtureRoot, 'tools', 'shop.ts'), 'utf8').split('\n')
  /** 1-based, as compile locates a definition: the `defineTool` of `export const <binding> = defineTool(`. */
  const definedAt = (binding: string, file = 'tools/shop.ts') => {
    const lines = readFileSync(join(fixtureRoot, file), 'utf8').split('\n')
    const index = lines.findIndex((line) => line.includes(`export const ${binding} = defineTool(`))
    return { file, line: index + 1, column: lines[index]!.indexOf('defineTool') + 1 }
  }
  const lineOf = (text: string) => 1 + shop.findIndex((line) => line.includes(text))
  const items = { type: 'object', properties: { items: { type: 'array', items: { type: 'integer' } } }, required: ['items'] } satisfies JsonSchema
  function shopTool(name: string, binding: string, fields: Partial<PlannedTool>, file?: string): PlannedTool {
    return { ...fixturePlan().tools[0]!, name, description: name, script: `scripts/${name}.mjs`, schema: items, source: definedAt(binding, file), ...fields }
  }
  const shopPlan = fixturePlan({
    tools: [
      shopTool('pick_color', 'pickColor', {
        schemaKind: 'typebox',
        schemaPackage: 'typebox',
        schema: { type: 'object', properties: { shade: { type: 'string', enum: ['light', 'dark'] } }, required: ['shade'] },
      }),
      shopTool('order_total', 'orderTotal', {}),
      shopTool('quote', 'quote', {}),
    ],
  })
  const bundler = new ScriptBundler(fixtureRoot)
  let result: BundleResult
  let dir: string
  beforeAll(async () => {
    result = await bundler.build(shopPlan)
    dir = await writeAndMove(result.files)
  })
  afterAll(() => bundler.dispose())

  it('gives each script its own tool and what that tool uses, and leaves out the module’s other tools with their imports', () => {
    expect(result.diagnostics).toEqual([])
    const code = (tool: string) => contentOf(result, `scripts/tools/${tool}.mjs`)
    const vendorImports = (tool: string) => importsOf(code(tool)).filter((specifier) => !specifier.includes('/unplugin-oac@'))
    for (const tool of ['pick_color', 'order_total', 'quote']) expect(code(tool)).toContain('function euros(cents) {')

    expect(code('pick_color')).toContain('name: "pick_color"')
    expect(code('pick_color')).not.toMatch(/name: "(order_total|quote)"/)
    expect(vendorImports('pick_color')).toEqual([expect.stringMatching(/^\.\.\/vendor\/typebox@[\d.]+\//)])

    expect(code('order_total')).toContain('name: "order_total"')
    expect(code('order_total')).not.toMatch(/name: "(pick_color|quote)"|colorInput|Type\./)
    expect(vendorImports('order_total')).toEqual([expect.stringMatching(/^\.\.\/vendor\/zod@[\d.]+\/index\.mjs$/)])

    expect(code('pick_color')).not.toContain('check_items')
    expect(code('order_total')).not.toContain('check_items')
    // quote calls check_items and order_total, so its script keeps them.
    for (const kept of ['quote', 'check_items', 'order_total']) expect(code('quote')).toContain(`name: "${kept}"`)
    expect(code('quote')).not.toMatch(/name: "pick_color"|colorInput|Type\./)
    expect(vendorImports('quote')).toEqual([expect.stringMatching(/^\.\.\/vendor\/zod@[\d.]+\/index\.mjs$/)])

    // A script's own tool reads as it was written: the marks that let esbuild drop the others are not in it.
    for (const tool of ['pick_color', 'order_total']) expect(code(tool)).not.toContain('@__PURE__')
  })

  it('runs each script', async () => {
    expect(await runNode(dir, ['scripts/pick_color.mjs', '--shade', 'dark'])).toEqual({ code: 0, stdout: 'slate, 2.50 EUR\n', stderr: '' })
    expect(await runNode(dir, ['scripts/order_total.mjs', '--json'], { stdin: '{"items":[150,250]}' })).toEqual({ code: 0, stdout: '4.00 EUR\n', stderr: '' })
    expect(await runNode(dir, ['scripts/quote.mjs', '--json'], { stdin: '{"items":[150,250]}' })).toEqual({ code: 0, stdout: 'quote: 4.00 EUR\n', stderr: '' })
  })

  it('names the line and column of the module that threw in a stack with OAC_DEBUG, also where marks moved that line’s code', async () => {
    const frame = (message: string) => `${join(dir, 'tools', 'shop.ts')}:${lineOf(message)}:${shop[lineOf(message) - 1]!.indexOf('new Error') + 1}`
    const calls = [
      { script: 'scripts/order_total.mjs', items: '[]', expected: frame('an order needs at least one item') },
      // check_items is marked in quote's script, on the very line that throws.
      { script: 'scripts/quote.mjs', items: '[1,2,3,4,5,6,7,8,9,10]', expected: frame('an order holds nine items at most') },
    ]
    for (const { script, items, expected } of calls) {
      const run = await runNode(dir, [script, '--json'], { stdin: `{"items":${items}}`, env: { OAC_DEBUG: '1' } })
      expect(run.code).toBe(1)
      expect(/\n\s+at .*?\((.+?shop\.ts:\d+:\d+)\)\n/.exec(run.stderr)?.[1], run.stderr).toBe(expected)
    }
  })

  it('gives a tool of another such module that calls one of them the same script whichever tools are built with it', async () => {
    // tools/desk.ts defines receipt, which calls shop's order_total, and greet. In a cold build receipt
    // and pick_color, each the first tool of its module, share a build; after an edit of desk.ts only
    // desk's tools are built.
    const root = await copyFixture(join(await tempDir(), 'project'))
    const deskPlan = {
      ...shopPlan,
      tools: [...shopPlan.tools, shopTool('receipt', 'receipt', {}, 'tools/desk.ts'), shopTool('greet', 'greet', { schema: { type: 'object', properties: {} } }, 'tools/desk.ts')],
    }
    const bundler = new ScriptBundler(root)
    try {
      const cold = await bundler.build(deskPlan)
      expect(cold.diagnostics).toEqual([])
      const code = contentOf(cold, 'scripts/tools/receipt.mjs')
      expect(code).toContain('name: "order_total"')
      expect(code).not.toMatch(/name: "(pick_color|quote|check_items|greet)"/)
      const desk = join(root, 'tools', 'desk.ts')
      await writeFile(desk, (await readFile(desk, 'utf8')).replace("'hello'", "'hi'"))
      const rebuilt = await bundler.build(deskPlan)
      expect(contentOf(rebuilt, 'scripts/tools/greet.mjs')).toContain('"hi"')
      expect(contentOf(rebuilt, 'scripts/tools/receipt.mjs')).toBe(code)
      const run = await runNode(await writeAndMove(rebuilt.files), ['scripts/receipt.mjs', '--json'], { stdin: '{"items":[150,250]}' })
      expect(run).toEqual({ code: 0, stdout: 'receipt: 4.00 EUR\n', stderr: '' })
    } finally {
      await bundler.dispose()
    }
  })

  it('ships no TypeBox when the plan leaves out the module’s one TypeBox tool', async () => {
    const zodOnly = new ScriptBundler(fixtureRoot)
    try {
      const built = await zodOnly.build({ ...shopPlan, tools: shopPlan.tools.filter((tool) => tool.schemaPackage === 'zod') })
      expect(built.diagnostics).toEqual([])
      expect(built.files.filter((f) => f.path.includes('typebox') || f.content.includes('Type.Object')).map((f) => f.path)).toEqual([])
    } finally {
      await zodOnly.dispose()
    }
  })
})

/** The paths whose content differs between two builds, or that only one of them has. */
function changedFiles(before: BundleResult, after: BundleResult): string[] {
  const old = new Map(before.files.map((f) => [f.path, f.content]))
  const now = new Map(after.files.map((f) => [f.path, f.content]))
  return [...new Set([...old.keys(), ...now.keys()])].filter((path) => old.get(path) !== now.get(path)).sort()
}

describe('what one tool changes', () => {
  it('adding or removing a tool changes its own three files and the server’s list, no other script or vendor file', async () => {
    const bundler = new ScriptBundler(fixtureRoot)
    try {
      const without = fixturePlan()
      without.tools = without.tools.filter((t) => t.name !== 'plan_trip')
      const before = await bundler.build(without)
      const after = await bundler.build(fixturePlan())
      expect(after.diagnostics).toEqual([])
      const expected = ['scripts/mcp_tools_server.cjs', 'scripts/plan_trip.mjs', 'scripts/tools/plan_trip.mjs', 'scripts/tools/plan_trip.mjs.map']
      expect(changedFiles(before, after)).toEqual(expected)
      // And from a bundler that never saw the smaller plan: the same bytes.
      const fresh = new ScriptBundler(fixtureRoot)
      try {
        expect(changedFiles(await fresh.build(without), after)).toEqual(expected)
      } finally {
        await fresh.dispose()
      }
    } finally {
      await bundler.dispose()
    }
  })

  it('editing a tool’s run body changes only its code file and that file’s map', async () => {
    const root = await copyFixture(join(await tempDir(), 'project'))
    const bundler = new ScriptBundler(root)
    try {
      const first = await bundler.build(fixturePlan())
      const explodePath = join(root, 'tools', 'explode.ts')
      await writeFile(explodePath, (await readFile(explodePath, 'utf8')).replace('the tool blew up', 'it went off'))
      const second = await bundler.build(fixturePlan())
      expect(changedFiles(first, second)).toEqual(['scripts/tools/explode.mjs', 'scripts/tools/explode.mjs.map'])
      // The rebuild of that one tool alone gives the bytes a build of every tool gives.
      const fresh = new ScriptBundler(root)
      try {
        expect(changedFiles(await fresh.build(fixturePlan()), second)).toEqual([])
      } finally {
        await fresh.dispose()
      }
    } finally {
      await bundler.dispose()
    }
  })

  it('ships TypeBox only with a TypeBox tool', async () => {
    const bundler = new ScriptBundler(fixtureRoot)
    try {
      const zodOnly = fixturePlan()
      zodOnly.tools = zodOnly.tools.filter((t) => t.schemaKind !== 'typebox')
      const withoutTypeBox = await bundler.build(zodOnly)
      expect(withoutTypeBox.diagnostics).toEqual([])
      expect(withoutTypeBox.files.filter((f) => f.path.includes('typebox') || f.content.includes('TypeCompiler')).map((f) => f.path)).toEqual([])
      const withTypeBox = await bundler.build(fixturePlan())
      expect(withTypeBox.files.filter((f) => f.path.includes('/@sinclair/typebox@')).length).toBeGreaterThan(0)
    } finally {
      await bundler.dispose()
    }
  })
})

describe('what one hook changes', () => {
  // test/fixtures/hooks: thirteen hooks, all of one module, beside the tools they watch.
  let root = ''
  let plan: Plan
  beforeAll(async () => {
    root = join(await tempDir(), 'project')
    await cp(hooksFixture, root, { recursive: true, filter: (path) => !path.includes(`${sep}node_modules`) })
    await symlink(join(packageRoot, 'node_modules'), join(root, 'node_modules'), 'dir')
    plan = compilePlan(await loadRegistry('registries.ts:all', root), { root }).plan!
  }, 120_000)
  const hookFiles = (name: string) => [`scripts/hooks/${name}.code.mjs`, `scripts/hooks/${name}.code.mjs.map`, `scripts/hooks/${name}.mjs`]

  it('the hooks add their own files alone, no vendor file; adding one adds its three files and changes no other', async () => {
    const bundler = new ScriptBundler(root)
    try {
      const none = await bundler.build({ ...plan, hooks: [] })
      const withoutAsker = await bundler.build({ ...plan, hooks: plan.hooks.filter((hook) => hook.name !== 'asker') })
      const all = await bundler.build(plan)
      expect(all.diagnostics).toEqual([])
      expect(changedFiles(none, all)).toEqual(plan.hooks.flatMap((hook) => hookFiles(hook.name)).sort())
      expect(changedFiles(withoutAsker, all)).toEqual(hookFiles('asker'))
    } finally {
      await bundler.dispose()
    }
  })

  it('editing a hook’s run body changes only its code file (and that file’s map), as a build of every hook gives it', async () => {
    const bundler = new ScriptBundler(root)
    try {
      const first = await bundler.build(plan)
      const hooksPath = join(root, 'hooks.ts')
      await writeFile(hooksPath, (await readFile(hooksPath, 'utf8')).replace("ctx.block('no rm -rf')", "ctx.block('never rm -rf')"))
      const second = await bundler.build(plan)
      const changed = changedFiles(first, second)
      expect(changed.filter((path) => path !== 'scripts/hooks/guard.code.mjs.map')).toEqual(['scripts/hooks/guard.code.mjs'])
      expect(contentOf(second, 'scripts/hooks/guard.code.mjs')).toContain('never rm -rf')
      const fresh = new ScriptBundler(root)
      try {
        expect(changedFiles(await fresh.build(plan), second)).toEqual([])
      } finally {
        await fresh.dispose()
      }
    } finally {
      await bundler.dispose()
    }
  })
})

/**
 * The build of one tool, `name`, with the input `{ text: string }`, defined in tools/<name>.ts of a
 * copy of the fixture: a module of `imports` (after those of unplugin-oac and zod) and `run`. `files`:
 * other files of the project, by path.
 */
async function buildTextTool(name: string, module: { imports: string; run: string }, files: Record<string, string> = {}): Promise<BundleResult> {
  const root = await copyFixture(join(await tempDir(), 'project'))
  for (const [path, text] of Object.entries(files)) {
    await mkdir(dirname(join(root, path)), { recursive: true })
    await writeFile(join(root, path), text)
  }
  const head = `import { defineTool } from 'unplugin-oac'\nimport { z } from 'zod'\n${module.imports}\n\n`
  const definition = 'export const tool = defineTool('
  await writeFile(
    join(root, 'tools', `${name}.ts`),
    `${head}${definition}{\n  name: '${name}',\n  description: 'Reads a text.',\n  input: z.object({ text: z.string() }),\n  run: ${module.run},\n})\n`,
  )
  const source = { file: `tools/${name}.ts`, line: head.split('\n').length, column: definition.length - 'defineTool('.length + 1 }
  const schema: JsonSchema = { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] }
  const plan = fixturePlan({ tools: [{ ...fixturePlan().tools[0]!, name, description: 'Reads a text.', source, script: `scripts/${name}.mjs`, schema }] })
  const bundler = new ScriptBundler(root)
  try {
    return await bundler.build(plan)
  } finally {
    await bundler.dispose()
  }
}

describe('packages', () => {
  it('bundles a CommonJS package into the script that imports it, which still runs with no node_modules', async () => {
    const result = await buildTextTool('settings', { imports: "import ms from 'ms'", run: '({ text }) => ({ ms: ms(text) })' })
    expect(result.diagnostics).toEqual([])
    expect(result.files.filter((f) => f.path.includes('/ms@')).map((f) => f.path)).toEqual([])
    expect(importsOf(contentOf(result, 'scripts/tools/settings.mjs')).filter((specifier) => !specifier.startsWith('../vendor/'))).toEqual([])
    const run = await runNode(await writeAndMove(result.files), ['scripts/settings.mjs', '--text', '2 days'])
    expect(run).toEqual({ code: 0, stdout: '{\n  "ms": 172800000\n}\n', stderr: '' })
  })
})

describe('local code', () => {
  it('bundles a module of the project’s own `vendor` folder, whose imports read like the vendor files’', async () => {
    const shout = 'export const shout = (text: string) => `${text.toUpperCase()}!`\n'
    const result = await buildTextTool('shout', { imports: "import { shout } from '../vendor/shout.js'", run: '({ text }) => shout(text)' }, { 'vendor/shout.ts': shout })
    expect(result.diagnostics).toEqual([])
    expect(contentOf(result, 'scripts/tools/shout.mjs')).toContain('toUpperCase()')
    const run = await runNode(await writeAndMove(result.files), ['scripts/shout.mjs', '--text', 'hi'])
    expect(run).toEqual({ code: 0, stdout: 'HI!\n', stderr: '' })
  })
})

describe('determinism', () => {
  async function buildAt(dir: string, plan: Plan): Promise<BundleResult> {
    const bundler = new ScriptBundler(await copyFixture(dir))
    try {
      return await bundler.build(plan)
    } finally {
      await bundler.dispose()
    }
  }

  // Chunk hashes cover the inputs' paths relative to the root, so two checkouts agree byte for
  // byte when their layout relative to the root matches (as clones of one repository do).
  it('gives byte-identical files from two checkouts at different paths', async () => {
    const one = await buildAt(join(await tempDir(), 'checkout-one'), fixturePlan())
    const two = await buildAt(join(await tempDir(), 'other-clone'), fixturePlan())
    expect(one.diagnostics).toEqual([])
    expect(two.files.map((f) => f.path)).toEqual(one.files.map((f) => f.path))
    for (const [index, file] of one.files.entries()) expect(two.files[index]!.content, file.path).toBe(file.content)
  })
})
