import type { AgentDefinition, CommandDefinition, Harness, ModelSpec, RegistryDefinition } from '../define/types.js'
import type { TextOwner } from '../load/prompts.js'
import type { DiagnosticCode } from '../diagnostic-codes.js'
import type { Findings } from './findings.js'
import { isAgent, isCommand } from '../define/guards.js'
import { harness } from './harnesses/index.js'
import type { CommandFile } from './harnesses/types.js'
import { commandNameIn, commandNameProblem } from './command-names.js'
import { checkIdentity, type IdentityRules } from './identity.js'
import type { PlannedCommand, PlannedSkill } from './plan.js'
import { registryList } from './registry-lists.js'
import { plannedSource } from './source.js'

/** The placeholder of a command's prompt for everything the user typed after the command. */
export const ARGS_PLACEHOLDER = '{{args}}'

/** `{{args}}`, `{{arg<n>}}` (the n-th word typed, from 1) and `{{shell:<command>}}` (what the command prints). */
const PLACEHOLDERS = /\{\{(?:args|arg([1-9]\d{0,2})|shell:((?:(?!\}\}).)+))\}\}/g

/** What a prompt's placeholders need of a command file besides `{{args}}`. */
export type CommandNeed = 'positional' | 'shell'

type PromptPiece = { text: string } | { args: true } | { arg: number } | { shell: string }

function promptPieces(prompt: string): PromptPiece[] {
  const pieces: PromptPiece[] = []
  let at = 0
  for (const match of prompt.matchAll(PLACEHOLDERS)) {
    pieces.push({ text: prompt.slice(at, match.index) })
    pieces.push(match[1] !== undefined ? { arg: Number(match[1]) } : match[2] !== undefined ? { shell: match[2] } : { args: true })
    at = match.index + match[0].length
  }
  pieces.push({ text: prompt.slice(at) })
  return pieces
}

/** The placeholders of the prompt that `file`'s reader does not fill in: its file cannot say the prompt. */
export function commandNeeds(prompt: string, file: CommandFile): CommandNeed[] {
  const needs = new Set<CommandNeed>()
  for (const piece of promptPieces(prompt)) {
    if ('arg' in piece && !file.positional) needs.add('positional')
    if ('shell' in piece && !file.shell) needs.add('shell')
  }
  return [...needs]
}

/** The prompt as `file`'s reader reads it, each placeholder in its syntax and the text through its escape; undefined when it cannot say it (`commandNeeds`). */
export function commandPrompt(prompt: string, file: CommandFile, command: string): string | undefined {
  const written = writtenPieces(prompt, file, command)
  return written?.map((piece) => piece.text).join('')
}

function writtenPieces(prompt: string, file: CommandFile, command: string): Array<{ text: string; placeholder: boolean }> | undefined {
  const escape = file.syntax.escape ?? ((text: string) => text)
  const written: Array<{ text: string; placeholder: boolean }> = []
  for (const piece of promptPieces(prompt)) {
    if ('text' in piece) written.push({ text: escape(piece.text), placeholder: false })
    else if ('args' in piece) written.push({ text: file.args(command), placeholder: true })
    else if ('arg' in piece) {
      if (!file.positional) return undefined
      written.push({ text: file.positional(piece.arg), placeholder: true })
    } else {
      if (!file.shell) return undefined
      written.push({ text: file.shell(piece.shell), placeholder: true })
    }
  }
  return written
}

/**
 * The first text of the prompt that `file`'s reader would not show as written: what its syntax
 * finds in the prompt, with the placeholders in its own syntax, other than those placeholders.
 * (A piece `escape` handles is not in `special`: the check reads the text before its escape.)
 */
export function commandProblem(prompt: string, file: CommandFile, command: string): { found: string; meaning: string } | undefined {
  const pieces = promptPieces(prompt)
  const written = writtenPieces(prompt, file, command)
  if (!written) return undefined
  const spans: Array<{ start: number; end: number }> = []
  let text = ''
  pieces.forEach((piece, index) => {
    const start = text.length
    text += 'text' in piece ? piece.text : written[index]!.text
    if (!('text' in piece)) spans.push({ start, end: text.length })
  })
  const inPlaceholder = (at: number, length: number) => spans.some(({ start, end }) => at >= start && at + length <= end)
  for (const { pattern, meaning } of file.syntax.special) {
    const global = new RegExp(pattern.source, pattern.flags.includes('g') ? pattern.flags : `${pattern.flags}g`)
    for (const match of text.matchAll(global)) {
      if (!inPlaceholder(match.index, match[0].length)) return { found: match[0], meaning }
    }
  }
  return undefined
}

/** The description a file says: the definition's, or where the file needs one, the first line of the prompt it writes (as the harnesses show one). */
export function commandDescription(description: string | undefined, written: string, file: CommandFile): string | undefined {
  if (description !== undefined || !file.needsDescription) return description
  const line = written.split('\n').map((text) => text.replace(/^#+\s*/, '').trim()).find((text) => text !== '')
  return (line ?? 'A command').slice(0, 1024)
}

/** The model `file` names for the command: one for every harness, or the one given for the file's harness. */
export function commandModel(model: ModelSpec | undefined, file: CommandFile): string | undefined {
  if (file.fields.model === undefined || model === undefined) return undefined
  return typeof model === 'string' ? model : model[file.harness]
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
  nameProblem: commandNameProblem,
  nameFix: 'Rename the command to lowercase words joined by hyphens, e.g. "forecast" (the user types /forecast), with a namespace before ":" where it needs one, e.g. "git:commit".',
  descriptionFix: 'Say what the command does: harnesses show it in their list of commands (or leave description out: they show the prompt\'s first line).',
  descriptionOptional: true,
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
  checkModelAndFields(command, findings)
  const agent = commandAgent(command, inputs.agents, findings)
  if (prompt !== undefined) checkPrompt(command, prompt, inputs.harnesses, findings)
  if (prompt !== undefined) warnNeeds(command, prompt, inputs.harnesses, findings)
  if (agent !== undefined) warnAgentUnsupported(command, agent, inputs.harnesses, findings)
  if (findings.diagnostics.filter((d) => d.severity === 'error').length > errorsBefore) return undefined
  return {
    name: command.name,
    ...(command.description !== undefined && { description: command.description }),
    prompt: prompt!,
    ...(command.argumentHint !== undefined && { argumentHint: command.argumentHint }),
    ...(agent !== undefined && { agent }),
    ...(command.model !== undefined && { model: command.model }),
    ...(Object.keys(command.harness ?? {}).length > 0 && { harness: command.harness }),
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
    const named = commandNameIn(command.name, file)
    const problem = commandProblem(prompt, file, named.name)
    if (!problem) continue
    const key = `${problem.found}\0${problem.meaning}`
    const entry = found.get(key) ?? { ...problem, readers: [], ids: [] }
    entry.readers.push(`${file.reader} (${file.path(named.path)})`)
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

/** A model is text, or text per harness; each `harness` entry is a map of fields. */
function checkModelAndFields(command: CommandDefinition, findings: Findings): void {
  const model: unknown = command.model
  const isText = (value: unknown) => typeof value === 'string' && value.trim() !== ''
  if (model !== undefined && !isText(model) && !(isPlainRecord(model) && Object.values(model).every(isText))) {
    findings.error('command-field-invalid', `Command "${command.name}"'s model is neither a model id nor one per harness.`, 'Set model to an id such as "sonnet", or to { claude: "sonnet", opencode: "anthropic/claude-sonnet-4-5" }, or leave it out.', command.source)
  }
  const bag: unknown = command.harness
  if (bag !== undefined && (!isPlainRecord(bag) || !Object.values(bag).every(isPlainRecord))) {
    findings.error('command-field-invalid', `Command "${command.name}"'s harness is not a map of fields per harness.`, "Set harness to e.g. { claude: { 'allowed-tools': 'Bash(git:*)' } }, or leave it out.", command.source)
  }
}

function isPlainRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

const NEEDS: Record<CommandNeed, { code: DiagnosticCode; says: string; fix: string }> = {
  positional: {
    code: 'command-positional-unsupported',
    says: 'uses {{arg<n>}}, a word of what the user typed, and the command files of',
    fix: 'give only the whole text ({{args}})',
  },
  shell: {
    code: 'command-shell-unsupported',
    says: "uses {{shell:...}}, a shell command's output, and the command files of",
    fix: 'run no shell command before the model reads the text',
  },
}

/** A warning per placeholder kind that a selected harness's command file cannot say: its file is left out there. */
function warnNeeds(command: CommandDefinition, prompt: string, harnesses: readonly Harness[], findings: Findings): void {
  const unable = new Map<CommandNeed, Harness[]>()
  for (const { file, readers } of commandFiles(harnesses)) {
    for (const need of commandNeeds(prompt, file)) unable.set(need, [...(unable.get(need) ?? []), ...readers])
  }
  for (const [need, ids] of unable) {
    const { code, says, fix } = NEEDS[need]
    const unique = [...new Set(ids)]
    findings.warning(
      code,
      `Command "${command.name}" ${says} ${new Intl.ListFormat('en', { type: 'conjunction' }).format(unique.map((id) => harness(id).title))} ${fix}: the command is not written for ${unique.length === 1 ? 'it' : 'them'}.`,
      `Say it with {{args}} alone, or leave ${unique.join(', ')} out of the harnesses (or accept the command missing there).`,
      command.source,
    )
  }
}
