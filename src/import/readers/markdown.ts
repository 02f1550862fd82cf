import { NAMESPACE } from '../../compile/command-names.js'
import { ARGS_PLACEHOLDER } from '../../compile/commands.js'
import { HARNESS_TABLE } from '../../compile/harnesses/index.js'
import { COMPATIBILITY_CAP, isFieldText, isTextMap, isToolList } from '../../compile/skill-fields.js'
import type { Harness, JsonValue } from '../../define/types.js'
import { withoutCompiledAllowedTools } from '../compiled-allowed-tools.js'
import { baseName, filesUnder, type Frontmatter, type FrontmatterRepair, ImportReadError, listFolder, readFrontmatter, readProjectFile } from '../source-text.js'
import type { ImportedCommand, ImportedSkill, NotCarried } from '../types.js'

/** What a harness's command text says, read back into a definition's prompt (the inverse of compile's `commandPrompt`). */
export interface CommandText {
  /** The harness's placeholder for what the user typed, e.g. `$ARGUMENTS` (a pattern where an escaped one is text). */
  placeholder: (command: string) => string | RegExp
  /** Undoes the harness's escape of a literal (Claude Code's `\$ARGUMENTS`). */
  unescape?: (text: string) => string
  /** Its placeholder for one word of what the user typed (`$1`), and which word it is (1 for the first): `{{arg<n>}}`. */
  positional?: { pattern: RegExp; word: (groups: string[]) => number }
  /** A shell command whose output it puts in the text, the command as group 1: `{{shell:<command>}}`. */
  shell?: RegExp
  /** Other placeholders it fills, which a definition cannot say (VS Code's `${file}`). */
  unsaid?: RegExp
  /** What the harness does with frontmatter that is not YAML (Claude Code quotes values). */
  frontmatterRepair?: FrontmatterRepair
}

/** The prompt of a command with its placeholders as a definition's (`{{args}}`, `{{arg<n>}}`, `{{shell:...}}`), and what it says that they cannot. */
export function commandPromptFrom(text: string, command: string, syntax: CommandText): { prompt: string; problems: string[] } {
  const problems: string[] = []
  const own = /\{\{(?:args|arg\d+|shell:[^}]*)\}\}/.exec(text)
  if (own) problems.push(`its text holds \`${own[0]}\`, which a definition reads as a placeholder`)
  const placeholder = syntax.placeholder(command)
  const pieces = (typeof placeholder === 'string' ? text.split(placeholder) : text.split(new RegExp(placeholder.source, 'g'))).map((text) => {
    const unsaid = syntax.unsaid ? [...new Set([...text.matchAll(global(syntax.unsaid))].map((match) => match[0]))] : []
    if (unsaid.length > 0) problems.push(`it uses ${unsaid.map((found) => `\`${found}\``).join(', ')}, which the harness fills in and a definition cannot say (it would be written as plain text)`)
    let piece = text
    if (syntax.shell) piece = piece.replace(global(syntax.shell), (_found, shellCommand: string) => (shellCommand.includes('}}') ? _found : `{{shell:${shellCommand}}}`))
    if (syntax.positional) {
      const { pattern, word } = syntax.positional
      piece = piece.replace(global(pattern), (found: string, ...groups: unknown[]) => {
        const n = word(groups.filter((group): group is string => typeof group === 'string'))
        return n >= 1 ? `{{arg${n}}}` : found
      })
    }
    const unescaped = syntax.unescape ? syntax.unescape(piece) : piece
    if (unescaped !== piece) problems.push('it escapes a placeholder to say it as text, which some harnesses cannot say (compile names them); reword it')
    return unescaped
  })
  return { prompt: pieces.join(ARGS_PLACEHOLDER), problems }
}

function global(pattern: RegExp): RegExp {
  return new RegExp(pattern.source, pattern.flags.includes('g') ? pattern.flags : `${pattern.flags}g`)
}

/** Fields of a Markdown command file a definition carries; any other is listed. */
export interface CommandFields {
  /** The end of a command file's name (default `.md`; VS Code's `.prompt.md`). */
  suffix?: string
  /** The harness names a subfolder's commands with a namespace (`CommandFile.names.folders`). */
  namespaces?: boolean
  argumentHint?: string
  /** The key of the command's model, where the harness's command file names one. */
  model?: string
  /** The frontmatter that names the agent to run the command as (the key, and when it applies). */
  agent?: (data: { [key: string]: JsonValue }) => { agent?: string; keys: string[] }
}

/**
 * The command files in `folder`, each with its name: where the harness namespaces a subfolder's
 * commands (`namespaces`), `git/commit.md` is `git:commit`; elsewhere a subfolder holds no command the
 * harness reads, and is listed.
 */
export async function commandFilesIn(root: string, folder: string, suffix: string, namespaces: boolean): Promise<{ files: Array<{ file: string; name: string }>; notCarried: NotCarried[] }> {
  const files: Array<{ file: string; name: string }> = []
  const notCarried: NotCarried[] = []
  for (const entry of await listFolder(root, folder)) {
    const file = `${folder}/${entry.name}`
    if (entry.isFolder && namespaces) {
      const inner = await commandFilesIn(root, file, suffix, namespaces)
      files.push(...inner.files.map((found) => ({ file: found.file, name: `${entry.name}${NAMESPACE}${found.name}` })))
      notCarried.push(...inner.notCarried)
    } else if (entry.isFolder) {
      notCarried.push({ at: { file, line: 1 }, what: `the files in ${file}/`, why: 'the harness reads no command in a subfolder of its commands folder' })
    } else if (entry.isFile && entry.name.endsWith(suffix)) {
      files.push({ file, name: baseName(entry.name, suffix) })
    }
  }
  return { files, notCarried }
}

/** Every command file in `folder` (and its subfolders, where `fields.namespaces`: `git/commit.md` is `git:commit`). */
export async function readMarkdownCommands(root: string, folder: string, from: Harness, syntax: CommandText, fields: CommandFields): Promise<{ commands: ImportedCommand[]; notCarried: NotCarried[] }> {
  const commands: ImportedCommand[] = []
  const { files, notCarried } = await commandFilesIn(root, folder, fields.suffix ?? '.md', fields.namespaces === true)
  for (const { file, name } of files) {
    const text = (await readProjectFile(root, file))!
    let matter: Frontmatter
    try {
      matter = readFrontmatter(text, file, syntax.frontmatterRepair)
    } catch (error) {
      if (!(error instanceof ImportReadError)) throw error
      notCarried.push({ at: error.at, what: `command "${name}"`, why: `its frontmatter is not YAML${syntax.frontmatterRepair ? ', even as the harness repairs it' : ''}, so no field of it can be read; fix it and import again` })
      continue
    }
    const { data, body } = matter
    const { prompt, problems } = commandPromptFrom(body, name, syntax)
    for (const problem of problems) notCarried.push({ at: { file, line: 1 }, what: `command "${name}"`, why: problem })
    const agent = fields.agent?.(data)
    const hint = fields.argumentHint === undefined ? undefined : data[fields.argumentHint]
    const model = fields.model === undefined ? undefined : data[fields.model]
    const known = new Set([
      ...(typeof data.description === 'string' ? ['description'] : []),
      ...(typeof hint === 'string' ? [fields.argumentHint] : []),
      ...(typeof model === 'string' ? [fields.model] : []),
      ...(agent?.keys ?? []),
    ])
    // Every other key is the harness's own, written back into its file as it is.
    const own = Object.fromEntries(Object.entries(data).filter(([key]) => !known.has(key)))
    commands.push({
      kind: 'command',
      name,
      // Without one, each harness shows the prompt's first line, as before: none is made up here.
      ...(typeof data.description === 'string' && { description: data.description }),
      prompt: prompt.trimEnd(),
      ...(typeof hint === 'string' && { argumentHint: hint }),
      ...(agent?.agent !== undefined && { agent: agent.agent }),
      ...(typeof model === 'string' && { model: { [from]: model } }),
      ...(Object.keys(own).length > 0 && { harness: { [from]: own } }),
      from,
      at: { file, line: 1 },
    })
  }
  return { commands, notCarried }
}

/** Files a harness writes into a skill's folder itself, which are not the skill's own files. */
export interface SkillFolderRead {
  /** The file that keeps a skill from the model there (Codex's `agents/openai.yaml`), when `userOnly` says so. */
  userOnlyFile?: { path: string; says: (text: string) => boolean }
  unescape?: (text: string) => string
  frontmatterRepair?: FrontmatterRepair
}

/** SKILL.md's keys a skill definition's fields say: the shape each takes, as compile checks it and in words (anything else is kept for the harness read). */
const SKILL_FIELDS: Record<string, { fits: (value: JsonValue) => boolean; shape: string }> = {
  name: { fits: (value) => typeof value === 'string', shape: 'a text' },
  description: { fits: (value) => typeof value === 'string', shape: 'a text' },
  'disable-model-invocation': { fits: (value) => typeof value === 'boolean', shape: 'true or false' },
  license: { fits: isFieldText, shape: 'a text' },
  compatibility: { fits: (value) => isFieldText(value) && value.length <= COMPATIBILITY_CAP, shape: `a text of at most ${COMPATIBILITY_CAP} characters` },
  metadata: { fits: isTextMap, shape: 'text keys to text values; quote a number' },
  'allowed-tools': { fits: isToolList, shape: 'a text or a list of texts' },
}

/** Files of a skill's folder that compile writes itself (Codex's `agents/openai.yaml`), so a definition cannot name them. */
const COMPILED_SKILL_FILES = new Set(Object.values(HARNESS_TABLE).flatMap(({ skills: { userOnly } }) => ('file' in userOnly ? [userOnly.file] : [])))

/** Every skill folder (`<name>/SKILL.md`) in `folder`, with its other text files. */
export async function readSkills(root: string, folder: string, from: Harness, read: SkillFolderRead = {}): Promise<{ skills: ImportedSkill[]; notCarried: NotCarried[] }> {
  const skills: ImportedSkill[] = []
  const notCarried: NotCarried[] = []
  for (const entry of await listFolder(root, folder)) {
    if (!entry.isFolder) continue
    const dir = `${folder}/${entry.name}`
    const file = `${dir}/SKILL.md`
    const text = await readProjectFile(root, file)
    if (text === undefined) continue
    const { data, body, lineOf } = readFrontmatter(text, file, read.frontmatterRepair)
    const name = typeof data.name === 'string' ? data.name : entry.name
    const own: { [key: string]: JsonValue } = {}
    for (const [key, value] of Object.entries(data)) {
      const field = SKILL_FIELDS[key]
      if (!field) own[key] = value
      else if (!field.fits(value)) notCarried.push({ at: { file, line: lineOf(key) }, what: `\`${key}\` of skill "${name}"`, why: `its value is not in the shape the Agent Skills format gives it (${field.shape})` })
    }
    const fitting = (key: string) => (Object.hasOwn(data, key) && SKILL_FIELDS[key]!.fits(data[key]!) ? data[key] : undefined)
    const license = fitting('license')
    const compatibility = fitting('compatibility')
    const metadata = fitting('metadata')
    const paths = await filesUnder(root, dir)
    const written = fitting('allowed-tools') as string | string[] | undefined
    // The rules compile adds for the skill's own commands are the compiled tree's, not the user's.
    const allowedTools = written === undefined ? undefined : withoutCompiledAllowedTools(written, folder, dir, paths)
    let modelInvocation = data['disable-model-invocation'] !== true
    const files: Record<string, string> = {}
    for (const path of paths) {
      if (path === 'SKILL.md') continue
      const content = await readProjectFile(root, `${dir}/${path}`)
      if (read.userOnlyFile?.path === path && content !== undefined && read.userOnlyFile.says(content)) {
        modelInvocation = false
        continue
      }
      if (COMPILED_SKILL_FILES.has(path)) {
        notCarried.push({ at: { file: `${dir}/${path}`, line: 1 }, what: `the file "${path}" of skill "${name}"`, why: 'compile writes this file itself (for a skill kept from the model), and a skill definition has no field for what else it says' })
        continue
      }
      if (content === undefined || content.includes('\u0000') || content.includes('\uFFFD')) {
        notCarried.push({ at: { file: `${dir}/${path}`, line: 1 }, what: `the file "${path}" of skill "${name}"`, why: 'it is not text, and a skill definition names text files (copy it beside the registry by hand)' })
        continue
      }
      files[path] = content
    }
    skills.push({
      kind: 'skill',
      name,
      description: typeof data.description === 'string' ? data.description : '',
      instructions: (read.unescape ? read.unescape(body) : body).trimEnd(),
      files,
      modelInvocation,
      ...(typeof license === 'string' && { license }),
      ...(typeof compatibility === 'string' && { compatibility }),
      ...(metadata !== undefined && { metadata: metadata as Record<string, string> }),
      ...(allowedTools !== undefined && { allowedTools }),
      ...(Object.keys(own).length > 0 && { harness: { [from]: own } }),
      from,
      at: { file, line: 1 },
    })
  }
  return { skills, notCarried }
}
