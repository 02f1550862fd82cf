import { harness } from '../compile/harnesses/index.js'
import type { Plan, PlannedTool } from '../compile/plan.js'
import { jsString } from './codegen/escape.js'
import { BRIDGE_TYPES, bridgeHeader, connectCode, connectImports } from './codegen/mcp-bridge.js'
import type { OpencodeFamily } from './opencode.js'

/**
 * The plugin that gives an opencode-family harness (Kilo) the tools of the MCP servers its project
 * configuration cannot carry, written at `path`. Kilo awaits a plugin's function while it starts and
 * takes the tools of its `tool` hook by their keys: the function connects to the servers through
 * `scripts/mcp_bridge.cjs` (within the bridge's bound, see src/runtime/mcp-bridge.ts) and returns each
 * listed tool as `<server>_<tool>`, the name the harness gives an MCP server's tool, so that the agents'
 * `<server>_*` permissions and the approval rules name it as they would. Its `args` are one zod `unknown`
 * per property carrying the property's JSON Schema as metadata (Kilo 7.7.7 turns a plugin tool's zod
 * arguments into JSON Schema with their metadata; a property not required is optional). A call asks the
 * harness under the tool's name, as our shims do; the result is the server's text, its images as
 * attachments; a failed call throws its text.
 */
export function opencodeBridgePlugin(plan: Plan, family: OpencodeFamily, tools: readonly PlannedTool[], path: string): string {
  const taken = [...harness(family.harness).builtinTools, ...tools.map((tool) => tool.name)]
  return [
    bridgeHeader(plan, family.harness),
    ...connectImports(plan),
    `import { tool } from ${jsString(family.pluginPackage)}`,
    '',
    'export const OacMcpBridge = async (ctx: { directory: string }) => {',
    connectCode(plan, family.harness, path, { cwd: 'ctx.directory', report: `(message: string) => console.error(\`${family.harness}: \${message}\`)`, taken }, '  '),
    '  const z = tool.schema',
    '  /** The zod arguments of a tool whose input is `schema`: each property its JSON Schema, as metadata. */',
    '  const args = (schema: Record<string, unknown>) => {',
    '    const required = new Set(Array.isArray(schema.required) ? schema.required : [])',
    '    const properties = (schema.properties ?? {}) as Record<string, Record<string, unknown>>',
    '    return Object.fromEntries(',
    '      Object.entries(properties).map(([key, property]) => {',
    '        const field = z.unknown().meta(property)',
    '        return [key, required.has(key) ? field : field.optional()]',
    '      }),',
    '    )',
    '  }',
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
    '  }',
    '}',
    '',
    BRIDGE_TYPES,
  ].join('\n')
}
