import { harness } from '../compile/harnesses/index.js'
import type { Plan, PlannedTool } from '../compile/plan.js'
import { jsString } from './codegen/escape.js'
import { BRIDGE_TYPES, bridgeHeader, connectCode, connectImports } from './codegen/mcp-bridge.js'
import type { Harness } from '../define/types.js'

/** What the plugin needs of an opencode-family harness (emit/opencode.ts `OpencodeFamily`). */
interface PluginFamily {
  harness: Extract<Harness, 'opencode' | 'kilo'>
  /** The package its plugins import `tool` from. */
  pluginPackage: string
}

/**
 * The plugin that gives an opencode-family harness (Kilo) the tools of the MCP servers its project
 * configuration cannot carry, written at `path`. Kilo awaits a plugin's function while it starts and
 * takes the tools of its `tool` hook by their keys: the function connects to the servers through
 * `scripts/mcp_bridge.cjs` (within the bridge's bound, see src/runtime/mcp-bridge.ts) and returns each
 * listed tool as `<server>_<tool>`, the name the harness gives an MCP server's tool, so that the agents'
 * `<server>_*` permissions and the approval rules name it as they would. Its `args` are one zod `unknown`
 * per property, optional where the server does not require it, which is what Kilo checks a call's input
 * against; the model is shown the server's own input schema, whole (its shared `$defs` or `definitions`
 * with the properties that `$ref` them), through the `tool.definition` hook, which Kilo 7.7.7 calls for
 * every tool before it shows it and whose `jsonSchema` it sends in place of the one it makes of `args`
 * (as it sends a configured server's). A call asks the harness under the tool's name, as our shims do;
 * the result is the server's text, its images as attachments; a failed call throws its text.
 */
export function opencodeBridgePlugin(plan: Plan, family: PluginFamily, tools: readonly PlannedTool[], path: string): string {
  const taken = [...harness(family.harness).builtinTools, ...tools.map((tool) => tool.name)]
  return [
    bridgeHeader(plan, family.harness),
    ...connectImports(plan),
    `import { tool } from ${jsString(family.pluginPackage)}`,
    '',
    'export const OacMcpBridge = async (ctx: { directory: string }) => {',
    connectCode(plan, family.harness, path, { cwd: 'ctx.directory', report: `(message: string) => console.error(\`${family.harness}: \${message}\`)`, taken }, '  '),
    '  const z = tool.schema',
    '  /** The zod arguments of a tool whose input is `schema`: each property any value, required where the server requires it. */',
    '  const args = (schema: Record<string, unknown>) => {',
    '    const required = new Set(Array.isArray(schema.required) ? schema.required : [])',
    '    return Object.fromEntries(Object.keys(schema.properties ?? {}).map((key) => [key, required.has(key) ? z.unknown() : z.unknown().optional()]))',
    '  }',
    '  const schemas = new Map(bridge.tools.map((bridged) => [bridged.name, bridged.inputSchema]))',
    '  return {',
    '    tool: Object.fromEntries(',
    '      bridge.tools.map((bridged) => [',
    '        bridged.name,',
    '        tool({',
    '          description: bridged.description,',
    '          args: args(bridged.inputSchema),',
    '          async execute(input, context) {',
    '            await context.ask({ permission: bridged.name, patterns: ["*"], always: ["*"], metadata: {} })',
    '            const result = await bridged.call(input, { signal: context.abort, progress: (title) => context.metadata({ title }) })',
    '            if (result.isError) throw new Error(result.text)',
    '            return {',
    '              output: result.content.flatMap((block) => (block.type === "text" ? [block.text] : [])).join("\\n"),',
    '              metadata: {},',
    '              attachments: result.content.flatMap((block, i) =>',
    '                block.type === "image" ? [{ type: "file" as const, mime: block.mimeType, url: `data:${block.mimeType};base64,${block.data}`, filename: `image-${i + 1}` }] : [],',
    '              ),',
    '            }',
    '          },',
    '        }),',
    '      ]),',
    '    ),',
    '    "tool.definition": async (input: { toolID: string }, output: { jsonSchema?: unknown }) => {',
    '      const schema = schemas.get(input.toolID)',
    '      if (schema) output.jsonSchema = schema',
    '    },',
    '  }',
    '}',
    '',
    BRIDGE_TYPES,
  ].join('\n')
}
