import { transformSync } from 'esbuild'
import { commandModel, commandPrompt } from '../../compile/commands.js'
import { harness } from '../../compile/harnesses/index.js'
import type { Plan } from '../../compile/plan.js'
import { targetOf } from '../../compile/target.js'
import type { Harness, JsonValue } from '../../define/types.js'
import { bridgeCode, bridgeImports, generatedHeader } from '../codegen/bridge.js'
import { jsString, jsValue } from '../codegen/escape.js'
import { jsKey } from '../codegen/js-literal.js'
import { hasNativeForm } from '../codegen/prompt-docs.js'
import { hookPluginFile } from '../hook-plugins.js'
import { registeredHooks } from '../hooks.js'
import { serverRules } from '../mcp-scope.js'
import { pluginServerEntries } from '../mcp-servers.js'
import { OPENCODE_RESULT_CODE, opencodeAgent, opencodeExecute } from '../opencode.js'
import { skillsIn } from '../skills.js'
import type { OwnedFile } from '../types.js'
import type { PluginFormatEmitter, PluginPlan } from './types.js'

/** The format's folder, and the module in it that `package.json`'s `main` names (opencode's and Kilo's entry of a plugin package). */
const FOLDER = 'opencode'
const MAIN = `${FOLDER}/index.mjs`

/**
 * opencode and Kilo: one plugin module, `opencode/index.mjs`, named by `package.json`'s `main`, which
 * both read when `"plugin": [...]` names the folder (a path) or the package (an npm name). It exports
 * up to three plugin functions: `OacTools` gives the tools in-process (the `tool` hook, each calling its
 * script through the bridge, as a project's `.opencode/tool/<tool>.ts` does) and `OacHooks` the hooks
 * (as a project's hooks plugin); `OacConfig` adds the agents, commands, approval rules, skills and
 * MCP servers to the config in the `config` hook, which both call with the config they go on with. Plain
 * JavaScript, the types of the project's TypeScript taken out, importing nothing but Node's built-ins:
 * a plugin folder has no node_modules. Every script and folder is found from the module's own URL.
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
  const config = configModule(plan, harnesses)
  if (config) {
    files.push(...config)
    exports.push(`export { OacConfig } from "./config.mjs"`)
  }
  if (files.length === 0) return { files: [] }
  const index = [
    generatedHeader(`registry (plugin ${JSON.stringify(plan.plugin.name)})`),
    '// The opencode and Kilo plugin: each export is one plugin function, which opencode and Kilo both call.',
    ...exports,
    '',
  ].join('\n')
  return { files: [{ kind: 'owned', path: MAIN, content: index }, ...files], packageJson: { main: MAIN } }
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
      ...opencodeExecute(tool, targetOf(plan).scriptFrom(path, tool.script)).map((line) => `      ${line}`),
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
  const file = hookPluginFile(plan, first, hooks, path, harnessCode(harnesses))
  const [header, ...rest] = file.content.split('\n')
  return { kind: 'owned', path, content: javascript(header!, rest.join('\n')) }
}

/** The expression of the harness id the module runs in: Kilo sets KILO_PID to its own process id, opencode OPENCODE_PID (a process started from either inherits it). */
function harnessCode(harnesses: readonly Harness[]): string {
  return harnesses.length === 1 ? jsString(harnesses[0]!) : 'process.env.KILO_PID === String(process.pid) ? "kilo" : "opencode"'
}

/**
 * What the `config` hook adds for one harness: its agents, commands, approval rules (for our tools and
 * the servers' tools) and the MCP servers its configuration carries, as entries of its project config,
 * each reference still `{env:NAME}`.
 */
function configFor(plan: Plan, id: Harness & ('opencode' | 'kilo')): { [key: string]: JsonValue } {
  const tools = plan.tools.filter((tool) => hasNativeForm(plan, tool, id))
  const [file] = harness(id).commands
  const agents = plan.agents.map((agent) => {
    const { frontmatter, prompt } = opencodeAgent(plan, agent, tools, id)
    return [agent.name, { ...frontmatter, prompt }] as const
  })
  const commands = (plan.commands ?? []).flatMap((command) => {
    const agent = command.agent !== undefined && file?.fields.agent ? file.fields.agent(command.agent) : {}
    const template = file ? commandPrompt(command.prompt, file, command.name) : command.prompt
    const model = file ? commandModel(command.model, file) : undefined
    // Left out where the file cannot say the prompt (compile warned).
    if (template === undefined) return []
    return [[command.name, { template, ...(command.description !== undefined && { description: command.description }), ...agent, ...(model !== undefined && { model }), ...command.harness?.[id] }] as const]
  })
  const approvals = [...tools.filter((tool) => tool.approval !== undefined).map((tool) => [tool.name, tool.approval!] as const), ...serverRules(plan, id).map((rule) => [rule.name, rule.approval] as const)]
  return { agent: Object.fromEntries(agents), command: Object.fromEntries(commands), permission: Object.fromEntries(approvals), mcp: pluginServerEntries(plan, [id]) }
}

/**
 * The agents, commands, approval rules, skills and MCP servers, which a plugin cannot carry as files:
 * the `config` hook adds them to the config opencode and Kilo go on with, where the user's own config
 * has none of that name (opencode 1.18 lists a skill of a `skills.paths` entry added there; Kilo 7.7
 * does not, see docs/plugins.md). Both initialise their plugins before their MCP service, which starts
 * the servers of that config. The hook fills each server's `{env:NAME}` from the harness's environment,
 * as they fill a config file's as they read it (an unset variable is empty), so the values exist only in
 * the harness's memory: Kilo, which refuses any reference in a project's config, takes every server here.
 */
function configModule(plan: PluginPlan, harnesses: readonly Harness[]): OwnedFile[] | undefined {
  const ids = harnesses.filter((id): id is 'opencode' | 'kilo' => id === 'opencode' || id === 'kilo')
  const skills = skillsIn(plan, `${FOLDER}/skills`, ids)
  const configs = ids.map((id) => [id, configFor(plan, id)] as const)
  const empty = configs.every(([, config]) => Object.values(config).every((part) => Object.keys(part as object).length === 0))
  // The entries hold references in both CLIs' own syntax (OPENCODE_ENTRY's `{env:NAME}`), which `filled` below fills.
  const servers = configs.some(([, config]) => Object.keys(config.mcp as object).length > 0)
  if (skills.length === 0 && (configs.length === 0 || empty)) return undefined
  // One config when both harnesses get the same (their agents' prompts name the same tools), else each its own.
  const same = configs.every(([, config]) => JSON.stringify(config) === JSON.stringify(configs[0]![1]))
  const data = same ? `const CONFIG: Config = ${jsValue(configs[0]![1], '')}` : `const CONFIGS: Record<string, Config> = ${jsValue(Object.fromEntries(configs), '')}`
  const source = [
    'import { fileURLToPath } from "node:url"',
    '',
    'type Entries = Record<string, unknown>',
    'type Config = { agent: Entries; command: Entries; permission: Entries; mcp: Entries }',
    data,
    '',
    'const isEntries = (value: unknown): value is Entries | undefined => value === undefined || (typeof value === "object" && value !== null && !Array.isArray(value))',
    ...(servers
      ? [
          '/** `value` with each `{env:NAME}` in its strings filled from the environment, as opencode and Kilo fill a config file\'s. */',
          'const filled = (value: unknown): unknown =>',
          '  typeof value === "string"',
          '    ? value.replace(/\\{env:([^}]+)\\}/g, (_reference: string, name: string) => process.env[name] ?? "")',
          '    : Array.isArray(value)',
          '      ? value.map(filled)',
          '      : typeof value === "object" && value !== null',
          '        ? Object.fromEntries(Object.entries(value).map(([key, item]) => [key, filled(item)]))',
          '        : value',
        ]
      : []),
    '',
    'export const OacConfig = async () => {',
    '  return {',
    '    config: async (config: { agent?: Entries; command?: Entries; permission?: unknown; mcp?: unknown; skills?: { paths?: string[] } }) => {',
    ...(same ? [] : [`      const CONFIG = CONFIGS[${harnessCode(ids)}]!`]),
    '      // The user\'s own agent, command or rule of the same name wins.',
    '      config.agent = { ...CONFIG.agent, ...config.agent }',
    '      config.command = { ...CONFIG.command, ...config.command }',
    '      if (Object.keys(CONFIG.permission).length > 0 && isEntries(config.permission)) config.permission = { ...CONFIG.permission, ...config.permission }',
    ...(servers ? ['      if (isEntries(config.mcp)) config.mcp = { ...(filled(CONFIG.mcp) as Entries), ...config.mcp }'] : []),
    ...(skills.length === 0
      ? []
      : ['      config.skills = { ...config.skills, paths: [...(config.skills?.paths ?? []), fileURLToPath(new URL("./skills", import.meta.url))] }']),
    '    },',
    '  }',
    '}',
  ].join('\n')
  const header = generatedHeader(`registry (plugin ${JSON.stringify(plan.plugin.name)}): its agents, commands, approval rules, skills and MCP servers`)
  return [{ kind: 'owned', path: `${FOLDER}/config.mjs`, content: javascript(header, source) }, ...skills]
}

/** TypeScript made plain JavaScript (esbuild's type stripping, which prints the code anew), under its header line. */
function javascript(header: string, typescript: string): string {
  const { code } = transformSync(typescript, { loader: 'ts', format: 'esm', target: 'es2022', charset: 'utf8' })
  return `${header}\n${code}`
}
