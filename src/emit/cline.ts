import type { Plan, PlannedTool } from '../compile/plan.js'
import { targetOf } from '../compile/target.js'
import { bridgeCode, bridgeImports, generatedHeader } from './codegen/bridge.js'
import { jsString } from './codegen/escape.js'
import { indentTail } from './codegen/js-literal.js'
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
  if (tools.length === 0) return []
  const path = `.cline/plugins/${plan.serverName}.ts`
  return [{ kind: 'owned', path, content: clinePluginModule(plan, tools, path) }]
}

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
    '/** The part of Cline\'s plugin API the module uses (@cline/shared 0.0.86, extensions/contribution-registry.d.ts). */',
    'interface ClineToolApi {',
    '  registerTool(tool: { name: string; description: string; inputSchema: Record<string, unknown>; execute(input: unknown): Promise<string> }): void',
    '}',
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
