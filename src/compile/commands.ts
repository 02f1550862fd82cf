import type { AgentDefinition, CommandDefinition, Harness, RegistryDefinition } from '../define/types.js'
import type { TextOwner } from '../load/prompts.js'
import type { Findings } from './findings.js'
import { isAgent, isCommand } from './guards.js'
import { harness } from './harnesses/index.js'
import type { CommandFile } from './harnesses/types.js'
import { checkIdentity, type IdentityRules } from './identity.js'
import { skillNameProblem } from './names.js'
import type { PlannedCommand, PlannedSkill } from './plan.js'
import { registryList } from './registry-lists.js'
import { plannedSource } from './source.js'

/** The one placeholder of a command's prompt: what the user typed after the command. */
export const ARGS_PLACEHOLDER = '{{args}}'

/** The prompt as `file`'s reader reads it: each piece of text through its escape, `{{args}}` in its own syntax. */
export function commandPrompt(prompt: string, file: CommandFile, command: string): string {
  const escape = file.syntax.escape ?? ((text: string) => text)
  return prompt.split(ARGS_PLACEHOLDER).map(escape).join(file.args(command))
}

/**
 * The first text of the prompt that `file`'s reader would not show as written: what its syntax
 * finds in the prompt, with `{{args}}` in its own syntax, other than that placeholder itself.
 * (A piece `escape` handles is not in `special`: the check reads the text before its escape.)
 */
export function commandProblem(prompt: string, file: CommandFile, command: string): { found: string; meaning: string } | undefined {
  const placeholder = file.args(command)
  const pieces = prompt.split(ARGS_PLACEHOLDER)
  const starts: number[] = []
  let text = pieces[0]!
  for (const piece of pieces.slice(1)) {
    starts.push(text.length)
    text += placeholder + piece
  }
  const isPlaceholder = (at: number, length: number) => starts.some((start) => at >= start && at + length <= start + placeholder.length)
  for (const { pattern, meaning } of file.syntax.special) {
    const global = new RegExp(pattern.source, pattern.flags.includes('g') ? pattern.flags : `${pattern.flags}g`)
    for (const match of text.matchAll(global)) {
      if (!isPlaceholder(match.index, match[0].length)) return { found: match[0], meaning }
    }
  }
  return undefined
}

/** The registry's commands made by defineCommand, each name once; anything else is reported. */
export function registryCommands(registry: RegistryDefinition, findings: Findings): CommandDefinition[] {
  return registryList(registry, registry.commands, { key: 'commands', noun: 'command', is: isCommand, made: 'defineCommand({ name, description, prompt })', unique: 'each command is one file per harness' }, findings)
}

export interface CommandInputs {
  texts: ReadonlyMap<TextOwner, string>
  agents: readonly AgentDefinition[]
  skills: readonly PlannedSkill[]
  harnesses: readonly Harness[]
  root: string
}

/** The command files of the selected harnesses, each with the harnesses that read it (one path, one file). */
export function commandFiles(harnesses: readonly Harness[]): Array<{ file: CommandFile; readers: Harness[] }> {
  const byPath = new Map<string, { file: CommandFile; readers: Harness[] }>()
  for (const id of harnesses) {
    for (const file of harness(id).commands) {
      const key = file.path('')
      const entry = byPath.get(key)
      if (entry) entry.readers.push(id)
      else byPath.set(key, { file, readers: [id] })
    }
  }
  return [...byPath.values()]
}

const COMMAND_IDENTITY: IdentityRules = {
  noun: 'command',
  nameProblem: skillNameProblem,
  nameFix: 'Rename the command to lowercase words joined by hyphens, e.g. "forecast": the user types /forecast.',
  descriptionFix: 'Say what the command does: harnesses show it in their list of commands.',
}

/** Checks one command and turns it into its planned form (undefined when it cannot be planned). */
export function planCommand(command: CommandDefinition, inputs: CommandInputs, findings: Findings): PlannedCommand | undefined {
  const at = command.source
  const label = `Command "${command.name}"`
  const errorsBefore = findings.diagnostics.filter((d) => d.severity === 'error').length
  checkIdentity(command, COMMAND_IDENTITY, at, findings)
  if (command.argumentHint !== undefined && typeof command.argumentHint !== 'string') {
    findings.error('command-field-invalid', `${label}'s argumentHint is not text.`, 'Set argumentHint to a short hint such as "<city>", or leave it out.', at)
  }
  const prompt = inputs.texts.get(command)
  if (prompt === undefined) {
    findings.error('command-prompt-invalid', `${label}'s prompt is neither text nor { file }.`, "Set prompt to the text, or to { file: './command.md' } (next to this module).", at)
  }
  const twin = inputs.skills.find((skill) => skill.name === command.name)
  if (twin) {
    findings.error(
      'command-skill-same-name',
      `${label} has the name of the skill at ${twin.source.file}:${twin.source.line}; Claude Code and the Copilot CLI list skills and commands under one set of names.`,
      'Rename the command or the skill.',
      at,
    )
  }
  const agent = commandAgent(command, inputs.agents, findings)
  if (prompt !== undefined) checkPrompt(command, prompt, inputs.harnesses, findings)
  if (agent !== undefined) warnAgentUnsupported(command, agent, inputs.harnesses, findings)
  if (findings.diagnostics.filter((d) => d.severity === 'error').length > errorsBefore) return undefined
  return {
    name: command.name,
    description: command.description,
    prompt: prompt!,
    ...(command.argumentHint !== undefined && { argumentHint: command.argumentHint }),
    ...(agent !== undefined && { agent }),
    source: plannedSource(inputs.root, at),
  }
}

/** The name of the agent the command runs as: a registry agent, given as its definition or its name. */
function commandAgent(command: CommandDefinition, agents: readonly AgentDefinition[], findings: Findings): string | undefined {
  const agent: unknown = command.agent
  if (agent === undefined) return undefined
  const name = isAgent(agent) ? agent.name : agent
  if (typeof name === 'string' && agents.some((known) => known.name === name && (!isAgent(agent) || known === agent))) return name
  const known = agents.map((known) => known.name)
  findings.error(
    'command-agent-unknown',
    `Command "${command.name}" runs as ${typeof name === 'string' ? `the agent "${name}"` : 'something'} that is not one of the registry's agents${known.length ? ` (${known.join(', ')})` : ''}.`,
    'Pass one of the registry\'s agents (its definition or its name) as agent, or add the agent to defineRegistry({ agents }).',
    command.source,
  )
  return undefined
}

/** Reports prompt text a selected harness's command file would not show as written, once per kind of text. */
function checkPrompt(command: CommandDefinition, prompt: string, harnesses: readonly Harness[], findings: Findings): void {
  const found = new Map<string, { found: string; meaning: string; readers: string[]; ids: Harness[] }>()
  for (const { file, readers } of commandFiles(harnesses)) {
    const problem = commandProblem(prompt, file, command.name)
    if (!problem) continue
    const key = `${problem.found}\0${problem.meaning}`
    const entry = found.get(key) ?? { ...problem, readers: [], ids: [] }
    entry.readers.push(`${file.reader} (${file.path(command.name)})`)
    entry.ids.push(...readers.filter((id) => !entry.ids.includes(id)))
    found.set(key, entry)
  }
  for (const { found: text, meaning, readers, ids } of found.values()) {
    findings.error(
      'command-placeholder',
      `Command "${command.name}"'s prompt contains \`${text}\`, which ${readers.join(' and ')} ${readers.length === 1 ? 'reads' : 'read'} as its own syntax, with no escape for it: there it ${meaning}.`,
      `Write it another way (${ARGS_PLACEHOLDER} stands for the arguments), or leave ${ids.join(', ')} out of the harnesses.`,
      command.source,
    )
  }
}

/** One warning when the command runs as an agent and a selected harness's command files cannot name one. */
function warnAgentUnsupported(command: CommandDefinition, agent: string, harnesses: readonly Harness[], findings: Findings): void {
  const unable = harnesses.filter((id) => !harness(id).commands.some((file) => file.fields.agent))
  if (unable.length === 0) return
  findings.warning(
    'command-agent-unsupported',
    `Command "${command.name}" runs as the agent "${agent}", but the command files of ${unable.map((id) => harness(id).title).join(', ')} cannot name an agent: there it runs in the main conversation.`,
    `Accept it, or leave ${unable.join(', ')} out of the harnesses.`,
    command.source,
  )
}
