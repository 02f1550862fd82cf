import type { Plan, PlannedTool } from '../compile/plan.js'
import { harness } from '../compile/harnesses/index.js'
import { targetOf } from '../compile/target.js'
import { bridgeCode, bridgeImports, generatedHeader } from './codegen/bridge.js'
import { jsString } from './codegen/escape.js'
import { indentTail } from './codegen/js-literal.js'
import { BRIDGE_TYPES, bridgeHeader, bridgeName, bridgesMcpServers, connectCode, connectImports } from './codegen/mcp-bridge.js'
import { hasNativeForm } from './codegen/prompt-docs.js'
import type { OutputFile } from './types.js'

/**
 * Cline: one plugin module per MCP server name, `.cline/plugins/<server>.ts`, registering every JSON tool
 * with its canonical JSON Schema as `inputSchema` (Cline hands it to the model as written). Cline loads
 * the module in its plugin sandbox, a process of its own, and the tool runs its script from the
 * session's workspace. A result is the tool's text; a failed call throws its message, which Cline hands
 * the model as the tool's error. The call's signal is not passed on: across the sandbox's IPC it arrives as a
 * plain object, which Node's spawn refuses.
 */
export function emitCline(plan: Plan): OutputFile[] {
  const tools = clineTools(plan)
  const files: OutputFile[] = []
  if (tools.length > 0) {
    const path = `.cline/plugins/${plan.serverName}.ts`
    files.push({ kind: 'owned', path, content: clinePluginModule(plan, tools, path) })
  }
  if (bridgesMcpServers(plan, 'cline')) {
    const path = `.cline/plugins/${bridgeName(plan)}.ts`
    files.push({ kind: 'owned', path, content: clineBridgeModule(plan, path) })
  }
  return files
}

/**
 * The plugin module that gives Cline the tools of the registry's MCP servers (Cline reads MCP servers
 * from the user's settings only), written at `path`. Cline's sandbox takes the tools a plugin has
 * registered when its `setup` resolves, and gives the import and setup of all plugins 4 s: `setup`
 * connects to every server at once through `scripts/mcp_bridge.cjs` and registers each tool the servers
 * list within the bridge's shorter wait (see src/runtime/mcp-bridge.ts) as `<server>_<tool>`, with the
 * server's JSON Schema. A result is its text (an image as a line naming it); a failed call throws it.
 */
export function clineBridgeModule(plan: Plan, path: string): string {
  const taken = [...harness('cline').builtinTools, ...clineTools(plan).map((tool) => tool.name)]
  return [
    bridgeHeader(plan, 'cline'),
    ...connectImports(plan),
    '',
    CLINE_TOOL_API,
    '',
    'export default {',
    `  name: ${jsString(bridgeName(plan))},`,
    '  manifest: { capabilities: ["tools"] },',
    '  async setup(api: ClineToolApi, ctx: { workspaceInfo?: { rootPath?: string } }) {',
    connectCode(plan, 'cline', path, { cwd: 'ctx.workspaceInfo?.rootPath ?? process.cwd()', report: '(message: string) => console.error(`cline: ${message}`)', taken }, '    '),
    '    for (const tool of bridge.tools) {',
    '      api.registerTool({',
    '        name: tool.name,',
    '        description: tool.description,',
    '        inputSchema: tool.inputSchema,',
    '        async execute(input) {',
    '          const result = await tool.call(input, {})',
    '          if (result.isError) throw new Error(result.text)',
    '          return result.text',
    '        },',
    '      })',
    '    }',
    '  },',
    '}',
    '',
    BRIDGE_TYPES,
  ].join('\n')
}

const CLINE_TOOL_API = `/** The part of Cline's plugin API the module uses (@cline/shared 0.0.86, extensions/contribution-registry.d.ts). */
interface ClineToolApi {
  registerTool(tool: { name: string; description: string; inputSchema: Record<string, unknown>; execute(input: unknown): Promise<string> }): void
}`

/** The tools Cline is given natively: every JSON tool. */
export function clineTools(plan: Plan): PlannedTool[] {
  return plan.tools.filter((tool) => hasNativeForm(plan, tool, 'cline'))
}

/** The plugin module registering `tools`, written at `path`: it finds the scripts relative to itself, or in a user's home from the home (`Target.scriptFrom`). */
export function clinePluginModule(plan: Plan, tools: readonly PlannedTool[], path: string): string {
  const sources = tools.map((tool) => `${JSON.stringify(tool.name)} (${tool.source.file})`).join(', ')
  return [
    generatedHeader(`${tools.length === 1 ? 'tool' : 'tools'} ${sources}`),
    ...bridgeImports(plan),
    '',
    CLINE_TOOL_API,
    '',
    'export default {',
    `  name: ${jsString(plan.serverName)},`,
    '  manifest: { capabilities: ["tools"] },',
    '  setup(api: ClineToolApi, ctx: { workspaceInfo?: { rootPath?: string } }) {',
    '    const cwd = ctx.workspaceInfo?.rootPath ?? process.cwd()',
    tools.map((tool) => registration(plan, tool, path)).join('\n'),
    '  },',
    '}',
    '',
    bridgeCode(plan),
  ].join('\n')
}

function registration(plan: Plan, tool: PlannedTool, path: string): string {
  return [
    '    api.registerTool({',
    `      name: ${jsString(tool.name)},`,
    `      description: ${jsString(tool.description)},`,
    `      inputSchema: ${indentTail(JSON.stringify(tool.schema, null, 2), '      ')},`,
    '      async execute(input) {',
    `        const outcome = await runTool(${jsString(targetOf(plan).scriptFrom(path, tool.script))}, input, { cwd, signal: undefined, progress: () => undefined })`,
    '        if (!outcome.ok) throw new Error(outcome.message)',
    '        return outcome.text',
    '      },',
    '    })',
  ].join('\n')
}
