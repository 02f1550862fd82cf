import MagicString from 'magic-string'
import { parse, TomlError } from 'smol-toml'
import type { JsonValue } from '../define/types.js'
import { tomlDocument } from '../emit/codegen/escape.js'
import type { MergeEntry, MergeFile } from '../emit/types.js'
import {
  describeKind,
  detectEol,
  formatPath,
  getAtPath,
  isPlainObject,
  mergeError,
  type PlainValue,
  staleEntries,
  startsWithPath,
  toPlain,
  verifyMerge,
} from './merge-common.js'
import { scanTomlStatements, type TomlStatement } from './toml-statements.js'

interface Span {
  start: number
  end: number
  /** Starts with a table header (else it is a key/value line). */
  section: boolean
}

/**
 * Merges our entries into a TOML document (a Codex agent file) by splicing text: our top-level
 * keys are replaced in place or added after the user's, our tables (`[mcp_servers.<name>]` and
 * their sub-tables) are replaced where they are or appended. Every other byte, comments included,
 * stays. smol-toml validates the text before and the result after (it never re-serialises the
 * user's file: it would drop comments). Throws OacError (file, line, fix) when the text does not
 * parse or a parent of our keys is not a table.
 */
export function mergeTomlText(text: string | undefined, file: MergeFile, previous: MergeEntry[]): string {
  const source = text ?? ''
  const before = parseToml(file, source)
  const removed = staleEntries(file, previous)
  const statements = scanTomlStatements(source)
  for (const entry of [...file.entries, ...removed]) checkParents(source, before, statements, file, entry.keyPath)
  const eol = detectEol(source)
  const result = new MagicString(source)
  const claimed = new Set<TomlStatement>()
  const topLevelKeys: string[] = []
  const sections: string[] = []
  const removals: Span[] = []

  for (const entry of file.entries) {
    const rendered = renderEntry(entry, eol)
    const spans = definingSpans(source, statements, entry.keyPath, claimed)
    const inPlace = rendered.startsWith('[')
      ? spans.find((span) => span.section)
      : spans.find((span) => statements.some((s) => s.start === span.start && s.kind === 'key' && s.table.length === 0))
    for (const span of spans) {
      if (span !== inPlace) removals.push(span)
      else if (source.slice(span.start, span.end) !== rendered) result.overwrite(span.start, span.end, rendered)
    }
    if (!inPlace) (rendered.startsWith('[') ? sections : topLevelKeys).push(rendered)
  }
  for (const entry of removed) removals.push(...definingSpans(source, statements, entry.keyPath, claimed))
  for (const span of joinAdjacent(source, removals)) removeSpan(source, result, span)

  if (topLevelKeys.length > 0) insertTopLevelKeys(source, statements, result, topLevelKeys.join(''), eol)
  if (sections.length > 0) {
    const current = result.toString()
    const separator = current.trim() === '' || /\n[ \t]*\r?\n$/.test(current) ? '' : current.endsWith('\n') ? eol : eol + eol
    result.append(separator + sections.join(eol))
  }

  const merged = result.toString()
  if (merged === source) return source
  const after = parseToml(file, merged)
  verifyMerge(file, before, after, removed, (value) => getAtPath(toPlain(parse(tomlDocument({ value }))), ['value']) ?? null)
  return merged
}

// A merge reads several key paths of one text in a row (each entry, before and after): parsed once for them.
let lastRead: { text: string; data: PlainValue | undefined } | undefined

/** The value at a key path of a TOML text, or undefined (also when it does not parse). */
export function readTomlPath(text: string, keyPath: readonly string[]): PlainValue | undefined {
  if (lastRead?.text !== text) {
    let data: PlainValue | undefined
    try {
      data = toPlain(parse(text))
    } catch {
      data = undefined
    }
    lastRead = { text, data }
  }
  return lastRead.data === undefined ? undefined : getAtPath(lastRead.data, keyPath)
}

function parseToml(file: MergeFile, text: string): PlainValue {
  try {
    return toPlain(parse(text))
  } catch (error) {
    if (!(error instanceof TomlError)) throw error
    const reason = error.message.split('\n')[0]?.replace(/^Invalid TOML document: /, '') ?? 'syntax error'
    const lines = text.split('\n')
    const offset = lines.slice(0, error.line - 1).reduce((sum, line) => sum + line.length + 1, 0) + error.column - 1
    throw mergeError(
      file,
      text,
      offset,
      'merge-parse-error',
      `${file.path} is not valid TOML (${reason}); unplugin-oac left it unchanged.`,
      `Fix the TOML at this position (or delete the file to have it recreated), then build again.`,
    )
  }
}

/** Our entry as TOML text: a `key = value` line for a top-level scalar, else table sections. */
function renderEntry(entry: MergeEntry, eol: string): string {
  const tableLike = isPlainObject(entry.value) || (Array.isArray(entry.value) && entry.value.length > 0 && entry.value.every(isPlainObject))
  if (entry.keyPath.length > 1 && !tableLike) {
    throw new Error(`unplugin-oac: a TOML merge entry below the top level must be a table (${formatPath(entry.keyPath)})`)
  }
  const nested = entry.keyPath.reduceRight<{ [key: string]: JsonValue }>((inner, key, i) => {
    const wrapper: { [key: string]: JsonValue } = {}
    Object.defineProperty(wrapper, key, { value: i === entry.keyPath.length - 1 ? entry.value : inner, enumerable: true })
    return wrapper
  }, {})
  return tomlDocument(nested, { multiLineStrings: eol === '\n' }).replace(/\n/g, eol)
}

/** A parent of our key that is not a table (an array of tables, a value, an inline table) cannot take our entry. */
function checkParents(text: string, before: PlainValue, statements: TomlStatement[], file: MergeFile, path: readonly string[]): void {
  for (let depth = 1; depth < path.length; depth++) {
    const parent = path.slice(0, depth)
    const value = getAtPath(before, parent)
    if (value === undefined) return
    const definedBy = statements.find((s) => startsWithPath(s.path, parent)) ?? statements[0]
    const inline = statements.find((s) => s.kind === 'key' && s.path.length === depth && startsWithPath(path, s.path))
    if (!isPlainObject(value) || inline) {
      const where = inline ?? definedBy
      const shape = inline && isPlainObject(value) ? 'an inline table' : describeTomlKind(value)
      throw mergeError(
        file,
        text,
        where?.start ?? 0,
        'merge-unexpected-shape',
        `${formatPath(parent)} in ${file.path} is ${shape}, but unplugin-oac needs a table there to hold its entry [${formatPath(path)}]; it left the file unchanged.`,
        `Write ${formatPath(parent)} as [${formatPath(parent)}.<name>] table sections (or remove it), then build again.`,
      )
    }
  }
}

function describeTomlKind(value: PlainValue): string {
  return Array.isArray(value) && value.every(isPlainObject) ? 'an array of tables' : describeKind(value)
}

/**
 * Every piece of text that defines something at or below `path`: our table sections with their
 * keys, and dotted keys elsewhere. Pieces separated only by blank lines become one span.
 */
function definingSpans(text: string, statements: TomlStatement[], path: readonly string[], claimed: Set<TomlStatement>): Span[] {
  const spans: Span[] = []
  for (let i = 0; i < statements.length; i++) {
    const statement = statements[i] as TomlStatement
    if (claimed.has(statement) || !startsWithPath(statement.path, path)) continue
    claimed.add(statement)
    let end = statement.end
    if (statement.kind !== 'key') {
      // A section runs to its last key; comments after it belong to whatever follows.
      for (let j = i + 1; j < statements.length && statements[j]?.kind === 'key'; j++) {
        const key = statements[j] as TomlStatement
        claimed.add(key)
        end = key.end
      }
    }
    const last = spans[spans.length - 1]
    if (last && text.slice(last.end, statement.start).trim() === '') last.end = end
    else spans.push({ start: statement.start, end, section: statement.kind !== 'key' })
  }
  return spans
}

/** Spans of different entries added together are removed as one: key lines that touch, and
 * sections with only blank lines between them. */
function joinAdjacent(text: string, spans: Span[]): Span[] {
  const joined: Span[] = []
  for (const span of [...spans].sort((a, b) => a.start - b.start)) {
    const last = joined[joined.length - 1]
    const gap = last ? text.slice(last.end, span.start) : undefined
    if (last && last.section === span.section && (gap === '' || (span.section && gap?.trim() === ''))) last.end = span.end
    else joined.push({ ...span })
  }
  return joined
}

/** Removes a span with the blank lines that separated it from what follows (or, at the end of the
 * file, from what precedes it); key lines right below other lines take no blank lines with them. */
function removeSpan(text: string, result: MagicString, span: Span): void {
  let { start, end } = span
  if (!span.section && start > 0 && !/(?:^|\n)[ \t]*\r?\n$/.test(text.slice(0, start))) {
    result.remove(start, end)
    return
  }
  const following = /^(?:[ \t]*\r?\n)*/.exec(text.slice(end))?.[0] ?? ''
  end += following.length
  if (end === text.length) start -= /(?:\r?\n[ \t]*)*$/.exec(text.slice(0, start))?.[0].replace(/^\r?\n/, '').length ?? 0
  result.remove(start, end)
}

/**
 * Adds top-level keys after the user's last top-level key; with none, before the first table
 * (and the comment lines directly above it), else at the end.
 */
function insertTopLevelKeys(text: string, statements: TomlStatement[], result: MagicString, keys: string, eol: string): void {
  const firstHeader = statements.find((s) => s.kind !== 'key')
  const lastTopLevel = statements.filter((s) => s.kind === 'key' && s.table.length === 0 && (!firstHeader || s.start < firstHeader.start)).pop()
  if (lastTopLevel) {
    result.appendLeft(lastTopLevel.end, (text[lastTopLevel.end - 1] === '\n' ? '' : eol) + keys)
  } else if (firstHeader) {
    result.appendLeft(attachedCommentsStart(text, firstHeader.start), keys + eol)
  } else {
    result.append((text === '' || text.endsWith('\n') ? '' : eol) + keys)
  }
}

/** The start of the comment lines directly above `lineStart` (no blank line between). */
function attachedCommentsStart(text: string, lineStart: number): number {
  let start = lineStart
  while (start > 0) {
    const previousStart = text.lastIndexOf('\n', start - 2) + 1
    if (!/^[ \t]*#/.test(text.slice(previousStart, start))) break
    start = previousStart
  }
  return start
}

