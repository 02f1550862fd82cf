import { mkdir, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { type EntryContext, mcpServerSource, type RuntimeFiles, toolDefinitionEntry, toolLauncherSource } from '../../src/bundle/entries.js'
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
  mcpBridge: 'runtime/mcp-bridge.mjs',
  mcpBridgeStart: 'runtime/mcp-bridge-start.cjs',
  check: { zod: 'runtime/check-zod.mjs', typebox: 'runtime/check-typebox.mjs', '@sinclair/typebox': 'runtime/check-sinclair-typebox.mjs' },
}

describe('generated entries', () => {
  it('carry every name, description, schema key, env name and version back exactly, and run nothing from them', async () => {
    const cases = fc.sample(caseArbitrary, { numRuns: 300, seed: 20_260_501 })
    const root = await tempDir()
    await mkdir(join(root, 'tools'))
    await mkdir(join(root, 'runtime'))
    // Stand-ins for the runtime that record what the entries hand them. The launcher's `load` is not
    // called here: it imports files named after the tool (see the next test).
    await writeFile(
      join(root, 'runtime', 'start.mjs'),
      'export async function startToolScript(url, { source, spec, load }) { globalThis.recorded = { source, spec, load: typeof load }; return {} }\n',
    )
    await writeFile(
      join(root, 'runtime', 'mcp-server.cjs'),
      // `load` imports a sibling script named after the tool; the test below runs it with a real file.
      'exports.startMcpServer = async function (options) { globalThis.recorded = { ...options, tools: options.tools.map((t) => ({ ...t, load: typeof t.load })) } }\n',
    )
    const context: EntryContext = { root, runtime: runtimeFiles, version: '' }

    const expected: string[] = []
    for (const [index, c] of cases.entries()) {
      const base = fixturePlan().tools[0]!
      // Every third tool has an output schema (its keys and descriptions as hostile) and effects, which the server lists.
      const rich = index % 3 === 1 ? { output: objectFrom(c.properties.map(([name, description]) => [name, `${description}!`])), effects: { readOnly: true, external: false } } : {}
      const file = `tools/module-${index}.mjs`
      const tool = { ...base, ...rich, name: c.name, description: c.description, schema: objectFrom(c.properties), source: { file, line: 1, column: 1 } }
      const plan: Plan = { ...fixturePlan(), serverName: c.serverName, env: c.env, tools: [tool] }
      await writeFile(join(root, `launcher-${index}.mjs`), toolLauncherSource(plan, tool, context))
      await writeFile(join(root, `server-${index}.cjs`), mcpServerSource(plan, { ...context, version: c.version }))
      // Where the name is one a module can export (no lone surrogate), the entry of a module that
      // defines several tools re-exports that name alone.
      const named = !/\p{Surrogate}/u.test(c.name)
      if (named) {
        await writeFile(join(root, file), `const defined = 1\nconst other = 2\nexport { defined as ${jsString(c.name)}, other }\n`)
        await writeFile(join(root, 'tools', `entry-${index}.mjs`), toolDefinitionEntry(tool, context, { exportName: c.name }))
      }
      // The launcher names the tool in its first line, a comment: it must stay one line.
      const launcher = toolLauncherSource(plan, tool, context).split(/\r\n|[\n\r\u2028\u2029]/)
      expect(launcher[0]).toMatch(/^\/\/ /)
      expect(launcher[1]).toBe('import { startToolScript } from "./runtime/start.mjs"')
      expect(launcher.slice(-2)).toEqual(['})', ''])
      expected.push(
        JSON.stringify({ source: file, spec: { name: c.name, description: c.description, script: tool.script, schema: tool.schema, env: c.env }, load: 'function' }),
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
        named ? JSON.stringify([c.name]) : 'skipped',
      )
    }
    const runner = `
      const out = []
      for (let i = 0; i < ${cases.length}; i++) {
        for (const file of ['./launcher-' + i + '.mjs', './server-' + i + '.cjs']) {
          globalThis.recorded = undefined
          await import(file)
          await new Promise((resolve) => setImmediate(resolve))
          out.push(JSON.stringify(globalThis.recorded))
        }
        const entry = await import('./tools/entry-' + i + '.mjs').catch(() => undefined)
        out.push(entry ? JSON.stringify(Object.keys(entry)) : 'skipped')
      }
      process.stdout.write(JSON.stringify(out))
    `
    await writeFile(join(root, 'runner.mjs'), runner)
    const run = await runNode(root, ['runner.mjs'])
    expect(run.stderr).toBe('')
    expect(run.code).toBe(0)
    const recorded = JSON.parse(run.stdout) as string[]
    expect(recorded).toHaveLength(expected.length)
    for (const [index, value] of recorded.entries()) expect(value, `case ${Math.floor(index / 3)}`).toBe(expected[index])
  })

  it('load the tool’s code, the runtime and its input check after the launcher runs, and hand them to the runtime', async () => {
    const root = await tempDir()
    await mkdir(join(root, 'tools'))
    await mkdir(join(root, 'runtime'))
    await writeFile(join(root, 'runtime', 'start.mjs'), 'export async function startToolScript(url, { source, spec, load }) { const [code, runtime, check] = await load(); return { tool: runtime.pickTool(code, spec.name, source), invoke: check.checkInput } }\n')
    await writeFile(join(root, 'runtime', 'script.mjs'), 'export function pickTool(code, name, source) { return { name, source, exports: Object.keys(code) } }\n')
    await writeFile(join(root, 'runtime', 'check-typebox.mjs'), 'export const checkInput = "the TypeBox check"\n')
    await writeFile(join(root, 'tools', 'weather.mjs'), 'export const forecast = 1\n')
    const base = fixturePlan().tools[0]!
    const tool = { ...base, name: 'weather', schemaPackage: 'typebox' as const, source: { file: 'agents/weather.ts', line: 4, column: 1 } }
    await writeFile(join(root, 'weather.mjs'), toolLauncherSource(fixturePlan({ tools: [tool] }), tool, { root, runtime: runtimeFiles, version: '' }))
    await writeFile(join(root, 'runner.mjs'), 'const { tool, invoke } = await import("./weather.mjs")\nprocess.stdout.write(JSON.stringify({ tool, invoke }))\n')
    const run = await runNode(root, ['runner.mjs'])
    expect(run.stderr).toBe('')
    expect(JSON.parse(run.stdout)).toEqual({ tool: { name: 'weather', source: 'agents/weather.ts', exports: ['forecast'] }, invoke: 'the TypeBox check' })
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
