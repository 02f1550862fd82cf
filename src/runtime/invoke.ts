import type { z } from 'zod'
import type { TObject } from '@sinclair/typebox'
import type { AnyToolDefinition, ToolContext, ToolInputSchema, ToolOutput } from '../define/types.js'
import { describeSchema, describeValue, formatPath, pointerToPath } from './describe.js'
import type { InvokeOptions, InvokeResult } from './types.js'

/**
 * One tool call, whoever makes it (the script's command line, the MCP server, an inline bridge):
 * validate the input with the tool's own schema, run it, and turn its output into text.
 */
export async function invokeTool(tool: AnyToolDefinition, input: unknown, options: InvokeOptions): Promise<InvokeResult> {
  const checked = await validateInput(tool, input)
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

type Validation = { ok: true; value: unknown } | { ok: false; problems: string[] }

/** Every zod v4 schema carries `_zod`; TypeBox schemas are plain JSON Schema objects. */
function isZodSchema(schema: ToolInputSchema): schema is z.ZodObject {
  return '_zod' in schema
}

function validateInput(tool: AnyToolDefinition, input: unknown): Promise<Validation> {
  return isZodSchema(tool.input) ? validateWithZod(tool.input, input) : validateWithTypeBox(tool.input, input)
}

async function validateWithZod(schema: z.ZodObject, input: unknown): Promise<Validation> {
  // The async parse also runs async refinements and transforms, which the sync one rejects.
  const result = await schema.safeParseAsync(input)
  if (result.success) return { ok: true, value: result.data }
  return { ok: false, problems: result.error.issues.map((issue) => zodProblem(issue, input)) }
}

function valueAt(input: unknown, path: ReadonlyArray<PropertyKey>): unknown {
  let value = input
  for (const key of path) {
    if (value === null || typeof value !== 'object') return undefined
    value = (value as Record<PropertyKey, unknown>)[key]
  }
  return value
}

function lowerFirst(text: string): string {
  return text.charAt(0).toLowerCase() + text.slice(1)
}

function zodProblem(issue: z.core.$ZodIssue, input: unknown): string {
  const where = formatPath(issue.path)
  const value = valueAt(input, issue.path)
  switch (issue.code) {
    case 'invalid_type': {
      const expected = issue.expected === 'int' ? 'integer' : issue.expected
      return value === undefined ? `${where}: missing (expected ${expected})` : `${where}: expected ${expected}, got ${describeValue(value)}`
    }
    case 'invalid_value':
      return `${where}: expected ${describeSchema({ enum: issue.values.map((v) => (typeof v === 'bigint' ? String(v) : v ?? null)) })}, got ${describeValue(value)}`
    case 'custom':
    case 'unrecognized_keys':
      return `${where}: ${lowerFirst(issue.message)}`
    default:
      return `${where}: ${lowerFirst(issue.message)}, got ${describeValue(value)}`
  }
}

/** TypeBox's value module is only needed by TypeBox tools, so zod-only scripts never load it. */
async function validateWithTypeBox(schema: TObject, input: unknown): Promise<Validation> {
  const { Value, ValueErrorType } = await import('@sinclair/typebox/value')
  // Defaults declared in the schema are part of the contract (`--help` shows them), so apply them as zod does.
  const value = Value.Default(schema, Value.Clone(input))
  if (Value.Check(schema, value)) return { ok: true, value }
  const problems = new Map<string, string>()
  for (const error of Value.Errors(schema, value)) {
    const where = formatPath(pointerToPath(error.path))
    // TypeBox reports several errors per field (e.g. "required property" then "string"): the first says it best.
    if (problems.has(where)) continue
    let problem: string
    if (error.value === undefined) problem = `missing (expected ${describeSchema(error.schema)})`
    else if (error.type === ValueErrorType.Union) problem = `expected ${describeSchema(error.schema)}, got ${describeValue(error.value)}`
    else problem = `${lowerFirst(error.message)}, got ${describeValue(error.value)}`
    problems.set(where, `${where}: ${problem}`)
  }
  return { ok: false, problems: [...problems.values()] }
}

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
