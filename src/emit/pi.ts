import type { Plan, PlannedTool } from '../compile/plan.js'
import { harness } from '../compile/harnesses/index.js'
import { targetOf } from '../compile/target.js'
import { bridgeCode, bridgeImports, contentBlocksCode, generatedHeader } from './codegen/bridge.js'
import { jsString } from './codegen/escape.js'
import { indentTail } from './codegen/js-literal.js'
import { bridgeName, bridgesMcpServers, deferredBridgeExtension } from './codegen/mcp-bridge.js'
import { hasNativeForm } from './codegen/prompt-docs.js'
import { typeboxCode } from './codegen/typebox-code.js'
import type { OutputFile } from './types.js'

/** One extension per MCP server name, so apps sharing a target each keep their own. */
function extensionPath(plan: Plan): string {
  return `.pi/extensions/${plan.serverName}.ts`
}

/**
 * pi: one extension, `.pi/extensions/<server name>.ts` (`oac-tools.ts` by default), registering every JSON tool with TypeBox
 * parameters. `typebox` is what both pi 0.7x and 1.x resolve for extensions (their loaders alias
 * it, and `@sinclair/typebox`, to the TypeBox they ship); the pi type import is erased at load time.
 *
 * Results are content blocks (text, images) with the tool's details. pi marks a result failed only
 * when `execute` throws, which would lose the details, so a failed call returns its message and a
 * `tool_result` handler marks it failed. pi asks before no tool: a tool the config's approval rules
 * say asks confirms with the user in `execute` (and fails where pi has no UI to ask in).
 */
export function emitPi(plan: Plan): OutputFile[] {
  const tools = piTools(plan)
  const files: OutputFile[] = []
  if (tools.length > 0) files.push({ kind: 'owned', path: extensionPath(plan), content: piExtension(plan, tools, extensionPath(plan)) })
  if (bridgesMcpServers(plan, 'pi')) {
    const path = `.pi/extensions/${bridgeName(plan)}.ts`
    files.push({ kind: 'owned', path, content: piBridgeExtension(plan, path) })
  }
  return files
}

/**
 * The extension that gives pi the tools of the registry's MCP servers (pi has no MCP), written at `path`:
 * it connects while pi starts and registers each listed tool as `<server>_<tool>`, with the server's
 * JSON Schema as its parameters (see deferredBridgeExtension). A result is the server's content blocks;
 * a failed call is marked failed as our tools' are.
 */
export function piBridgeExtension(plan: Plan, path: string): string {
  return deferredBridgeExtension(plan, 'pi', path, {
    apiImport: `import type { ExtensionAPI } from "@mariozechner/pi-coding-agent"`,
    taken: [...harness('pi').builtinTools, ...piTools(plan).map((tool) => tool.name)],
    setup: [
      '  // The calls whose outcome is a failure, until pi reports their result.',
      '  const failed = new Set<string>()',
      '  pi.on("tool_result", (event) => (failed.delete(event.toolCallId) ? { isError: true } : undefined))',
    ],
    definition: [
      '        name: tool.name,',
      '        label: tool.title ?? tool.name,',
      '        description: tool.description,',
      '        promptSnippet: tool.description.replace(/\\s+/g, " ").trim(),',
      '        parameters: tool.inputSchema as Parameters<ExtensionAPI["registerTool"]>[0]["parameters"],',
      '        async execute(toolCallId, params, signal, onUpdate) {',
      '          const result = await tool.call(params, {',
      '            signal,',
      '            progress: (message) => onUpdate?.({ content: [{ type: "text", text: message }], details: {} }),',
      '          })',
      '          if (result.isError) failed.add(toolCallId)',
      '          return { content: result.content, details: {} }',
      '        },',
    ],
  })
}

/** The tools pi is given natively: every JSON tool. */
export function piTools(plan: Plan): PlannedTool[] {
  return plan.tools.filter((tool) => hasNativeForm(plan, tool, 'pi'))
}

/** The extension registering `tools`, written at `path` (a project's `.pi/extensions/`, or a pi package's folder): it finds the scripts relative to itself, or in a user's home from the home (`Target.scriptFrom`). */
export function piExtension(plan: Plan, tools: readonly PlannedTool[], path: string): string {
  const sources = tools.map((tool) => `${JSON.stringify(tool.name)} (${tool.source.file})`).join(', ')
  const asks = tools.some((tool) => tool.approval === 'ask')
  return [
    generatedHeader(`${tools.length === 1 ? 'tool' : 'tools'} ${sources}`),
    ...bridgeImports(plan),
    `import type { ExtensionAPI${asks ? ', ExtensionContext' : ''} } from "@mariozechner/pi-coding-agent"`,
    `import { Type } from "typebox"`,
    '',
    'export default function (pi: ExtensionAPI) {',
    '  // The calls whose outcome is a failure, until pi reports their result.',
    '  const failed = new Set<string>()',
    '  pi.on("tool_result", (event) => (failed.delete(event.toolCallId) ? { isError: true } : undefined))',
    '',
    tools.map((tool) => registration(plan, tool, path)).join('\n\n'),
    '}',
    '',
    contentBlocksCode(),
    ...(asks ? [CONFIRM_CODE] : []),
    bridgeCode(plan),
  ].join('\n')
}

/** The line pi lists the tool under in its system prompt (pi 1.x leaves tools without one out). */
function promptSnippet(tool: PlannedTool): string {
  return tool.description.replace(/\s+/g, ' ').trim()
}

const CONFIRM_CODE = `/** Asks the user before a tool the config's approval rules say asks: pi has no approval of its own. */
async function confirmCall(ctx: ExtensionContext, tool: string, params: unknown): Promise<void> {
  if (!ctx.hasUI) throw new Error(\`The tool "\${tool}" asks before it runs, and this pi session has no UI to ask in.\`)
  if (!(await ctx.ui.confirm(\`Run \${tool}?\`, JSON.stringify(params, null, 2)))) throw new Error(\`The user declined to run the tool "\${tool}".\`)
}
`

function registration(plan: Plan, tool: PlannedTool, extension: string): string {
  return [
    '  pi.registerTool({',
    `    name: ${jsString(tool.name)},`,
    `    label: ${jsString(tool.title ?? tool.name)},`,
    `    description: ${jsString(tool.description)},`,
    `    promptSnippet: ${jsString(promptSnippet(tool))},`,
    `    parameters: ${indentTail(typeboxCode(tool.schema), '    ')},`,
    '    async execute(toolCallId, params, signal, onUpdate, ctx) {',
    ...(tool.approval === 'ask' ? [`      await confirmCall(ctx, ${jsString(tool.name)}, params)`] : []),
    `      const outcome = await runTool(${jsString(targetOf(plan).scriptFrom(extension, tool.script))}, params, {`,
    '        cwd: ctx.cwd,',
    '        signal,',
    '        progress: (message) => onUpdate?.({ content: [{ type: "text", text: message }], details: {} }),',
    '      })',
    '      if (!outcome.ok) failed.add(toolCallId)',
    '      return { content: contentBlocks(outcome), details: outcome.details ?? {} }',
    '    },',
    '  })',
  ].join('\n')
}
