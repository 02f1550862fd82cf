import type { Harness, JsonValue } from '../../define/types.js'
import { blockBegin, blockEnd } from '../../write/markdown-merge.js'
import { baseName, type Frontmatter, type FrontmatterRepair, ImportReadError, listFolder, readFrontmatter, readProjectFile } from '../source-text.js'
import type { HarnessRead, ImportedRule, NotCarried } from '../types.js'

/*
 * Instructions as rules: an instruction file a harness reads whole (CLAUDE.md, GEMINI.md, ...) is a rule
 * that is always on; a file of a rule folder is one rule, for the files its globs match where its
 * frontmatter names some. Only the user's text is read: a block unplugin-oac keeps in the file
 * (`<!-- oac:begin <server> -->` ... `<!-- oac:end <server> -->`, src/write/markdown-merge.ts) is the
 * compiled registry's, and is left out.
 */

/** The text outside unplugin-oac's blocks: each begin line, the end line of its server after it, and what lies between. */
export function userText(text: string): string {
  const lines = text.split('\n')
  const kept: string[] = []
  for (let i = 0; i < lines.length; i++) {
    const begin = /^<!-- oac:begin (\S+) -->\r?$/.exec(lines[i]!)
    const end = begin ? lines.findIndex((line, j) => j > i && line.replace(/\r$/, '') === blockEnd(begin[1]!)) : -1
    if (begin && lines[i]!.replace(/\r$/, '') === blockBegin(begin[1]!) && end !== -1) {
      i = end
      continue
    }
    kept.push(lines[i]!)
  }
  return kept.join('\n')
}

/** A text as a model reads it: line endings, trailing spaces and the blank lines around it aside (to find the same text twice). */
export function sameText(text: string): string {
  return text.replace(/\r\n?/g, '\n').split('\n').map((line) => line.trimEnd()).join('\n').trim()
}

/** An `@AGENTS.md` line (from the project root, or `@../AGENTS.md` from `.claude/`): the harness reads AGENTS.md through it. */
const AGENTS_MD_IMPORT = /^[ \t]*@(?:\.\/|\.\.\/)?AGENTS\.md[ \t]*\r?$/gm

/** A rule's name from its file: lowercase words joined by hyphens (`.github/copilot-instructions.md` -> `copilot-instructions`). */
export function ruleName(path: string): string {
  return path
    .replace(/\.instructions\.md$|\.md$/i, '')
    .replace(/^\.+/, '')
    .replace(/([a-z0-9])([A-Z])/g, '$1-$2')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
}

/** A rule's description: its frontmatter's, else its first heading, else where it came from. */
function describeRule(data: { [key: string]: JsonValue }, text: string, file: string): string {
  if (typeof data.description === 'string' && data.description.trim() !== '') return data.description.trim()
  const heading = /^#{1,6}[ \t]+(.+?)[ \t#]*$/m.exec(text)?.[1]
  return heading ?? `The instructions of ${file}.`
}

/**
 * A rule's globs as a harness reads them: a list, or one string of comma-separated globs (split, as Claude
 * Code splits `paths:`, at commas outside braces), each brace list written out (`*.{ts,tsx}` is two globs,
 * since Copilot's comma-joined `applyTo` could not say it).
 */
export function globsOf(value: JsonValue | undefined): string[] | undefined {
  const items = typeof value === 'string' ? splitOutsideBraces(value) : Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string') : undefined
  if (items === undefined) return undefined
  const globs = [...new Set(items.map((item) => item.trim()).filter(Boolean).flatMap(expandBraces))]
  return globs.length > 0 ? globs : undefined
}

function splitOutsideBraces(text: string): string[] {
  const parts: string[] = []
  let depth = 0
  let current = ''
  for (const char of text) {
    if (char === ',' && depth === 0) {
      parts.push(current)
      current = ''
      continue
    }
    if (char === '{') depth++
    if (char === '}') depth--
    current += char
  }
  return [...parts, current]
}

function expandBraces(glob: string): string[] {
  const match = /^([^{]*)\{([^{}]*)\}(.*)$/.exec(glob)
  if (!match) return [glob]
  return match[2]!.split(',').flatMap((choice) => expandBraces(`${match[1]}${choice.trim()}${match[3]}`))
}

/** Globs that match every file: a rule with them is always on. */
const EVERY_FILE = new Set(['**', '**/*', '*'])

export interface RuleFolder {
  folder: string
  /** The suffix of its rule files. */
  suffix: string
  /** The frontmatter key of the globs. */
  key: string
  /** A frontmatter key that says the rule is always on (oh-my-pi's `alwaysApply`). */
  alwaysKey?: string
  /** Subfolders that hold something else than rules, and what (Cline's `workflows`). */
  otherFolders?: Record<string, string>
  /** What the harness does with frontmatter that is not YAML (Claude Code quotes values). */
  repair?: FrontmatterRepair
}

/** A rule from an instruction file's text; undefined when the user's text in it is empty (a file holding only our block). */
function ruleFrom(file: string, from: Harness, matter: Frontmatter, paths: string[] | undefined, notCarried: NotCarried[], known: readonly string[], name = ruleName(file)): ImportedRule | undefined {
  const text = userText(matter.body).trim()
  if (text === '') return undefined
  for (const key of Object.keys(matter.data)) {
    if (!known.includes(key)) notCarried.push({ at: { file, line: matter.lineOf(key) }, what: `\`${key}\` of rule "${name}"`, why: 'a rule definition has no such field' })
  }
  return { kind: 'rule', name, description: describeRule(matter.data, text, file), text, ...(paths && { paths }), from, at: { file, line: 1 } }
}

/** Frontmatter, or the file listed when it is not YAML (its harness would not read its fields either). */
function frontmatterOf(text: string, file: string, notCarried: NotCarried[], repair?: FrontmatterRepair): Frontmatter | undefined {
  try {
    return readFrontmatter(text, file, repair)
  } catch (error) {
    if (!(error instanceof ImportReadError)) throw error
    notCarried.push({ at: error.at, what: `the rule ${file}`, why: 'its frontmatter is not YAML; fix it and import again' })
    return undefined
  }
}

/**
 * Instruction files a harness reads whole, each an always-on rule: all of the file is its text (a
 * `---` block at its top included, which the harness reads as text too). An `@AGENTS.md` line is left
 * out: AGENTS.md stays the user's (see `rootAgentsMd`), and every harness reads it once compiled.
 */
export async function readInstructionFiles(root: string, files: readonly string[], from: Harness): Promise<HarnessRead> {
  const read: HarnessRead = { definitions: [], notCarried: [] }
  for (const file of files) {
    const text = await readProjectFile(root, file)
    if (text === undefined) continue
    const rule = ruleFrom(file, from, { data: {}, body: text.replace(AGENTS_MD_IMPORT, ''), lineOf: () => 1 }, undefined, read.notCarried, [])
    if (rule) read.definitions.push(rule)
  }
  return read
}

/**
 * A rule's text without the text of AGENTS.md where it holds it whole, on lines of its own (a CLAUDE.md
 * that copies AGENTS.md and adds to it): what is left, or undefined when nothing is (a copy).
 */
export function withoutAgentsMd(text: string, agentsMd: string): string | undefined {
  const own = sameText(text)
  const copied = sameText(agentsMd)
  const at = `\n${own}\n`.indexOf(`\n${copied}\n`)
  if (at === -1) return own === copied ? undefined : text
  const rest = `${own.slice(0, at)}\n${own.slice(at + copied.length)}`.trim()
  return rest === '' ? undefined : rest
}

/** Every rule file of a folder: always on, or for the files its globs match. */
export async function readRuleFolder(root: string, folder: RuleFolder, from: Harness): Promise<HarnessRead> {
  const read: HarnessRead = { definitions: [], notCarried: [] }
  for (const entry of await listFolder(root, folder.folder)) {
    const file = `${folder.folder}/${entry.name}`
    if (entry.isFolder) {
      const other = folder.otherFolders?.[entry.name]
      read.notCarried.push({ at: { file, line: 1 }, what: `the files in ${file}/`, why: other ?? 'a rule definition is one file of the folder, not of a subfolder; move them up and import again' })
      continue
    }
    if (!entry.isFile || !entry.name.endsWith(folder.suffix)) continue
    const matter = frontmatterOf((await readProjectFile(root, file))!, file, read.notCarried, folder.repair)
    if (!matter) continue
    const globs = globsOf(matter.data[folder.key])
    const always = (folder.alwaysKey !== undefined && matter.data[folder.alwaysKey] === true) || globs === undefined || globs.every((glob) => EVERY_FILE.has(glob))
    const rule = ruleFrom(file, from, matter, always ? undefined : globs, read.notCarried, ['description', folder.key, ...(folder.alwaysKey ? [folder.alwaysKey] : [])], ruleName(baseName(entry.name, folder.suffix)))
    if (rule) read.definitions.push(rule)
  }
  return read
}

/**
 * The user's text in the project's root AGENTS.md. It stays where it is and is not made a rule: the
 * always-on rules are compiled into a block of ours at the end of this very file, so a rule holding its
 * text would put it there twice; every harness reads the file once compiled (Claude Code through
 * `.claude/CLAUDE.md`, Gemini CLI through `context.fileName`), the user's text with the rules.
 */
export async function rootAgentsMd(root: string): Promise<string | undefined> {
  const text = await readProjectFile(root, 'AGENTS.md')
  if (text === undefined) return undefined
  const own = userText(text).trim()
  return own === '' ? undefined : own
}
