import type { Plan, PlannedTool } from '../compile/plan.js'
import { bridgeCode, bridgeImports, generatedHeader, scriptFromShim } from './codegen/bridge.js'
import { jsString } from './codegen/escape.js'
import { indentTail } from './codegen/js-literal.js'
import { hasNativeForm } from './codegen/prompt-docs.js'
import { zodSchemaCode } from './codegen/zod-code.js'
import type { OutputFile, OwnedFile } from './types.js'

/**
 * oh-my-pi: a `.omp/tools/<tool>/index.ts` factory per JSON tool. omp imports these natively
 * (Bun, no node_modules), so the omp package is imported for types only and the schema builder
 * is the injected `pi.zod`.
 */
export function emitOmp(plan: Plan): OutputFile[] {
  return plan.tools.filter((tool) => hasNativeForm(plan, tool, 'omp')).map((tool) => toolFile(plan, tool))
}

function toolFile(plan: Plan, tool: PlannedTool): OwnedFile {
  const path = `.omp/tools/${tool.name}/index.ts`
  const parameters = zodSchemaCode(tool.schema, { z: 'z', dialect: 'omptype' }).code
  const content = [
    generatedHeader(`tool ${JSON.stringify(tool.name)} (${tool.source.file})`),
    ...bridgeImports(plan),
    `import type { CustomToolFactory } from "@oh-my-pi/pi-coding-agent"`,
    '',
    'const factory: CustomToolFactory = (pi) => {',
    '  const z = pi.zod',
    '  return {',
    `    name: ${jsString(tool.name)},`,
    `    label: ${jsString(tool.name)},`,
    `    description: ${jsString(tool.description)},`,
    // Custom tools are otherwise "discoverable" only; the agents' prompts name them, so keep them at hand.
    '    loadMode: "essential",',
    `    parameters: ${indentTail(parameters, '    ')},`,
    '    async execute(_toolCallId, params, onUpdate, _ctx, signal) {',
    `      const text = await runTool(${jsString(scriptFromShim(path, tool))}, params, {`,
    '        cwd: pi.cwd,',
    '        signal,',
    '        progress: (message) => onUpdate?.({ content: [{ type: "text", text: message }] }),',
    '      })',
    '      return { content: [{ type: "text", text }] }',
    '    },',
    '  }',
    '}',
    '',
    'export default factory',
    '',
    bridgeCode(plan),
  ].join('\n')
  return { kind: 'owned', path, content }
}
