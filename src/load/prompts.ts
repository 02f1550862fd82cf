import { readFile } from 'node:fs/promises'
import { dirname, resolve } from 'node:path'
import { isAgent, isCommand, isRule, isSkill } from '../define/guards.js'
import { projectPath } from '../project-path.js'
import type { RuleDefinition } from '../define/rules.js'
import type { AgentDefinition, CommandDefinition, RegistryDefinition, SkillDefinition, SourceLocation } from '../define/types.js'
import type { Diagnostic } from '../diagnostics.js'

/**
 * What a text was read for: an agent (its prompt), a skill (its instructions), a command (its
 * prompt), a rule (its text), or the `{ file }` entry of one of a skill's extra files.
 */
export type TextOwner = AgentDefinition | SkillDefinition | CommandDefinition | RuleDefinition | { readonly file: string }

export interface Prompts {
  texts: Map<TextOwner, string>
  /** Absolute paths of the prompt files read. */
  files: string[]
  diagnostics: Diagnostic[]
}

/** One text to read: what it is for, what it is, and the definition that names it. */
interface Wanted {
  owner: TextOwner
  text: unknown
  /** What the diagnostic calls it, e.g. `prompt file of agent "planner"`. */
  label: string
  /** The option that names the file, for the fix. */
  option: string
  definition: { source: SourceLocation }
}

/** Every text a definition names: agents' prompts, skills' instructions and files, commands' prompts, rules' texts. */
function wantedTexts(registry: RegistryDefinition): Wanted[] {
  const list = (value: unknown): unknown[] => (Array.isArray(value) ? value : [])
  const wanted: Wanted[] = []
  for (const agent of list(registry.agents).filter(isAgent)) {
    wanted.push({ owner: agent, text: agent.prompt, label: `prompt file of agent "${agent.name}"`, option: 'prompt.file', definition: agent })
  }
  for (const skill of list(registry.skills).filter(isSkill)) {
    wanted.push({ owner: skill, text: skill.instructions, label: `instructions file of skill "${skill.name}"`, option: 'instructions.file', definition: skill })
    const files = typeof skill.files === 'object' && skill.files !== null ? Object.entries(skill.files) : []
    for (const [path, file] of files) {
      if (typeof file === 'object' && file !== null) wanted.push({ owner: file, text: file, label: `file "${path}" of skill "${skill.name}"`, option: `files["${path}"].file`, definition: skill })
    }
  }
  for (const command of list(registry.commands).filter(isCommand)) {
    wanted.push({ owner: command, text: command.prompt, label: `prompt file of command "${command.name}"`, option: 'prompt.file', definition: command })
  }
  for (const rule of list(registry.rules).filter(isRule)) {
    wanted.push({ owner: rule, text: rule.text, label: `text file of rule "${rule.name}"`, option: 'text.file', definition: rule })
  }
  return wanted
}

/**
 * Every text the definitions name: strings as written, `{ file }` read next to the module that makes
 * the definition (agents' prompts, skills' instructions and extra files, commands' prompts).
 */
export async function readPrompts(registry: RegistryDefinition, root: string): Promise<Prompts> {
  const texts = new Map<TextOwner, string>()
  const files: string[] = []
  const diagnostics: Diagnostic[] = []
  for (const { owner, text, label, option, definition } of wantedTexts(registry)) {
    if (typeof text === 'string') {
      texts.set(owner, text)
      continue
    }
    const name = typeof text === 'object' && text !== null ? (text as { file?: unknown }).file : undefined
    if (typeof name !== 'string') continue // compile reports the malformed text
    const file = resolve(dirname(definition.source.file), name)
    try {
      texts.set(owner, await readFile(file, 'utf8'))
      files.push(file)
    } catch (error) {
      const reason = (error as { code?: unknown }).code === 'ENOENT' ? 'does not exist' : `cannot be read (${(error as Error).message})`
      diagnostics.push({
        severity: 'error',
        code: 'prompt-file-missing',
        message: `The ${label} ${reason}: tried ${projectPath(root, file)}.`,
        fix: `Create ${projectPath(root, file)}, or fix ${option} (it is resolved from the folder of the module that makes the definition).`,
        file: projectPath(root, definition.source.file),
        line: definition.source.line,
        column: definition.source.column,
      })
      // Watch the missing file too, so creating it triggers the next build.
      files.push(file)
    }
  }
  return { texts, files, diagnostics }
}
