import { harness as describe, shownServerName } from '../../compile/harnesses/index.js'
import { type Plan, type PlannedAgent, type PlannedTool, scriptCommandPath } from '../../compile/plan.js'
import type { Harness, ToolFormat } from '../../define/types.js'
import { type FlagSpec, inputFlags, jsonFlagExample } from '../../runtime/flags.js'
import { markdownCode, markdownFence } from './escape.js'
import { memoByObject } from './memo.js'

/** The plan's tools by name: every agent of every harness looks its tools up. */
export const toolsByName = memoByObject((tools: readonly PlannedTool[]) => new Map(tools.map((tool) => [tool.name, tool])))

/** How a harness names one of our tools when the model calls it natively. */
export function nativeToolName(plan: Plan, id: Harness, tool: string): string {
  return describe(id).modelToolName(shownServerName(plan, id), tool)
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

const bashDocs = memoByObject((tool: PlannedTool): string => {
  const command = `node ${scriptCommandPath(tool.script)}`
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
})

/** The input schema as a JSON code block. */
const schemaFence = memoByObject((schema: PlannedTool['schema']): string => markdownFence(JSON.stringify(schema, null, 2), 'json'))

/** How the JSON docs introduce the schema: the native tool to call, or the script's `--json`. */
function jsonIntro(plan: Plan, tool: PlannedTool, harness: Harness | undefined): string {
  if (hasNativeForm(plan, tool, harness) && harness) {
    const namespace = describe(harness).toolNamespace?.(shownServerName(plan, harness))
    const where = namespace === undefined ? '' : ` (in the namespace ${markdownCode(namespace)})`
    return `Call the tool ${markdownCode(nativeToolName(plan, harness, tool.name))}${where} with input matching this JSON Schema:`
  }
  return `Input, as JSON (for ${markdownCode(`node ${scriptCommandPath(tool.script)} --json`)}), matching this JSON Schema:`
}

/** Each tool's sections as rendered so far, by what sets them apart: most agents and harnesses that have a tool document it alike. */
const sectionsOf = memoByObject((_tool: PlannedTool) => new Map<string, string>())

/** Where agent prompts say their tools' commands run: a project's, from its folder; a user's, from the folder to work in. */
const RUN_FROM_PROJECT = 'Run it from the project folder:'
const RUN_FROM_ANY = 'Run it from the folder it should work in:'

/** Renders one tool's section in `format` (`runFrom` introduces its command). */
function toolSection(plan: Plan, format: ToolFormat, tool: PlannedTool, harness: Harness | undefined, runFrom = plan.scope === 'user' ? RUN_FROM_ANY : RUN_FROM_PROJECT): string {
  // Without a native form the bash route is the only way to call the tool, whatever the format says. A
  // plugin's agents have no bash route (its scripts are not in the project): compile lets in native tools
  // alone; its skills' commands (`bash`) run the skill's copy of a script, which finds the plugin's.
  const bash = format === 'bash' || (!plan.plugin && (format !== 'json' || !hasNativeForm(plan, tool, harness)))
  const intro = format === 'bash' ? undefined : jsonIntro(plan, tool, harness)
  const sections = sectionsOf(tool)
  const key = `${bash}\0${intro ?? ''}\0${runFrom}`
  let section = sections.get(key)
  if (section === undefined) {
    const parts = [`### ${tool.name.replace(/[\r\n]/g, ' ')}`, '', tool.description.trim()]
    if (bash) parts.push('', runFrom, '', bashDocs(tool))
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
