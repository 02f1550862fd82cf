import { harness as describe } from '../../compile/harnesses/index.js'
import type { Plan, PlannedAgent, PlannedTool } from '../../compile/plan.js'
import { targetOf } from '../../compile/target.js'
import type { Harness, ToolFormat } from '../../define/types.js'
import { type FlagSpec, inputFlags, jsonFlagExample } from '../../runtime/flags.js'
import { markdownCode, markdownFence } from './escape.js'
import { memoByObject } from './memo.js'

/** The plan's tools by name: every agent of every harness looks its tools up. */
export const toolsByName = memoByObject((tools: readonly PlannedTool[]) => new Map(tools.map((tool) => [tool.name, tool])))

/** How a harness names one of our tools when the model calls it natively. */
export function nativeToolName(plan: Plan, id: Harness, tool: string): string {
  return describe(id).modelToolName(targetOf(plan).shownServerName(id), tool)
}

/** True when the harness gets a native form of the tool (and so the JSON docs name a callable tool). */
export function hasNativeForm(plan: Plan, tool: PlannedTool, harness: Harness | undefined): boolean {
  return harness !== undefined && plan.nativeTools && tool.json && plan.harnesses.includes(harness)
}

function flagType(flag: FlagSpec): string {
  return flag.kind === 'choice' ? flag.choices.map((choice) => String(choice)).join('|') : flag.kind
}

/** One documented flag: the usage fragment and its line in the flag list. The runner derives the same flags. */
function flagDoc(flag: FlagSpec): { usage: string; line: string } {
  const type = flagType(flag)
  let usage: string
  let syntax: string
  if (flag.kind === 'boolean' && !flag.repeated) {
    usage = `--${flag.name}`
    syntax = `--${flag.name} / --no-${flag.name}`
  } else if (flag.repeated) {
    usage = `--${flag.name} <${type}>...`
    syntax = `--${flag.name} <${type}> (repeat for more)`
  } else {
    usage = `--${flag.name} <${type}>`
    syntax = usage
  }
  const description = flag.description ? `: ${flag.description.replace(/\s+/g, ' ')}` : ''
  const defaultNote = flag.default !== undefined ? ` (default ${JSON.stringify(flag.default)})` : ''
  const jsonNote = flag.kind === 'json' ? ` (${flag.expected ?? 'a value'} as JSON, e.g. ${markdownCode(jsonFlagExample(flag))})` : ''
  return {
    usage: flag.required ? usage : `[${usage}]`,
    line: `- ${markdownCode(syntax)}${flag.required ? ' (required)' : ''}${description}${jsonNote}${defaultNote}`,
  }
}

/** A tool's command docs by the command that starts it (`node <script>` as its target names the script). */
const bashDocsOf = memoByObject((_tool: PlannedTool) => new Map<string, string>())

function bashDocs(tool: PlannedTool, command: string): string {
  const known = bashDocsOf(tool)
  let docs = known.get(command)
  if (docs === undefined) known.set(command, (docs = commandDocs(tool, command)))
  return docs
}

function commandDocs(tool: PlannedTool, command: string): string {
  const { flags: specs, jsonOnly } = inputFlags(tool.schema)
  const flags = specs.map(flagDoc)
  const lines = [markdownFence([command, ...flags.map((f) => f.usage)].join(' '), 'bash')]
  if (flags.length > 0) lines.push('', ...flags.map((f) => f.line))
  if (jsonOnly.length > 0) {
    lines.push('', `Pass ${jsonOnly.map((field) => markdownCode(field.name)).join(', ')} through JSON: flags cannot express them.`)
  }
  lines.push(
    '',
    `Or give the whole input as one JSON object on stdin: ${markdownCode(`echo '{...}' | ${command} --json`)}. ` +
      `${markdownCode(`${command} --help`)} prints the usage. Exit code 2 means invalid input, 1 a tool failure.`,
  )
  return lines.join('\n')
}

/** The input schema as a JSON code block. */
const schemaFence = memoByObject((schema: PlannedTool['schema']): string => markdownFence(JSON.stringify(schema, null, 2), 'json'))

/** How the JSON docs introduce the schema: the native tool to call, or the script's `--json`. */
function jsonIntro(plan: Plan, tool: PlannedTool, harness: Harness | undefined): string {
  if (hasNativeForm(plan, tool, harness) && harness) {
    const namespace = describe(harness).toolNamespace?.(targetOf(plan).shownServerName(harness))
    const where = namespace === undefined ? '' : ` (in the namespace ${markdownCode(namespace)})`
    return `Call the tool ${markdownCode(nativeToolName(plan, harness, tool.name))}${where} with input matching this JSON Schema:`
  }
  return `Input, as JSON (for ${markdownCode(`node ${targetOf(plan).commandPath(tool.script)} --json`)}), matching this JSON Schema:`
}

/** Each tool's sections as rendered so far, by what sets them apart: most agents and harnesses that have a tool document it alike. */
const sectionsOf = memoByObject((_tool: PlannedTool) => new Map<string, string>())

/** Renders one tool's section in `format` (`runFrom` introduces its command: an agent's, as its target says, unless given). */
function toolSection(plan: Plan, format: ToolFormat, tool: PlannedTool, harness: Harness | undefined, runFrom = targetOf(plan).agentRunFrom): string {
  // Without a native form the bash route is the only way to call the tool, whatever the format says. A
  // target without a bash route (a plugin folder: its scripts are not in the project) has native tools
  // alone (compile lets in no other); its skills' commands (`bash`) run the skill's copy of a script.
  const target = targetOf(plan)
  const bash = format === 'bash' || (target.bashRoute && (format !== 'json' || !hasNativeForm(plan, tool, harness)))
  const intro = format === 'bash' ? undefined : jsonIntro(plan, tool, harness)
  const command = `node ${target.commandPath(tool.script)}`
  const sections = sectionsOf(tool)
  const key = `${bash}\0${intro ?? ''}\0${runFrom}\0${command}`
  let section = sections.get(key)
  if (section === undefined) {
    const parts = [`### ${tool.name.replace(/[\r\n]/g, ' ')}`, '', tool.description.trim()]
    if (bash) parts.push('', runFrom, '', bashDocs(tool, command))
    if (intro !== undefined) parts.push('', `${intro}\n\n${schemaFence(tool.schema)}`)
    // The contract of its answer, whichever way the tool is called (the script prints the same JSON).
    if (tool.output) parts.push('', `Its result is JSON matching this JSON Schema:\n\n${schemaFence(tool.output)}`)
    sections.set(key, (section = parts.join('\n')))
  }
  return section
}

/**
 * The agent's prompt followed by documentation of each of its tools, for one harness
 * (or, without a harness, the harness-neutral prompt document).
 */
export function renderAgentPrompt(plan: Plan, agent: PlannedAgent, harness?: Harness): string {
  const byName = toolsByName(plan.tools)
  const tools = agent.tools.map((name) => byName.get(name)).filter((t): t is PlannedTool => t !== undefined)
  const prompt = agent.prompt.trimEnd()
  if (tools.length === 0) return `${prompt}\n`
  const sections = tools.map((tool) => toolSection(plan, agent.toolFormats[tool.name] ?? 'both', tool, harness))
  return `${prompt}\n\n## Tools\n\n${sections.join('\n\n')}\n`
}

/**
 * `text` followed by the docs of `tools` as commands (the bash route, which every harness has),
 * each introduced by `runFrom`: for a file every harness reads alike, such as a skill's SKILL.md.
 */
export function renderCommandDocs(plan: Plan, text: string, tools: readonly string[], runFrom: string): string {
  const byName = toolsByName(plan.tools)
  const sections = tools.map((name) => byName.get(name)).filter((t): t is PlannedTool => t !== undefined).map((tool) => toolSection(plan, 'bash', tool, undefined, runFrom))
  const body = text.trimEnd()
  return sections.length === 0 ? `${body}\n` : `${body}\n\n## Tools\n\n${sections.join('\n\n')}\n`
}
