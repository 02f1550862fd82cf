import type { JsonSchema, Plan, PlannedAgent, PlannedTool } from '../../compile/plan.js'
import type { Harness, JsonValue } from '../../define/types.js'
import { markdownCode, markdownFence } from './escape.js'

/** How a harness names one of our tools when the model calls it natively. */
export function nativeToolName(plan: Plan, harness: Harness, tool: string): string {
  return harness === 'claude' || harness === 'codex' ? `mcp__${plan.serverName}__${tool}` : tool
}

/** True when the harness gets a native form of the tool (and so the JSON docs name a callable tool). */
export function hasNativeForm(plan: Plan, tool: PlannedTool, harness: Harness | undefined): boolean {
  return harness !== undefined && plan.nativeTools && tool.json && plan.harnesses.includes(harness)
}

const FLAG_NAME = /^[A-Za-z0-9][A-Za-z0-9_-]*$/

interface FlagDoc {
  usage: string
  line: string
}

function asObject(value: JsonValue | undefined): JsonSchema | undefined {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? value : undefined
}

function scalarType(schema: JsonSchema): string | undefined {
  if (Array.isArray(schema.enum)) return schema.enum.map((v) => String(v)).join('|')
  const type = schema.type
  return type === 'string' || type === 'number' || type === 'integer' || type === 'boolean' ? type : undefined
}

/** One flag per property the runner accepts as `--name value`; the rest is documented as JSON-only. */
function flagDocs(schema: JsonSchema): { flags: FlagDoc[]; jsonOnly: string[] } {
  const properties = asObject(schema.properties) ?? {}
  const required = new Set(Array.isArray(schema.required) ? schema.required.map(String) : [])
  const flags: FlagDoc[] = []
  const jsonOnly: string[] = []
  for (const [name, raw] of Object.entries(properties)) {
    const property = asObject(raw) ?? {}
    const items = asObject(property.items)
    const scalar = scalarType(property)
    const itemScalar = property.type === 'array' && items ? scalarType(items) : undefined
    if (!FLAG_NAME.test(name) || (!scalar && !itemScalar)) {
      jsonOnly.push(name)
      continue
    }
    const isRequired = required.has(name)
    const description = typeof property.description === 'string' ? `: ${property.description.replace(/\s+/g, ' ')}` : ''
    const defaultNote = property.default !== undefined ? ` (default ${JSON.stringify(property.default)})` : ''
    let usage: string
    let syntax: string
    if (scalar === 'boolean') {
      usage = `--${name}`
      syntax = `--${name} / --no-${name}`
    } else if (itemScalar) {
      usage = `--${name} <${itemScalar}>...`
      syntax = `--${name} <${itemScalar}> (repeat for more)`
    } else {
      usage = `--${name} <${scalar}>`
      syntax = usage
    }
    flags.push({
      usage: isRequired ? usage : `[${usage}]`,
      line: `- ${markdownCode(syntax)}${isRequired ? ' (required)' : ''}${description}${defaultNote}`,
    })
  }
  return { flags, jsonOnly }
}

function bashDocs(tool: PlannedTool): string {
  const command = `node ${tool.script}`
  const { flags, jsonOnly } = flagDocs(tool.schema)
  const lines = [`Run it from the project folder:`, '', markdownFence([command, ...flags.map((f) => f.usage)].join(' '), 'bash')]
  if (flags.length > 0) lines.push('', ...flags.map((f) => f.line))
  if (jsonOnly.length > 0) {
    lines.push('', `Pass ${jsonOnly.map((n) => markdownCode(n)).join(', ')} through JSON: flags cannot express them.`)
  }
  lines.push(
    '',
    `Or give the whole input as one JSON object on stdin: ${markdownCode(`echo '{...}' | ${command} --json`)}. ` +
      `${markdownCode(`${command} --help`)} prints the usage. Exit code 2 means invalid input, 1 a tool failure.`,
  )
  return lines.join('\n')
}

function jsonDocs(plan: Plan, tool: PlannedTool, harness: Harness | undefined): string {
  const schema = markdownFence(JSON.stringify(tool.schema, null, 2), 'json')
  if (hasNativeForm(plan, tool, harness) && harness) {
    return `Call the tool ${markdownCode(nativeToolName(plan, harness, tool.name))} with input matching this JSON Schema:\n\n${schema}`
  }
  return `Input, as JSON (for ${markdownCode(`node ${tool.script} --json`)}), matching this JSON Schema:\n\n${schema}`
}

/** Renders one tool's section in the format the agent asked for. */
function toolSection(plan: Plan, agent: PlannedAgent, tool: PlannedTool, harness: Harness | undefined): string {
  const format = agent.toolFormats[tool.name] ?? 'both'
  // Without a native form the bash route is the only way to call the tool, whatever the format says.
  const bash = format !== 'json' || !hasNativeForm(plan, tool, harness)
  const json = format !== 'bash'
  const parts = [`### ${tool.name.replace(/[\r\n]/g, ' ')}`, '', tool.description.trim()]
  if (bash) parts.push('', bashDocs(tool))
  if (json) parts.push('', jsonDocs(plan, tool, harness))
  return parts.join('\n')
}

/**
 * The agent's prompt followed by documentation of each of its tools, for one harness
 * (or, without a harness, the harness-neutral prompt document).
 */
export function renderAgentPrompt(plan: Plan, agent: PlannedAgent, harness?: Harness): string {
  const tools = agent.tools.map((name) => plan.tools.find((t) => t.name === name)).filter((t): t is PlannedTool => t !== undefined)
  const prompt = agent.prompt.replace(/\s+$/, '')
  if (tools.length === 0) return `${prompt}\n`
  const sections = tools.map((tool) => toolSection(plan, agent, tool, harness))
  return `${prompt}\n\n## Tools\n\n${sections.join('\n\n')}\n`
}
