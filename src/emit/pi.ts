import type { Plan, PlannedTool } from '../compile/plan.js'
import { bridgeCode, bridgeImports, generatedHeader, scriptFromShim } from './codegen/bridge.js'
import { jsString } from './codegen/escape.js'
import { indentTail } from './codegen/js-literal.js'
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
 */
export function emitPi(plan: Plan): OutputFile[] {
  const tools = plan.tools.filter((tool) => hasNativeForm(plan, tool, 'pi'))
  if (tools.length === 0) return []
  const sources = tools.map((tool) => `${JSON.stringify(tool.name)} (${tool.source.file})`).join(', ')
  const content = [
    generatedHeader(`${tools.length === 1 ? 'tool' : 'tools'} ${sources}`),
    ...bridgeImports(plan),
    `import type { ExtensionAPI } from "@mariozechner/pi-coding-agent"`,
    `import { Type } from "typebox"`,
    '',
    'export default function (pi: ExtensionAPI) {',
    tools.map((tool) => registration(tool, extensionPath(plan))).join('\n\n'),
    '}',
    '',
    bridgeCode(plan),
  ].join('\n')
  return [{ kind: 'owned', path: extensionPath(plan), content }]
}

/** The line pi lists the tool under in its system prompt (pi 1.x leaves tools without one out). */
function promptSnippet(tool: PlannedTool): string {
  return tool.description.replace(/\s+/g, ' ').trim()
}

function registration(tool: PlannedTool, extension: string): string {
  return [
    '  pi.registerTool({',
    `    name: ${jsString(tool.name)},`,
    `    label: ${jsString(tool.name)},`,
    `    description: ${jsString(tool.description)},`,
    `    promptSnippet: ${jsString(promptSnippet(tool))},`,
    `    parameters: ${indentTail(typeboxCode(tool.schema), '    ')},`,
    '    async execute(_toolCallId, params, signal, onUpdate, ctx) {',
    `      const text = await runTool(${jsString(scriptFromShim(extension, tool))}, params, {`,
    '        cwd: ctx.cwd,',
    '        signal,',
    '        progress: (message) => onUpdate?.({ content: [{ type: "text", text: message }], details: {} }),',
    '      })',
    '      return { content: [{ type: "text", text }], details: {} }',
    '    },',
    '  })',
  ].join('\n')
}
