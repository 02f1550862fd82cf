import { type AgentDefinition, type AnyToolDefinition, type Harness, HARNESSES, type JsonValue, type ToolFormat } from '../define/types.js'
import type { ResolvedConfig } from './config.js'
import type { Findings } from './findings.js'
import { harness as harnessDescription } from './harnesses/index.js'
import { checkIdentity, type IdentityRules } from './identity.js'
import { resolveModels } from './models.js'
import { agentNameProblem } from './names.js'
import type { PlannedAgent } from './plan.js'
import { plannedSource } from './source.js'

const MODES: readonly string[] = ['subagent', 'primary', 'all']
const TOOL_FORMATS: readonly string[] = ['bash', 'json', 'both']

/** The path (like `.temperature` or `.stops[2]`) of the first value in `value` that JSON cannot hold, or undefined. */
export function nonJsonPath(value: unknown, path = ''): string | undefined {
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return undefined
  if (typeof value === 'number') return Number.isFinite(value) ? undefined : path
  if (Array.isArray(value)) {
    for (const [i, item] of value.entries()) {
      const found = nonJsonPath(item, `${path}[${i}]`)
      if (found !== undefined) return found
    }
    return undefined
  }
  if (typeof value === 'object') {
    const prototype = Object.getPrototypeOf(value)
    if (prototype !== Object.prototype && prototype !== null) return path
    for (const [key, item] of Object.entries(value)) {
      const found = nonJsonPath(item, `${path}.${key}`)
      if (found !== undefined) return found
    }
    return undefined
  }
  return path
}

/** Own-harness keys of a per-harness map; other keys are reported. */
function harnessEntries<T>(map: Partial<Record<Harness, T>> | undefined, field: string, agent: AgentDefinition, findings: Findings): Array<[Harness, T]> {
  const entries = Object.entries(map ?? {}) as Array<[string, T]>
  for (const [key] of entries.filter(([key]) => !(HARNESSES as readonly string[]).includes(key))) {
    findings.error('agent-field-invalid', `Agent "${agent.name}"'s ${field} has the key "${key}", which is not a harness.`, `Use harness names: ${HARNESSES.join(', ')}.`, agent.source)
  }
  return HARNESSES.filter((harness) => Object.hasOwn(map ?? {}, harness)).map((harness) => [harness, map![harness] as T])
}

export interface AgentInputs {
  prompt: string | undefined
  tools: readonly AnyToolDefinition[]
  config: ResolvedConfig
  root: string
}

const AGENT_IDENTITY: IdentityRules = {
  noun: 'agent',
  nameProblem: agentNameProblem,
  nameFix: 'Rename the agent to lowercase words joined by hyphens, e.g. "code-reviewer".',
  descriptionFix: 'Describe what the agent does and when to use it: harnesses show it when picking a subagent.',
}

/** Checks one agent and turns it into its planned form (undefined when it cannot be planned). */
export function planAgent(agent: AgentDefinition, inputs: AgentInputs, findings: Findings): PlannedAgent | undefined {
  const at = agent.source
  const label = `Agent "${agent.name}"`
  const errorsBefore = findings.diagnostics.filter((d) => d.severity === 'error').length

  checkIdentity(agent, AGENT_IDENTITY, at, findings)
  if (inputs.prompt === undefined) {
    findings.error('agent-prompt-invalid', `${label}'s prompt is neither text nor { file }.`, "Set prompt to the prompt text, or to { file: './prompt.md' } (next to this module).", at)
  }
  if (!MODES.includes(agent.mode)) {
    findings.error('agent-field-invalid', `${label}'s mode "${String(agent.mode)}" is not one of ${MODES.join(', ')}.`, `Use one of: ${MODES.join(', ')}.`, at)
  }

  const toolNames = inputs.tools.map((tool) => tool.name)
  const formats: Array<[string, unknown]> = [['toolFormat', agent.toolFormat], ...Object.entries(agent.toolFormatOverrides ?? {}).map(([tool, format]): [string, unknown] => [`toolFormatOverrides.${tool}`, format])]
  for (const [field, format] of formats.filter(([, format]) => !TOOL_FORMATS.includes(format as string))) {
    findings.error('agent-field-invalid', `${label}'s ${field} "${String(format)}" is not one of ${TOOL_FORMATS.join(', ')}.`, `Use one of: ${TOOL_FORMATS.join(', ')}.`, at)
  }
  for (const tool of Object.keys(agent.toolFormatOverrides ?? {}).filter((tool) => !toolNames.includes(tool))) {
    findings.error(
      'agent-override-unknown-tool',
      `${label}'s toolFormatOverrides names "${tool}", which is not one of its tools${toolNames.length ? ` (${toolNames.join(', ')})` : ''}.`,
      'Fix the tool name in toolFormatOverrides, or add the tool to the agent.',
      at,
    )
  }

  const harness: PlannedAgent['harness'] = {}
  for (const [name, bag] of harnessEntries(agent.harness, 'harness', agent, findings)) {
    const bad = typeof bag === 'object' && bag !== null && !Array.isArray(bag) ? nonJsonPath(bag) : ''
    if (bad !== undefined) {
      findings.error('agent-harness-not-json', `${label}'s harness.${name}${bad} is not a JSON value.`, 'Harness fields are written into agent files: use strings, finite numbers, booleans, null, arrays and plain objects.', at)
    } else {
      const fields = structuredClone(bag) as Record<string, JsonValue>
      // Only the selected harnesses write agent files, so only their fields can break one.
      const problems = inputs.config.harnesses.includes(name) ? harnessDescription(name).checkFields(fields, agent.name) : []
      for (const problem of problems) findings.error(problem.code, problem.message, problem.fix, at)
      harness[name] = fields
    }
  }
  const builtinTools: PlannedAgent['builtinTools'] = {}
  for (const [name, list] of harnessEntries(agent.builtinTools, 'builtinTools', agent, findings)) {
    if (!Array.isArray(list) || list.some((tool) => typeof tool !== 'string')) {
      findings.error('agent-field-invalid', `${label}'s builtinTools.${name} is not a list of tool names.`, `List the harness's tool names, e.g. builtinTools: { claude: ['Read', 'Grep'] }.`, at)
    } else {
      builtinTools[name] = [...list]
    }
  }

  if (findings.diagnostics.filter((d) => d.severity === 'error').length > errorsBefore) return undefined
  return {
    name: agent.name,
    description: agent.description,
    prompt: inputs.prompt!,
    tools: toolNames,
    toolFormats: Object.fromEntries(toolNames.map((tool) => [tool, (agent.toolFormatOverrides[tool] ?? agent.toolFormat) as ToolFormat])),
    mode: agent.mode,
    model: resolveModels(agent.model, inputs.config.profile, inputs.config.harnesses),
    builtinTools,
    harness: harness as Partial<Record<Harness, Record<string, JsonValue>>>,
    source: plannedSource(inputs.root, at),
  }
}
