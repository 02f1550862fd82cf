import type { Plan, PlannedTool } from '../compile/plan.js'
import { harness } from '../compile/harnesses/index.js'
import { targetOf } from '../compile/target.js'
import { bridgeCode, bridgeImports, contentBlocksCode, generatedHeader } from './codegen/bridge.js'
import { jsString } from './codegen/escape.js'
import { indentTail } from './codegen/js-literal.js'
import { bridgeName, bridgesMcpServers, deferredBridgeExtension } from './codegen/mcp-bridge.js'
import { hasNativeForm } from './codegen/prompt-docs.js'
import { zodSchemaCode } from './codegen/zod-code.js'
import type { OutputFile, OwnedFile } from './types.js'

/**
 * oh-my-pi: a `.omp/tools/<tool>/index.ts` factory per JSON tool, and an extension,
 * `.omp/extensions/<server>-mcp.ts`, for the MCP servers it is bridged to. omp imports these natively
 * (Bun, no node_modules), so the omp package is imported for types only and the schema builder
 * is the injected `pi.zod`. Results are content blocks (text, images) with the tool's details, and
 * `isError` for a failed call; the tool's `approval` carries its tier (from its effects) and the
 * policy of the config's approval rules.
 */
export function emitOmp(plan: Plan): OutputFile[] {
  const files = ompTools(plan).map((tool): OwnedFile => {
    const path = `.omp/tools/${tool.name}/index.ts`
    return { kind: 'owned', path, content: ompToolFactory(plan, tool, path) }
  })
  if (bridgesMcpServers(plan, 'omp')) {
    const path = `.omp/extensions/${bridgeName(plan)}.ts`
    files.push({ kind: 'owned', path, content: ompBridgeExtension(plan, path) })
  }
  return files
}

/**
 * The extension that gives oh-my-pi the tools of the registry's MCP servers by name (18.2.3 mounts the
 * tools of its own MCP servers as `xd://` devices), written at `path`: it connects while omp starts and
 * registers each listed tool as `<server>_<tool>`, with the server's JSON Schema as its parameters (as
 * omp's own MCP tools have), kept at hand (`essential`) like ours (see deferredBridgeExtension). A
 * result is the server's content blocks, `isError` for a failed call.
 */
export function ompBridgeExtension(plan: Plan, path: string): string {
  return deferredBridgeExtension(plan, 'omp', path, {
    apiImport: `import type { ExtensionAPI } from "@oh-my-pi/pi-coding-agent"`,
    taken: [...harness('omp').builtinTools, ...ompTools(plan).map((tool) => tool.name)],
    setup: [],
    definition: [
      '        name: tool.name,',
      '        label: tool.title ?? tool.name,',
      '        description: tool.description,',
      '        loadMode: "essential",',
      '        parameters: tool.inputSchema as Parameters<ExtensionAPI["registerTool"]>[0]["parameters"],',
      '        async execute(_toolCallId, params, signal, onUpdate) {',
      '          const result = await tool.call(params, { signal, progress: (message) => onUpdate?.({ content: [{ type: "text", text: message }] }) })',
      '          return { content: result.content, ...(result.isError ? { isError: true } : {}) }',
      '        },',
    ],
  })
}

/** The tools oh-my-pi is given natively: every JSON tool. */
export function ompTools(plan: Plan): PlannedTool[] {
  return plan.tools.filter((tool) => hasNativeForm(plan, tool, 'omp'))
}

/** One tool's factory module, written at `path` (a project's `.omp/tools/`, or a plugin's folder): it finds the script relative to itself, or in a user's home from the home (`Target.scriptFrom`). */
export function ompToolFactory(plan: Plan, tool: PlannedTool, path: string): string {
  const parameters = zodSchemaCode(tool.schema, { z: 'z', dialect: 'omptype' }).code
  const approval = approvalCode(tool)
  return [
    generatedHeader(`tool ${JSON.stringify(tool.name)} (${tool.source.file})`),
    ...bridgeImports(plan),
    `import type { CustomToolFactory } from "@oh-my-pi/pi-coding-agent"`,
    '',
    'const factory: CustomToolFactory = (pi) => {',
    '  const z = pi.zod',
    '  return {',
    `    name: ${jsString(tool.name)},`,
    `    label: ${jsString(tool.title ?? tool.name)},`,
    `    description: ${jsString(tool.description)},`,
    // Custom tools are otherwise "discoverable" only; the agents' prompts name them, so keep them at hand.
    '    loadMode: "essential",',
    `    parameters: ${indentTail(parameters, '    ')},`,
    ...(approval === undefined ? [] : [`    approval: ${approval},`]),
    '    async execute(_toolCallId, params, onUpdate, _ctx, signal) {',
    `      const outcome = await runTool(${jsString(targetOf(plan).scriptFrom(path, tool.script))}, params, {`,
    '        cwd: pi.cwd,',
    '        signal,',
    '        progress: (message) => onUpdate?.({ content: [{ type: "text", text: message }] }),',
    '      })',
    '      return {',
    '        content: contentBlocks(outcome),',
    '        ...(outcome.details === undefined ? {} : { details: outcome.details }),',
    '        ...(outcome.ok ? {} : { isError: true }),',
    '      }',
    '    },',
    '  }',
    '}',
    '',
    'export default factory',
    '',
    contentBlocksCode(),
    bridgeCode(plan),
  ].join('\n')
}

/**
 * The tool's `approval`: the tier of what it does (`read` for a read-only tool, `exec` for a
 * destructive one, `write` for one that says it is not destructive; omp takes a tool without a tier
 * as `exec`) and the policy of the config's approval rules (`prompt` asks even in omp's `yolo`
 * mode). Undefined when neither says anything.
 */
function approvalCode(tool: PlannedTool): string | undefined {
  const effects = tool.effects ?? {}
  const tier = effects.readOnly ? 'read' : effects.destructive ? 'exec' : effects.destructive === false ? 'write' : undefined
  if (tool.approval === undefined) return tier === undefined ? undefined : jsString(tier)
  return `{ tier: ${jsString(tier ?? 'exec')}, policy: ${jsString(tool.approval === 'ask' ? 'prompt' : 'allow')} }`
}
