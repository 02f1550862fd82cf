import { join } from 'node:path'
import { harness } from '../compile/harnesses/index.js'
import type { Plan, PlannedTool } from '../compile/plan.js'
import type { JsonValue } from '../define/types.js'
import { jsString } from '../emit/codegen/escape.js'
import type { OwnModule } from '../package-paths.js'

/** The entry that serves every JSON tool over MCP stdio, next to the tool scripts. */
export const MCP_SERVER_ENTRY = 'mcp_tools_server'

/** True when the plan needs `scripts/mcp_tools_server.cjs`: native tools for a harness whose tools route is MCP, and a JSON tool to serve. */
export function needsMcpServer(plan: Plan): boolean {
  return plan.nativeTools && plan.harnesses.some((id) => harness(id).toolRoute === 'mcp') && plan.tools.some((t) => t.json)
}

export interface EntryContext {
  /** The project root: tool modules are `root + tool.source.file`. */
  root: string
  /** Absolute path of one of our runtime modules. */
  ownModule(name: OwnModule): string
  /** Our package version, announced by the MCP server. */
  version: string
}

/**
 * Data embedded in generated code. Parsed from a JSON string rather than written as an object
 * literal: in a literal, a `"__proto__"` key (a schema property may have that name) would set the
 * prototype instead of creating the property.
 */
function jsonData(value: JsonValue): string {
  return `JSON.parse(${jsString(JSON.stringify(value))})`
}

/** The absolute path of the module where the tool's `defineTool` was called. */
export function toolModulePath(root: string, tool: PlannedTool): string {
  return join(root, ...tool.source.file.split('/'))
}

/**
 * `scripts/<tool>.mjs`: imported, it exports `tool` and `invoke(input, options)` (the inline
 * bridge); run by node, it is the tool's command line. The main-module test needs the entry's
 * own `import.meta.url`, so it is written here rather than in the shared runtime.
 */
export function toolEntrySource(plan: Plan, tool: PlannedTool, context: EntryContext): string {
  const spec = { name: tool.name, description: tool.description, script: tool.script, schema: tool.schema, env: plan.env }
  return [
    `import { invokeTool, pickTool } from ${jsString(context.ownModule('runtime/invoke'))}`,
    `import { isMainModule, runToolCli } from ${jsString(context.ownModule('runtime/tool-cli'))}`,
    `import * as toolModule from ${jsString(toolModulePath(context.root, tool))}`,
    `const spec = ${jsonData(spec)}`,
    `export const tool = pickTool(toolModule, spec.name, ${jsString(tool.source.file)})`,
    `export function invoke(input, options) { return invokeTool(tool, input, options) }`,
    `if (isMainModule(import.meta.url)) runToolCli(tool, spec)`,
    '',
  ].join('\n')
}

/** How the server entry names a sibling tool script; resolved at run time, never bundled into the server. */
export function siblingScript(tool: PlannedTool): string {
  return `./${tool.name}.mjs`
}

/**
 * `scripts/mcp_tools_server.cjs`: every JSON tool, served from the sibling `scripts/<tool>.mjs`,
 * imported on the first call to it. Importing the script (rather than bundling the tool module into
 * the server) keeps one copy of each tool's code, and an edited tool changes one file.
 */
export function mcpServerEntrySource(plan: Plan, context: EntryContext): string {
  const tools = plan.tools
    .filter((tool) => tool.json)
    .map((tool) =>
      [
        `  {`,
        `    name: ${jsString(tool.name)},`,
        `    description: ${jsString(tool.description)},`,
        `    inputSchema: ${jsonData(tool.schema)},`,
        `    load: () => import(${jsString(siblingScript(tool))}),`,
        `  },`,
      ].join('\n'),
    )
  return [
    `import { startMcpServer } from ${jsString(context.ownModule('runtime/mcp-server'))}`,
    `const tools = [`,
    ...tools,
    `]`,
    `startMcpServer({ name: ${jsString(plan.serverName)}, version: ${jsString(context.version)}, env: ${jsonData(plan.env)}, tools }).catch((error) => {`,
    `  process.stderr.write(String(error instanceof Error ? error.message : error) + "\\n")`,
    `  process.exit(1)`,
    `})`,
    '',
  ].join('\n')
}
