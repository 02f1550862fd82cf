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
  type MergeContext,
  type MergeFormat,
  type MergeResult,
  mergeError,
  type PlainValue,
  type PreviousEntry,
  samePath,
  staleEntries,
  startsWithPath,
  toPlain,
  type UserOriginal,
  verifyMerge,
} from './merge-common.js'
import { scanTomlStatements, type TomlStatement } from './toml-statements.js'

interface Span {
  start: number
  end: number
  /** Starts with a table header (else it is a key/value line). */
  section: boolean
}

/** `mergeToml`'s text, for a merge with no record of what an earlier one wrote. */
export function mergeTomlText(text: string | undefined, file: MergeFile, previous: readonly PreviousEntry[]): string {
  return mergeToml(text, file, previous, { kept: [], forced: [] }).text
}

/**
 * Merges our entries into a TOML document (a Codex agent file) by splicing text: our top-level
 * keys are replaced in place or added after the user's, our tables (`[mcp_servers.<name>]` and
 * their sub-tables) are replaced where they are or appended. Entries of `previous` that `file` no
 * longer has are removed, or replaced by the user's original definition. Every other byte, comments
 * included, stays: our last tables go with the blank line `context` says we put above them.
 * smol-toml validates the text before and the result after (it never re-serialises the user's file:
 * it would drop comments). Throws OacError (file, line, fix) when the text does not parse or a parent
 * of our keys is not a table.
 */
export function mergeToml(text: string | undefined, file: MergeFile, previous: readonly PreviousEntry[], context: MergeContext): MergeResult {
  const source = text ?? ''
  const before = parseToml(file, source)
  const removed = staleEntries(file, previous)
  const statements = scanTomlStatements(source)
  for (const entry of [...file.entries, ...removed]) checkParents(source, before, statements, file, entry.keyPath)
  const eol = detectEol(source)
  const result = new MagicString(source)
  const claimed = new Set<TomlStatement>()
  const topLevelKeys: string[] = []
  // `usersPlace`: a table the user's definition comes back to (see ourSpans).
  const sections: { text: string; usersPlace: boolean }[] = []
  const removals: Span[] = []
  // Text of ours that stays where it is (written over, or already right).
  const staysOurs: Span[] = []

  /** Writes `rendered` over the span it replaces (the rest of the key's spans go), else adds it. */
  const place = (rendered: string, spans: Span[], usersPlace: boolean): void => {
    const section = rendered.trimStart().startsWith('[')
    const inPlace = inPlaceSpan(statements, spans, section)
    for (const span of spans) {
      if (span !== inPlace) removals.push(span)
      else {
        staysOurs.push(span)
        if (source.slice(span.start, span.end) !== rendered) result.overwrite(span.start, span.end, span.end < source.length ? withLineEnd(rendered, eol) : rendered)
      }
    }
    if (inPlace) return
    if (section) sections.push({ text: withLineEnd(rendered, eol), usersPlace })
    else topLevelKeys.push(withLineEnd(rendered, eol))
  }
  const ourSections: Span[] = []
  // Tables where the user's definition comes back (taken with force) were the user's, where the user put them (not appended by us).
  const ourSpans = (keyPath: readonly string[], usersPlace: boolean): Span[] => {
    const spans = definingSpans(source, statements, keyPath, claimed)
    if (!usersPlace) ourSections.push(...spans.filter((span) => span.section))
    return spans
  }
  const forced = (keyPath: readonly string[]): boolean => context.forced.some((path) => samePath(path, keyPath))
  for (const keyPath of context.kept) staysOurs.push(...ourSpans(keyPath, forced(keyPath)))
  for (const entry of file.entries) place(renderEntry(entry, eol), ourSpans(entry.keyPath, forced(entry.keyPath)), forced(entry.keyPath))
  for (const entry of removed) {
    const spans = ourSpans(entry.keyPath, entry.original !== undefined)
    if (entry.original) place(entry.original.text ?? renderEntry({ keyPath: entry.keyPath, value: entry.original.value }, eol), spans, true)
    else removals.push(...spans)
  }
  const tables = lastTablesRun(source, ourSections)
  const cut = joinAdjacent(source, removals).map((span) => removeSpan(source, result, span, tables, context.tablesSeparator))
  // Our last tables, when some stay, keep the blank line above them (none once key lines of ours at the start of the
  // file went with it); else those we append now count. Appended below text of the user's, they are our last tables now.
  const stayingTables = tables ? ourSections.filter((span) => span.start >= tables.start && !removals.includes(span)).sort((a, b) => a.start - b.start) : []
  const tablesStay = tables !== undefined && stayingTables.length > 0
  let tablesSeparator = !tablesStay ? undefined : cut.some((span) => span.start === 0 && span.end === tables.start) ? '' : context.tablesSeparator

  // What is added is placed by the text that stays (a key or header removed now is no anchor).
  let merged = result.toString()
  // The line break an earlier merge put after the user's last line, which had none (the manifest records it), goes
  // once the text of ours it ended up above is taken away; what is added below puts one back where it needs one.
  let lineEnd = context.scaffold?.lineEnd
  if (lineEnd && endsWithUsersLine(source, cut, staysOurs) && merged.endsWith(lineEnd) && !merged.slice(0, -lineEnd.length).endsWith('\n')) {
    merged = merged.slice(0, -lineEnd.length)
    lineEnd = undefined
  }
  if (topLevelKeys.length > 0 || sections.length > 0) {
    const staying = merged
    const added = new MagicString(staying)
    if (topLevelKeys.length > 0) {
      const firstTable = statements.find((statement) => statement.start === stayingTables[0]?.start)
      const ourTables = firstTable && tablesSeparator ? { path: firstTable.path, separator: tablesSeparator } : undefined
      const inserted = insertTopLevelKeys(staying, scanTomlStatements(staying), added, topLevelKeys.join(''), eol, ourTables)
      if (inserted.lineEnd) lineEnd = inserted.lineEnd
      // Our keys went right above our last tables, with a blank line of ours between: the separator of those tables now.
      if (inserted.above && firstTable && samePath(inserted.above.path, firstTable.path)) tablesSeparator = eol
    }
    if (sections.length > 0) {
      const current = added.toString()
      // One blank line before our tables, also after a blank line of the user's: removing them takes exactly that one
      // (the manifest records it). The user's last line, where it has no line break, gets one of ours.
      const ending = current === '' || current.endsWith('\n') ? '' : eol
      if (ending) lineEnd = ending
      const separator = current === '' ? '' : eol
      added.append(ending + separator + sections.map((section) => section.text).join(eol))
      // Our tables appended now start with the first that is not the user's: after the separator, or after the blank line that joins it.
      const first = sections.findIndex((section) => !section.usersPlace)
      if ((!tablesStay || !tables.atEnd) && first !== -1) tablesSeparator = first === 0 ? separator : eol
    }
    merged = added.toString()
  }
  // With no text of ours left, a line break of ours still there has text the user typed below it since: theirs now.
  if (file.entries.length === 0 && context.kept.length === 0) lineEnd = undefined
  const withRecords = (text: string): MergeResult => ({
    text,
    ...(tablesSeparator === undefined ? {} : { tablesSeparator }),
    ...(lineEnd === undefined ? {} : { scaffold: { lineEnd } }),
  })
  if (merged === source) return withRecords(source)
  const after = parseToml(file, merged)
  verifyMerge(file, before, after, removed, tomlReadBack)
  return withRecords(merged)
}

/** True when what `cut` took away ran to the end of the text, and what is left ends with text not of ours (`staysOurs`). */
function endsWithUsersLine(source: string, cut: readonly { start: number; end: number }[], staysOurs: readonly Span[]): boolean {
  let end = source.length
  for (let span = cut.find((s) => s.end === end); span; span = cut.find((s) => s.end === end)) end = span.start
  return end < source.length && !staysOurs.some((span) => span.end === end)
}

function tomlReadBack(value: JsonValue): PlainValue {
  return getAtPath(toPlain(parse(tomlDocument({ value }))), ['value']) ?? null
}

function withLineEnd(text: string, eol: string): string {
  return text.endsWith('\n') ? text : text + eol
}

/** The span a definition is written over: the first section for a table, the top-level key line for a value. */
function inPlaceSpan(statements: TomlStatement[], spans: Span[], section: boolean): Span | undefined {
  return section
    ? spans.find((span) => span.section)
    : spans.find((span) => statements.some((s) => s.start === span.start && s.kind === 'key' && s.table.length === 0))
}

/**
 * The user's definition of our key path: where it starts, and how to put it back once our entry
 * has replaced it. Its bytes go back verbatim when it is the one span ours is written over (a
 * `key = value` line, or one table with its sub-tables); else its value is written out afresh,
 * which a value below the top level that is not a table cannot be.
 */
function tomlDefinition(text: string, entry: MergeEntry): { offset: number; original?: UserOriginal } | undefined {
  const value = readTomlPath(text, entry.keyPath)
  if (value === undefined) return undefined
  const statements = scanTomlStatements(text)
  const spans = definingSpans(text, statements, entry.keyPath, new Set())
  const first = spans[0]
  if (!first) return undefined
  const section = renderEntry(entry, '\n').startsWith('[')
  if (spans.length === 1 && inPlaceSpan(statements, spans, section) === first) {
    return { offset: first.start, original: { value, text: text.slice(first.start, first.end) } }
  }
  return { offset: first.start, original: entry.keyPath.length === 1 || isTableLike(value) ? { value } : undefined }
}

export const tomlFormat: MergeFormat = { merge: mergeToml, read: readTomlPath, readBack: tomlReadBack, definition: tomlDefinition }

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
  if (entry.keyPath.length > 1 && !isTableLike(entry.value)) {
    throw new Error(`unplugin-oac: a TOML merge entry below the top level must be a table (${formatPath(entry.keyPath)})`)
  }
  const nested = entry.keyPath.reduceRight<{ [key: string]: JsonValue }>((inner, key, i) => {
    const wrapper: { [key: string]: JsonValue } = {}
    Object.defineProperty(wrapper, key, { value: i === entry.keyPath.length - 1 ? entry.value : inner, enumerable: true })
    return wrapper
  }, {})
  return tomlDocument(nested, { multiLineStrings: eol === '\n' }).replace(/\n/g, eol)
}

function isTableLike(value: PlainValue): boolean {
  return isPlainObject(value) || (Array.isArray(value) && value.length > 0 && value.every(isPlainObject))
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

/** Our last tables: the last one and those above it with only blank lines between; `atEnd` when only blank lines follow. */
interface TablesRun {
  start: number
  end: number
  atEnd: boolean
}

function lastTablesRun(text: string, sections: Span[]): TablesRun | undefined {
  const [last, ...above] = [...sections].sort((a, b) => b.start - a.start)
  if (!last) return undefined
  let start = last.start
  for (const span of above) {
    if (span.end > start || text.slice(span.end, start).trim() !== '') break
    start = span.start
  }
  return { start, end: last.end, atEnd: text.slice(last.end).trim() === '' }
}

/**
 * Removes a span with the blank lines that joined it to our next table, or, for the last of our tables,
 * the blank line we put above it: `separator` above all of them, one between two (not knowing the
 * separator, the blank lines below them when they do not end the file, as earlier builds did). Key lines
 * right below other lines take no blank lines with them, nor those above our last tables: those are the
 * tables' (not knowing their separator, only when they end the file). Returns what it removed.
 */
function removeSpan(text: string, result: MagicString, span: Span, tables: TablesRun | undefined, separator: string | undefined): { start: number; end: number } {
  let { start, end } = span
  const following = /^(?:[ \t]*\r?\n)*/.exec(text.slice(end))?.[0] ?? ''
  const belowBlank = start === 0 || /(?:^|\n)[ \t]*\r?\n$/.test(text.slice(0, start))
  if (span.section) {
    // Blank lines below our last table are the user's (we end what we write with its last line); the others below ours join two.
    const endsTables = span.end === tables?.end
    const all = endsTables && start === tables.start
    if (!endsTables || (all && separator === undefined && !tables.atEnd)) end += following.length
    else start -= all && separator !== undefined ? separatorLength(text, start, separator) : blankLineAbove(text, start)
  } else if (belowBlank && !(start > 0 && tables && end + following.length === tables.start && (separator !== undefined || tables.atEnd))) {
    end += following.length
  }
  result.remove(start, end)
  return { start, end }
}

/** The length of the blank line right above `start`, or 0. */
function blankLineAbove(text: string, start: number): number {
  return /(?:^|\n)([ \t]*\r?\n)$/.exec(text.slice(0, start))?.[1]?.length ?? 0
}

/**
 * The length of the blank line we put above our tables (`separator`, '' when we put none), when it is
 * still there. A blank line the user typed there instead (above the tables of a file we created, say) stays.
 */
function separatorLength(text: string, start: number, separator: string): number {
  const userEnd = start - separator.length
  return separator !== '' && text.slice(userEnd, start) === separator && (userEnd === 0 || text[userEnd - 1] === '\n') ? separator.length : 0
}

/**
 * Adds top-level keys after the user's last top-level key; with none, right above the blank line of
 * ours above our tables when they come first (`ourTables`), else before the first table (and the comment
 * lines and blank lines directly above it), else at the end. Returns the table header the keys went
 * right above, with a blank line of ours between, and the line break put after the user's last line,
 * which had none.
 */
function insertTopLevelKeys(
  text: string,
  statements: TomlStatement[],
  result: MagicString,
  keys: string,
  eol: string,
  ourTables: { path: readonly string[]; separator: string } | undefined,
): { above?: TomlStatement; lineEnd?: string } {
  const firstHeader = statements.find((s) => s.kind !== 'key')
  const lastTopLevel = statements.filter((s) => s.kind === 'key' && s.table.length === 0 && (!firstHeader || s.start < firstHeader.start)).pop()
  if (lastTopLevel) {
    const lineEnd = text[lastTopLevel.end - 1] === '\n' ? '' : eol
    result.appendLeft(lastTopLevel.end, lineEnd + keys)
    return lineEnd ? { lineEnd } : {}
  }
  // Between the user's text and that blank line, which stays the separator of our tables: the blank lines above
  // it are the user's, and taking our keys or tables away again leaves them as they were.
  const separatorStart = firstHeader && ourTables && samePath(firstHeader.path, ourTables.path) ? firstHeader.start - ourTables.separator.length : -1
  if (firstHeader && separatorStart >= 0 && text.slice(separatorStart, firstHeader.start) === ourTables?.separator && (separatorStart === 0 || text[separatorStart - 1] === '\n')) {
    result.appendLeft(separatorStart, keys)
    return {}
  }
  if (firstHeader) {
    const above = attachedCommentsStart(text, firstHeader.start)
    // After the user's text above a blank line there (it stays between our keys and the header, and
    // removing our keys again takes no blank line of the user's); else with a blank line of our own.
    const blankStart = above - (/(?:^|\n)((?:[ \t]*\r?\n)+)$/.exec(text.slice(0, above))?.[1]?.length ?? 0)
    if (blankStart > 0 && blankStart < above) {
      result.appendLeft(blankStart, keys)
      return {}
    }
    result.appendLeft(above, keys + eol)
    return above === firstHeader.start ? { above: firstHeader } : {}
  }
  const lineEnd = text === '' || text.endsWith('\n') ? '' : eol
  result.append(lineEnd + keys)
  return lineEnd ? { lineEnd } : {}
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

