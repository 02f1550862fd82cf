import type { AnyToolDefinition, ToolContext, ToolInputSchema, ToolOutput } from '../define/types.js'
import type { InvokeOptions, InvokeResult } from './types.js'

/**
 * One tool call, whoever makes it (the script's command line, the MCP server, an inline bridge):
 * validate the input with the tool's own schema, run it, and turn its output into text.
 */
export async function invokeTool(tool: AnyToolDefinition, input: unknown, options: InvokeOptions, check: InputCheck): Promise<InvokeResult> {
  const checked = await check(tool.input, input)
  if (!checked.ok) return { ok: false, kind: 'invalid-input', message: checked.problems.join('\n') }
  const ctx: ToolContext = { cwd: options.cwd, signal: options.signal, env: options.env, progress: options.progress }
  // `run` takes the input its schema produces; the schema just checked `checked.value` against it.
  const run = tool.run as (input: unknown, ctx: ToolContext) => ToolOutput | Promise<ToolOutput>
  let output: unknown
  try {
    output = await run(checked.value, ctx)
  } catch (error) {
    return { ok: false, kind: 'tool-error', message: errorMessage(error), stack: error instanceof Error ? error.stack : undefined }
  }
  try {
    return { ok: true, text: outputText(output) }
  } catch (error) {
    return {
      ok: false,
      kind: 'tool-error',
      message: `The tool "${tool.name}" returned a value that cannot be turned into JSON: ${errorMessage(error)}`,
    }
  }
}

/** A string as is, nothing as empty text, anything else as indented JSON. */
function outputText(output: unknown): string {
  if (typeof output === 'string') return output
  if (output === undefined) return ''
  const text: string | undefined = JSON.stringify(output, null, 2)
  if (text === undefined) throw new TypeError(`a ${typeof output} has no JSON form`)
  return text
}

function errorMessage(error: unknown): string {
  if (error instanceof Error) return error.message || error.name
  return String(error)
}

/** The outcome of checking a tool's input with its own schema: the parsed value, or one problem per field. */
export type Validation = { ok: true; value: unknown } | { ok: false; problems: string[] }

/**
 * Checks input with the tool's schema, using the package the schema was made with: the generated
 * entry imports the one module (runtime/check-*) for that package, so a script bundles only it.
 */
export type InputCheck = (schema: ToolInputSchema, input: unknown) => Promise<Validation>

function isToolDefinition(value: unknown): value is AnyToolDefinition {
  return value !== null && typeof value === 'object' && (value as { kind?: unknown }).kind === 'oac:tool'
}

/**
 * The tool named `name` among a module's exports. Generated scripts call this with the module
 * where `defineTool` was called (`file`, relative to the project root), since that is the module
 * the plan records for each tool.
 */
export function pickTool(namespace: object, name: string, file: string): AnyToolDefinition {
  const tools = Object.values(namespace).filter(isToolDefinition)
  const tool = tools.find((candidate) => candidate.name === name)
  if (tool) return tool
  const exported = tools.length > 0 ? ` It exports ${tools.map((t) => JSON.stringify(t.name)).join(', ')}.` : ''
  throw new Error(
    `${file} does not export the tool ${JSON.stringify(name)}.${exported} ` +
      `Export the definition from the module where defineTool is called, ` +
      `e.g. \`export const myTool = defineTool({ name: ${JSON.stringify(name)}, ... })\`.`,
  )
}
