import { transformSync } from 'esbuild'
import type { Plan } from '../../compile/plan.js'
import type { Harness } from '../../define/types.js'
import { bridgeCode, bridgeImports, generatedHeader, scriptFromShim } from '../codegen/bridge.js'
import { jsString, jsValue } from '../codegen/escape.js'
import { jsKey } from '../codegen/js-literal.js'
import { hasNativeForm } from '../codegen/prompt-docs.js'
import { hookPluginFile } from '../hook-plugins.js'
import { registeredHooks } from '../hooks.js'
import { OPENCODE_RESULT_CODE, opencodeExecute } from '../opencode.js'
import type { OwnedFile } from '../types.js'
import type { PluginFormatEmitter } from './index.js'

/** The folder of the module, and the module `package.json`'s `main` names (opencode's and Kilo's entry of a plugin package). */
const FOLDER = 'opencode'
export const OPENCODE_PLUGIN_MAIN = `${FOLDER}/index.mjs`

/**
 * opencode and Kilo: one plugin module, `opencode/index.mjs`, named by `package.json`'s `main`, which
 * both read when `"plugin": [...]` names the folder (a path) or the package (an npm name). It exports
 * two plugin functions: `OacTools` gives the tools in-process (the `tool` hook, each calling its
 * script through the bridge, as a project's `.opencode/tool/<tool>.ts` does) and `OacHooks` the hooks
 * (as a project's hooks plugin). Plain JavaScript, the types of the project's TypeScript taken out,
 * importing nothing but Node's built-ins: a plugin folder has no node_modules. Every script is found
 * from the module's own URL. Agents, skills and commands are the other formats' (see docs/plugins/opencode.md).
 */
export const emitOpencodePlugin: PluginFormatEmitter = (plan, harnesses) => {
  const files: OwnedFile[] = []
  const exports: string[] = []
  const tools = toolsModule(plan, harnesses)
  if (tools) {
    files.push(tools)
    exports.push(`export { OacTools } from "./tools.mjs"`)
  }
  const hooks = hooksModule(plan, harnesses)
  if (hooks) {
    files.push(hooks)
    exports.push(`export { OacHooks } from "./hooks.mjs"`)
  }
  if (files.length === 0) return { files: [] }
  const index = [
    generatedHeader(`registry (plugin ${JSON.stringify(plan.plugin.name)})`),
    '// The opencode and Kilo plugin: each export is one plugin function, which opencode and Kilo both call.',
    ...exports,
    '',
  ].join('\n')
  return { files: [{ kind: 'owned', path: OPENCODE_PLUGIN_MAIN, content: index }, ...files], packageJson: { main: OPENCODE_PLUGIN_MAIN } }
}

/**
 * The tools, each with its input schema's properties as `args` (opencode and Kilo take plain JSON
 * Schema there, but make every property required) and its whole schema given back in the
 * `tool.definition` hook, which both call before they show a tool to the model.
 */
function toolsModule(plan: Plan, harnesses: readonly Harness[]): OwnedFile | undefined {
  const path = `${FOLDER}/tools.mjs`
  const tools = plan.tools.filter((tool) => harnesses.some((id) => hasNativeForm(plan, tool, id)))
  if (tools.length === 0) return undefined
  const schemas = tools.map((tool) => `  ${jsKey(tool.name)}: ${jsValue(tool.schema, '  ')},`)
  const definitions = tools.map((tool) =>
    [
      `      ${jsKey(tool.name)}: {`,
      `        description: ${jsString(tool.description)},`,
      `        args: SCHEMAS[${jsString(tool.name)}].properties,`,
      ...opencodeExecute(tool, scriptFromShim(path, tool)).map((line) => `      ${line}`),
      '      },',
    ].join('\n'),
  )
  const source = [
    ...bridgeImports(plan),
    '',
    '/** Each tool\'s input schema, as the model is to see it. */',
    `const SCHEMAS: Record<string, { properties: Record<string, unknown> }> = {`,
    ...schemas,
    '}',
    '',
    'export const OacTools = async () => {',
    '  return {',
    '    tool: {',
    ...definitions,
    '    },',
    '    "tool.definition": async (input: { toolID: string }, output: { jsonSchema?: unknown }) => {',
    '      if (Object.hasOwn(SCHEMAS, input.toolID)) output.jsonSchema = SCHEMAS[input.toolID]',
    '    },',
    '  }',
    '}',
    '',
    OPENCODE_RESULT_CODE,
    bridgeCode(plan),
  ].join('\n')
  const header = generatedHeader(`tools ${tools.map((tool) => JSON.stringify(tool.name)).join(', ')} (${[...new Set(tools.map((tool) => tool.source.file))].join(', ')})`)
  return { kind: 'owned', path, content: javascript(header, source) }
}

/** The hooks, as a project's hooks plugin runs them, telling each which of the two harnesses it runs in. */
function hooksModule(plan: Plan, harnesses: readonly Harness[]): OwnedFile | undefined {
  const path = `${FOLDER}/hooks.mjs`
  const [first] = harnesses
  if (first === undefined) return undefined
  const hooks = registeredHooks(plan, first)
  if (hooks.length === 0) return undefined
  // Kilo sets KILO_PID to its own process id, opencode OPENCODE_PID (a process started from either inherits it).
  const harnessCode = harnesses.length === 1 ? jsString(first) : 'process.env.KILO_PID === String(process.pid) ? "kilo" : "opencode"'
  const file = hookPluginFile(plan, first, hooks, path, harnessCode)
  const [header, ...rest] = file.content.split('\n')
  return { kind: 'owned', path, content: javascript(header!, rest.join('\n')) }
}

/** TypeScript made plain JavaScript (esbuild's type stripping, which prints the code anew), under its header line. */
function javascript(header: string, typescript: string): string {
  const { code } = transformSync(typescript, { loader: 'ts', format: 'esm', target: 'es2022', charset: 'utf8' })
  return `${header}\n${code}`
}
