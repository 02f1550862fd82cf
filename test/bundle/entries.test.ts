import { mkdir, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { type EntryContext, mcpServerSource, type RuntimeFiles, toolCodeSource, toolLauncherSource } from '../../src/bundle/entries.js'
import type { JsonSchema, Plan } from '../../src/compile/plan.js'
import { jsString } from '../../src/emit/codegen/escape.js'
import { fixturePlan, runNode, tempDir } from './fixture.js'

const hostile = fc.constantFrom('"', "'", '`', '${process.exit(9)}', '*/', '/*', '</script>', '\u2028', '\u2029', '\n', '\r\n', '\\', '\\u0041', "'''", '"""', '\0', '\x1b[31m', '---', '__proto__', 'constructor')
const text = fc.oneof(fc.string({ unit: 'binary', maxLength: 40 }), fc.array(hostile, { minLength: 1, maxLength: 6 }).map((parts) => parts.join('')))
const key = fc.oneof(text, fc.constantFrom('__proto__', 'constructor', 'toString'))

/** Own enumerable properties only: `{ "__proto__": ... }` must stay a property, as JSON.parse makes it. */
function objectFrom(entries: Array<[string, string]>): JsonSchema {
  const properties: JsonSchema = {}
  for (const [name, description] of entries) Object.defineProperty(properties, name, { value: { type: 'string', description }, enumerable: true, writable: true, configurable: true })
  return { type: 'object', properties }
}

const caseArbitrary = fc.record({
  name: text,
  description: text,
  properties: fc.array(fc.tuple(key, text), { maxLength: 4 }),
  env: fc.array(text, { maxLength: 3 }),
  serverName: text,
  version: text,
})

/** Where the entries look for the runtime: stand-ins the tests write. */
const runtimeFiles: RuntimeFiles = {
  start: 'runtime/start.mjs',
  script: 'runtime/script.mjs',
  mcpServer: 'runtime/mcp-server.cjs',
  check: { zod: 'runtime/check-zod.mjs', typebox: 'runtime/check-typebox.mjs', '@sinclair/typebox': 'runtime/check-sinclair-typebox.mjs' },
}

describe('generated entries', () => {
  it('carry every name, description, schema key, env name and version back exactly, and run nothing from them', async () => {
    const cases = fc.sample(caseArbitrary, { numRuns: 300, seed: 20_260_501 })
    const root = await tempDir()
    await mkdir(join(root, 'tools'))
    await mkdir(join(root, 'runtime'))
    // Stand-ins for the runtime that record what the entries hand them.
    await writeFile(
      join(root, 'runtime', 'script.mjs'),
      'export function pickTool(m, name, file) { return { picked: name, file, exports: Object.keys(m) } }\nexport function invokeTool() {}\nexport function runToolCli(tool, spec) { globalThis.recorded = { tool, spec } }\n',
    )
    await writeFile(
      join(root, 'runtime', 'mcp-server.cjs'),
      // `load` imports a sibling script named after the tool; the test below runs it with a real file.
      'exports.startMcpServer = async function (options) { globalThis.recorded = { ...options, tools: options.tools.map((t) => ({ ...t, load: typeof t.load })) } }\n',
    )
    await writeFile(join(root, 'runtime', 'check-zod.mjs'), 'export const checkInput = () => {}\n')
    await writeFile(join(root, 'tools', 'x.mjs'), 'export const defined = 1\n')
    const context: EntryContext = { root, runtime: runtimeFiles, version: '' }

    const expected: string[] = []
    for (const [index, c] of cases.entries()) {
      const base = fixturePlan().tools[0]!
      // Every other tool is imported by the name its module exports it under (the tool's own name here,
      // where it is a name a module can export: no lone surrogate); the others, as the whole module.
      const named = index % 2 === 1 && !/\p{Surrogate}/u.test(c.name)
      const file = named ? `tools/named-${index}.mjs` : 'tools/x.mjs'
      if (named) await writeFile(join(root, file), `const defined = 1\nexport { defined as ${jsString(c.name)} }\n`)
      // Every third tool has an output schema (its keys and descriptions as hostile) and effects, which the server lists.
      const rich = index % 3 === 1 ? { output: objectFrom(c.properties.map(([name, description]) => [name, `${description}!`])), effects: { readOnly: true, external: false } } : {}
      const tool = { ...base, ...rich, name: c.name, description: c.description, schema: objectFrom(c.properties), source: { file, line: 1, column: 1 } }
      const plan: Plan = { ...fixturePlan(), serverName: c.serverName, env: c.env, tools: [tool] }
      // The code file sits in tools/, as `scripts/tools/<tool>.mjs` does.
      await writeFile(join(root, 'tools', `tool-${index}.mjs`), toolCodeSource(plan, tool, context, named ? { exportName: c.name } : undefined))
      await writeFile(join(root, `server-${index}.cjs`), mcpServerSource(plan, { ...context, version: c.version }))
      // The launcher names the tool in its first line, a comment: it must stay one line.
      const launcher = toolLauncherSource(tool, context).split(/\r\n|[\n\r\u2028\u2029]/)
      expect(launcher).toHaveLength(4)
      expect(launcher[0]).toMatch(/^\/\/ /)
      expect(launcher.slice(1)).toEqual([
        'import { startToolScript } from "./runtime/start.mjs"',
        `export const { tool, invoke } = await startToolScript(import.meta.url, () => import(${jsString(`./tools/${c.name}.mjs`)}))`,
        '',
      ])
      const picked = { picked: c.name, file, exports: [named ? 'definition' : 'defined'] }
      expected.push(
        JSON.stringify({ tool: picked, spec: { name: c.name, description: c.description, script: tool.script, schema: tool.schema, env: c.env } }),
        JSON.stringify({
          name: c.serverName,
          version: c.version,
          env: c.env,
          tools: [
            {
              name: c.name,
              description: c.description,
              inputSchema: tool.schema,
              ...(tool.output && { outputSchema: tool.output, annotations: { readOnlyHint: true, openWorldHint: false } }),
              load: 'function',
            },
          ],
        }),
      )
    }
    const runner = `
      const out = []
      for (let i = 0; i < ${cases.length}; i++) {
        for (const file of ['./tools/tool-' + i + '.mjs', './server-' + i + '.cjs']) {
          globalThis.recorded = undefined
          const module = await import(file)
          if (module.runCli) module.runCli()
          await new Promise((resolve) => setImmediate(resolve))
          out.push(JSON.stringify(globalThis.recorded))
        }
      }
      process.stdout.write(JSON.stringify(out))
    `
    await writeFile(join(root, 'runner.mjs'), runner)
    const run = await runNode(root, ['runner.mjs'])
    expect(run.stderr).toBe('')
    expect(run.code).toBe(0)
    const recorded = JSON.parse(run.stdout) as string[]
    expect(recorded).toHaveLength(expected.length)
    for (const [index, value] of recorded.entries()) expect(value, `case ${Math.floor(index / 2)}`).toBe(expected[index])
  })

  it('serve each JSON tool from its sibling script, imported only on demand', async () => {
    const root = await tempDir()
    const context: EntryContext = { root: '/project', runtime: runtimeFiles, version: '1.0.0' }
    const source = mcpServerSource(fixturePlan(), context)
    // No tool module is bundled into the server: it names the sibling scripts, and only inside `load`.
    expect(source).not.toContain('/project/tools/')
    for (const tool of ['weather', 'notes', 'trip', 'explode']) expect(source).not.toMatch(new RegExp(`from "\\./${tool}\\.mjs"`))
    // json: false tools stay on the bash route.
    expect(source).not.toContain('count.mjs')
    expect(source).not.toContain('wait.mjs')

    await mkdir(join(root, 'runtime'), { recursive: true })
    await writeFile(join(root, 'runtime', 'mcp-server.cjs'), 'exports.startMcpServer = async function (options) { globalThis.served = options.tools }\n')
    await writeFile(
      join(root, 'weather.mjs'),
      'globalThis.weatherLoaded = true\nexport async function invoke(input) { return { ok: true, text: "weather from its script for " + input.city } }\n',
    )
    await writeFile(join(root, 'server.cjs'), source)
    const runner = `
      await import('./server.cjs')
      const before = globalThis.weatherLoaded === true
      const weather = await globalThis.served.find((t) => t.name === 'weather').load()
      const result = await weather.invoke({ city: 'Rome' }, {})
      process.stdout.write(JSON.stringify({ before, after: globalThis.weatherLoaded === true, result }))
    `
    await writeFile(join(root, 'runner.mjs'), runner)
    const run = await runNode(root, ['runner.mjs'])
    expect(run.stderr).toBe('')
    expect(JSON.parse(run.stdout)).toEqual({ before: false, after: true, result: { ok: true, text: 'weather from its script for Rome' } })
  })
})
