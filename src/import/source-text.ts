import { readdir, readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { findNodeAtLocation, type Node, parseTree, type ParseError, printParseErrorCode } from 'jsonc-parser'
import { isMap, isScalar, LineCounter, parseDocument } from 'yaml'
import type { JsonValue } from '../define/types.js'
import type { ReadLocation } from './types.js'

/** A harness file the import cannot read: named with its file and line, and what to do. */
export class ImportReadError extends Error {
  constructor(
    readonly at: ReadLocation,
    reason: string,
  ) {
    super(`${at.file}:${at.line}: ${reason}; fix the file (the harness would not read it either), or leave its harness out with --from.`)
  }
}

/** A project file's text, or undefined when there is none. `path` is relative to the project, with `/`. */
export async function readProjectFile(root: string, path: string): Promise<string | undefined> {
  try {
    return await readFile(join(root, ...path.split('/')), 'utf8')
  } catch (error) {
    // A folder where a file could be (`.clinerules` is either) is no file either.
    if (['ENOENT', 'ENOTDIR', 'EISDIR'].includes((error as NodeJS.ErrnoException).code ?? '')) return undefined
    throw error
  }
}

/** The entries of a project folder, sorted by name (the import is deterministic); none when it does not exist. */
export async function listFolder(root: string, folder: string): Promise<Array<{ name: string; isFile: boolean; isFolder: boolean }>> {
  try {
    const entries = await readdir(join(root, ...folder.split('/')), { withFileTypes: true })
    return entries.map((entry) => ({ name: entry.name, isFile: entry.isFile(), isFolder: entry.isDirectory() })).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT' || (error as NodeJS.ErrnoException).code === 'ENOTDIR') return []
    throw error
  }
}

/** Every file under a project folder, as paths relative to it, sorted. */
export async function filesUnder(root: string, folder: string): Promise<string[]> {
  const found: string[] = []
  for (const entry of await listFolder(root, folder)) {
    if (entry.isFile) found.push(entry.name)
    else if (entry.isFolder) for (const inner of await filesUnder(root, `${folder}/${entry.name}`)) found.push(`${entry.name}/${inner}`)
  }
  return found
}

/** The 1-based line of a character offset. */
export function lineAt(text: string, offset: number): number {
  let line = 1
  for (let i = 0; i < offset && i < text.length; i++) if (text.charCodeAt(i) === 10) line++
  return line
}

/** A Markdown file's YAML frontmatter (its values as JSON, each key's line) and its body. */
export interface Frontmatter {
  data: { [key: string]: JsonValue }
  body: string
  /** The line of a top-level key (the file's first line when it has none). */
  lineOf(key: string): number
}

const FRONTMATTER = /^---\r?\n([\s\S]*?)\r?\n?---(?:\r?\n|$)/

/**
 * What a harness does with frontmatter that is not YAML before it gives up: a text to parse in its place.
 * The line numbers stay (a repair changes lines, never adds or removes one).
 */
export type FrontmatterRepair = (yaml: string) => string

/** Characters that make Claude Code quote a plain value when its frontmatter is not YAML. */
const CLAUDE_QUOTED = /[{}[\]*&#!|>%@`]|: /

/**
 * Claude Code 2.1.332's second try at frontmatter that is not YAML (its binary's frontmatter parser):
 * each `key: value` line whose value is not quoted nor a YAML list, and holds `: ` or one of
 * ``{}[]*&#!|>%@` ``, gets its value in double quotes; tabs that indent a line become two spaces each.
 * Agents copied from public collections (`description: Use this agent when ... Examples: <example>`)
 * load in Claude Code this way.
 */
export const claudeFrontmatterRepair: FrontmatterRepair = (yaml) =>
  yaml
    .split('\n')
    .map((line) => {
      const match = /^([a-zA-Z_-]+):\s+(\S.*)$/.exec(line)
      if (!match) return line
      const [, key, value] = match as unknown as [string, string, string]
      if ((value.startsWith('"') && value.endsWith('"')) || (value.startsWith("'") && value.endsWith("'"))) return line
      if (value.startsWith('[') && value.endsWith(']') && Array.isArray(parseDocument(value).toJS())) return line
      if (!CLAUDE_QUOTED.test(value)) return line
      return `${key}: "${value.replaceAll('\\', '\\\\').replaceAll('"', '\\"')}"`
    })
    .join('\n')
    .replace(/^\t+/gm, (tabs) => '  '.repeat(tabs.length))

function parseYamlDocument(yaml: string, counter: LineCounter) {
  return parseDocument(yaml, { lineCounter: counter, prettyErrors: false })
}

/**
 * Splits a Markdown file into frontmatter and body, as the harnesses do (a file without `---` is all
 * body); where the harness repairs frontmatter that is not YAML, `repair` does the same.
 */
export function readFrontmatter(text: string, file: string, repair?: FrontmatterRepair): Frontmatter {
  const match = FRONTMATTER.exec(text)
  if (!match) return { data: {}, body: text, lineOf: () => 1 }
  let counter = new LineCounter()
  let doc = parseYamlDocument(match[1]!, counter)
  if (doc.errors.length > 0 && repair) {
    const repairedCounter = new LineCounter()
    const repaired = parseYamlDocument(repair(match[1]!), repairedCounter)
    if (repaired.errors.length === 0) {
      doc = repaired
      counter = repairedCounter
    }
  }
  const error = doc.errors[0]
  if (error) throw new ImportReadError({ file, line: 1 + counter.linePos(error.pos[0]).line }, `the frontmatter is not YAML (${error.message.split('\n')[0]})`)
  const value: unknown = doc.toJS() ?? {}
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new ImportReadError({ file, line: 2 }, 'the frontmatter is not a map of keys')
  const lines = new Map<string, number>()
  if (isMap(doc.contents)) {
    for (const pair of doc.contents.items) {
      if (isScalar(pair.key) && pair.key.range) lines.set(String(pair.key.value), 1 + counter.linePos(pair.key.range[0]).line)
    }
  }
  return { data: value as { [key: string]: JsonValue }, body: text.slice(match[0].length).replace(/^(?:\r?\n)+/, ''), lineOf: (key) => lines.get(key) ?? 1 }
}

/** A JSON (or JSONC) file parsed, with the line of any value by its path. */
export interface JsonFile {
  value: JsonValue
  lineOf(path: Array<string | number>): number
}

export function readJson(text: string, file: string): JsonFile {
  const errors: ParseError[] = []
  const tree: Node | undefined = parseTree(text, errors, { allowTrailingComma: true })
  const first = errors[0]
  if (first) throw new ImportReadError({ file, line: lineAt(text, first.offset) }, `this is not JSON (${printParseErrorCode(first.error)})`)
  return {
    value: JSON.parse(JSON.stringify(nodeValue(tree))) as JsonValue,
    lineOf: (path) => {
      const node = tree && findNodeAtLocation(tree, path)
      const at = node?.parent?.type === 'property' ? node.parent.offset : node?.offset
      return at === undefined ? 1 : lineAt(text, at)
    },
  }
}

function nodeValue(node: Node | undefined): JsonValue {
  if (node === undefined) return null
  if (node.type === 'object') return Object.fromEntries((node.children ?? []).map((property) => [String(property.children![0]!.value), nodeValue(property.children![1])]))
  if (node.type === 'array') return (node.children ?? []).map(nodeValue)
  return node.value as JsonValue
}

/** The line of a TOML key `key = ...` at the top of a table, or of a `[table]` header (the file's first line when not found). */
export function tomlLine(text: string, key: string): number {
  const escaped = key.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
  const match = new RegExp(`^[ \\t]*(?:${escaped}[ \\t]*=|\\[\\[?[ \\t]*${escaped}[ \\t.\\]])`, 'm').exec(text)
  return match ? lineAt(text, match.index) : 1
}

export function isRecord(value: JsonValue | undefined): value is { [key: string]: JsonValue } {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

/** A file name without its extension (`reviewer.md` -> `reviewer`). */
export function baseName(file: string, extension: string): string {
  return file.endsWith(extension) ? file.slice(0, -extension.length) : file
}
