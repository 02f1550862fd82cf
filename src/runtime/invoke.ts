import type { AnyToolDefinition, JsonValue, ToolContext, ToolImage, ToolImageType, ToolInputSchema, ToolOutputSchema, ToolResult } from '../define/types.js'
import type { CheckedValue } from './describe.js'
import type { InvokeOptions, InvokeResult, ResultImage } from './types.js'

/** What `ctx.result` and `ctx.error` make, as the runtime holds it. */
interface MadeResult {
  value?: unknown
  images?: readonly ToolImage[]
  details?: JsonValue
  error?: string
}

/** The image types models read, and the file extension of each (the bash route writes images to files). */
export const IMAGE_TYPES: Readonly<Record<ToolImageType, string>> = { 'image/png': 'png', 'image/jpeg': 'jpg', 'image/gif': 'gif', 'image/webp': 'webp' }
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/

/**
 * One tool call, whoever makes it (the script's command line, the MCP server, an inline bridge):
 * validate the input with the tool's own schema, run it, check what it returns against its output
 * schema, and turn it into the plain result every route carries.
 */
export async function invokeTool(tool: AnyToolDefinition, input: unknown, options: InvokeOptions, check: InputCheck): Promise<InvokeResult> {
  const checked = await check(tool.input, input)
  if (!checked.ok) return { ok: false, kind: 'invalid-input', message: checked.problems.join('\n') }
  // A result is what this call's ctx made, known by identity: a plain object the tool returns is its value.
  const made = new WeakSet<MadeResult>()
  const remember = (result: MadeResult): ToolResult<never> => {
    made.add(result)
    // The brand of ToolResult exists for the type checker only.
    return result as unknown as ToolResult<never>
  }
  const ctx: ToolContext<unknown> = {
    cwd: options.cwd,
    signal: options.signal,
    env: options.env,
    progress: options.progress,
    result: (parts) => remember({ ...parts }),
    error: (message, parts = {}) => remember({ ...parts, error: String(message) }),
  }
  // `run` takes the input its schema produces; the schema just checked `checked.value` against it.
  const run = tool.run as (input: unknown, ctx: ToolContext<unknown>) => unknown
  let output: unknown
  try {
    output = await run(checked.value, ctx)
  } catch (error) {
    return { ok: false, kind: 'tool-error', message: errorMessage(error), stack: error instanceof Error ? error.stack : undefined }
  }
  const result: MadeResult = typeof output === 'object' && output !== null && made.has(output) ? output : { value: output }
  try {
    return await settle(tool, result, check)
  } catch (error) {
    return { ok: false, kind: 'tool-error', message: `The tool "${tool.name}" returned ${errorMessage(error)}` }
  }
}

/** The plain form of what a tool returned; throws (with the rest of a sentence) on what no route can carry. */
async function settle(tool: AnyToolDefinition, result: MadeResult, check: InputCheck): Promise<InvokeResult> {
  const details = result.details === undefined ? undefined : jsonCopy(result.details, 'details')
  if (result.error !== undefined) return { ok: false, kind: 'tool-error', message: result.error, ...(details !== undefined && { details }) }
  let value = result.value
  let structured: JsonValue | undefined
  if (tool.output !== undefined) {
    const checked = await check(tool.output, value, 'output')
    if (!checked.ok) {
      return { ok: false, kind: 'tool-error', message: `The tool "${tool.name}" returned a value that does not match its output schema:\n${checked.problems.join('\n')}` }
    }
    value = checked.value
    structured = jsonCopy(value, 'a value')
  }
  const images = (result.images ?? []).map(imageData)
  return {
    ok: true,
    text: outputText(value),
    ...(structured !== undefined && { structured }),
    ...(images.length > 0 && { images }),
    ...(details !== undefined && { details }),
  }
}

/** A string as is, nothing as empty text, anything else as indented JSON. */
function outputText(output: unknown): string {
  if (typeof output === 'string') return output
  if (output === undefined) return ''
  return jsonText(output, 'a value', 2)
}

/** The value as JSON reads it back: what every route, a process pipe included, delivers. */
function jsonCopy(value: unknown, what: string): JsonValue {
  return JSON.parse(jsonText(value, what)) as JsonValue
}

function jsonText(value: unknown, what: string, indent?: number): string {
  let text: string | undefined
  try {
    text = JSON.stringify(value, null, indent)
  } catch (error) {
    throw new TypeError(`${what} that cannot be turned into JSON: ${errorMessage(error)}`)
  }
  if (text === undefined) throw new TypeError(`${what} that cannot be turned into JSON: a ${typeof value} has no JSON form`)
  return text
}

function imageData(image: ToolImage, index: number): ResultImage {
  const which = `image ${index + 1}`
  const mimeType: unknown = image?.mimeType
  if (typeof mimeType !== 'string' || !Object.hasOwn(IMAGE_TYPES, mimeType)) {
    throw new TypeError(`${which} of type ${JSON.stringify(mimeType)}; models read ${Object.keys(IMAGE_TYPES).join(', ')}`)
  }
  const data: unknown = image.data
  const type = mimeType as ToolImageType
  if (data instanceof Uint8Array) return { data: Buffer.from(data.buffer, data.byteOffset, data.byteLength).toString('base64'), mimeType: type }
  if (typeof data === 'string' && data.length % 4 === 0 && BASE64.test(data)) return { data, mimeType: type }
  throw new TypeError(`${which} whose data is neither bytes (a Uint8Array or Buffer) nor base64 text`)
}

function errorMessage(error: unknown): string {
  if (error instanceof Error) return error.message || error.name
  return String(error)
}

/** The outcome of checking a value with a tool's own schema: the parsed value, or one problem per field. */
export type Validation = { ok: true; value: unknown } | { ok: false; problems: string[] }

/**
 * Checks a tool's input (or, with `subject` 'output', the value it returns) with its own schema,
 * using the package the schema was made with: the generated entry imports the one module
 * (runtime/check-*) for that package, so a script bundles only it.
 */
export type InputCheck = (schema: ToolInputSchema | ToolOutputSchema, value: unknown, subject?: CheckedValue) => Promise<Validation>

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
