import type { CommandDefinition, Harness } from '../define/types.js'
import type { Findings } from './findings.js'
import { harness } from './harnesses/index.js'
import type { CommandFile } from './harnesses/types.js'
import { NAME_CAP } from './names.js'
import { plannedSource } from './source.js'

/*
 * A command's name is what a user types after `/`: lowercase parts of letters and digits joined by
 * `-`, `_` or `.` (`speckit.plan`, `fix_issue`), and a namespace before `:` (`git:commit`, what Claude
 * Code, Gemini CLI and Qwen Code call `.../commands/git/commit.*`). Each harness's description says how
 * it names a file (`CommandFile.names`): opencode and Kilo take the namespace as a folder too, but join
 * it with `/`; the others read one folder, where the name is written flat (`git-commit`).
 */

/** What separates a command's namespace from its name, in a definition. */
export const NAMESPACE = ':'

const PART = /^[a-z0-9]+(?:[-_.][a-z0-9]+)*$/
const WINDOWS_DEVICE = /^(?:con|prn|aux|nul|com[0-9]|lpt[0-9])(?:\.|$)/

/** Why `name` cannot name a command, or undefined when it can. */
export function commandNameProblem(name: string): string | undefined {
  const parts = name.split(NAMESPACE)
  if (!parts.every((part) => PART.test(part))) {
    return 'must be lowercase letters and digits, in words joined by "-", "_" or "." (none first or last), with a namespace before ":" where it has one ("git:commit")'
  }
  if (name.length > NAME_CAP) return `is ${name.length} characters; at most ${NAME_CAP}`
  if (parts.some((part) => WINDOWS_DEVICE.test(part))) return 'has a part that is a Windows device name, which cannot be a file or folder name there'
  return undefined
}

/**
 * The command as `file` has it: `path`, the name its path is made of (`git/commit` where a namespace is
 * a folder), `name`, the harness's name for it (`git:commit`, `git/commit`, `git-commit`), and `typed`,
 * what its user types (`/git:commit`, `$git-commit`).
 */
export function commandNameIn(name: string, file: CommandFile): { path: string; name: string; typed: string } {
  const { prefix, folders, character } = file.names
  const one = new RegExp(character.source, character.flags.replace('g', ''))
  const parts = name.split(NAMESPACE).map((part) => [...part].map((char) => (one.test(char) ? char : '-')).join(''))
  const named = parts.join(folders ?? '-')
  return { path: folders ? parts.join('/') : named, name: named, typed: `${prefix}${named}` }
}

/**
 * Reports, for the selected harnesses' command files: two commands one file would hold
 * (`command-name-collision`), and a command a harness's user starts by another name than the
 * definition's (`command-name-changed`), once per command, naming what they type there.
 */
export function checkCommandNames(commands: readonly CommandDefinition[], files: ReadonlyArray<{ file: CommandFile; readers: Harness[] }>, root: string, findings: Findings): void {
  // A name that is no command name is reported by the command's own check.
  const named = commands.filter((command) => typeof command.name === 'string' && commandNameProblem(command.name) === undefined)
  for (const { file } of files) {
    const byPath = new Map<string, CommandDefinition>()
    for (const command of named) {
      const path = file.path(commandNameIn(command.name, file).path)
      const first = byPath.get(path)
      if (!first) {
        byPath.set(path, command)
        continue
      }
      const at = plannedSource(root, first.source)
      findings.error(
        'command-name-collision',
        `Commands "${first.name}" (${at.file}:${at.line}) and "${command.name}" are one file for ${file.reader}, ${path}: it names both ${commandNameIn(command.name, file).typed}.`,
        'Rename one of them, so that they differ in more than their namespace\'s ":" and the characters the harness writes as "-".',
        command.source,
      )
    }
  }
  for (const command of named) {
    const changed = new Map<string, string[]>()
    for (const { file, readers } of files) {
      const { name, typed } = commandNameIn(command.name, file)
      if (name === command.name) continue
      const titles = changed.get(typed) ?? []
      for (const id of readers) {
        const title = file.reader === harness(id).title ? file.reader : `${harness(id).title} (${file.reader})`
        if (!titles.includes(title)) titles.push(title)
      }
      changed.set(typed, titles)
    }
    if (changed.size === 0) continue
    const where = [...changed].map(([typed, titles]) => `${typed} in ${new Intl.ListFormat('en', { type: 'conjunction' }).format(titles)}`)
    findings.warning(
      'command-name-changed',
      `Command "${command.name}" is started as ${where.join('; ')}: ${command.name.includes(NAMESPACE) ? "each harness names a subfolder's command its own way, or reads no subfolder, and takes" : 'each harness takes'} only some characters in a command's name.`,
      `Tell the users of those harnesses what to type, or rename the command to a name every selected harness takes as it is (lowercase words joined by "-", no namespace).`,
      command.source,
    )
  }
}
