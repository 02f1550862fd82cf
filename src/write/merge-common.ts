import { isDeepStrictEqual } from 'node:util'
import type { JsonValue } from '../define/types.js'
import type { DiagnosticCode } from '../diagnostic-codes.js'
import { type Diagnostic, OacError } from '../diagnostics.js'
import { ARRAY_ITEM, ARRAY_VALUE, type MergeEntry, type MergeFile } from '../emit/types.js'

/** A parsed document as plain data: objects, arrays and scalars (TOML dates as ISO strings). */
export type PlainValue = string | number | boolean | null | PlainValue[] | { [key: string]: PlainValue }
export type PlainObject = { [key: string]: PlainValue }

export function isPlainObject(value: unknown): value is PlainObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && !(value instanceof Date)
}

/** The list and the item of a key path that names an element of a list (see ARRAY_ITEM, ARRAY_VALUE), or undefined. */
export function arrayItem(path: readonly string[]): { list: string[]; item: PlainValue } | undefined {
  if (path.length < 2) return undefined
  const step = path[path.length - 2]
  const last = path[path.length - 1] as string
  if (step === ARRAY_ITEM) return { list: path.slice(0, -2), item: last }
  if (step === ARRAY_VALUE) return { list: path.slice(0, -2), item: JSON.parse(last) as PlainValue }
  return undefined
}

/** How a value reads in a message: JSON, cut short when long. */
export function shortValue(value: PlainValue): string {
  const json = JSON.stringify(value)
  return json.length > 80 ? `${json.slice(0, 77)}...` : json
}

/** True when two items of a list are one value (key order aside). */
export function sameItem(a: PlainValue, b: PlainValue): boolean {
  return isDeepStrictEqual(toPlain(a), toPlain(b))
}

export function samePath(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((key, i) => key === b[i])
}

/** True when `path` starts with every key of `prefix`. */
export function startsWithPath(path: readonly string[], prefix: readonly string[]): boolean {
  return prefix.length <= path.length && prefix.every((key, i) => key === path[i])
}

export function formatPath(path: readonly string[]): string {
  return path.map((key) => (/^[A-Za-z0-9_-]+$/.test(key) ? key : JSON.stringify(key))).join('.')
}

/** 1-based line and column of an offset. */
export function lineColumn(text: string, offset: number): { line: number; column: number } {
  let line = 1
  let lineStart = 0
  for (let i = text.indexOf('\n'); i !== -1 && i < offset; i = text.indexOf('\n', i + 1)) {
    line++
    lineStart = i + 1
  }
  return { line, column: offset - lineStart + 1 }
}

/** The line break the file already uses (CRLF when its first line break is one), else LF. */
export function detectEol(text: string): '\n' | '\r\n' {
  const first = text.indexOf('\n')
  return first > 0 && text[first - 1] === '\r' ? '\r\n' : '\n'
}

/** The user's own definition of a key that `force` replaced with ours: put back when our entry goes. */
export interface UserOriginal {
  value: PlainValue
  /** Its bytes, when they can go back verbatim where ours is (else the value is written out afresh). */
  text?: string
}

/** An entry we wrote before. Once no longer emitted it is removed, or, with `original`, the user's definition comes back. */
export interface PreviousEntry {
  keyPath: string[]
  original?: UserOriginal
}

/**
 * What merges made around our entries that was not the user's: taken away again with the last entry
 * of ours it holds, so that a file our entries leave is byte for byte what the user had.
 */
export interface Scaffold {
  /** JSON: the objects and lists made to hold our entries, by key path. */
  containers?: string[][]
  /** JSON: the document itself, made in a file that held none: the line breaks put before and after it. */
  document?: { lead: string; end: string }
  /** The line break put after the user's last line, which had none, so our text could follow it. */
  lineEnd?: string
  /**
   * JSON: the user's empty objects and lists (the document itself: no key path) our first member went into, by key path, with the white
   * space they held (`[\n  ]`), which the member's lines took the place of: given back once they are empty again.
   */
  insides?: Array<{ path: string[]; text: string }>
}

/** What a merge needs to know of the text we wrote besides the entries it writes and removes. */
export interface MergeContext {
  /** Key paths of our entries that already hold our value: left as they are, they are still our text (tables at the end, say). */
  kept: readonly (readonly string[])[]
  /** Key paths of our entries (written now or kept) that replaced the user's definition with force: it comes back where it was. */
  forced: readonly (readonly string[])[]
  /** TOML: the blank line we put between the user's text and our last tables ('' for none), as the manifest
   * records it (undefined: not recorded, as by earlier builds). */
  tablesSeparator?: string
  /** What earlier merges made around our entries, as the manifest records it. */
  scaffold?: Scaffold
}

export interface MergeResult {
  text: string
  /** TOML: the blank line we put between the user's text and our last tables in the result, when known; for the manifest. */
  tablesSeparator?: string
  /** What the result holds that merges made around our entries (absent: nothing); for the manifest. */
  scaffold?: Scaffold
}

/** What a merge format offers the write: the merge itself, and reading the user's definitions. */
export interface MergeFormat {
  /** Sets `file`'s entries and removes (or restores) those of `previous` it no longer has; every other byte stays. */
  merge(text: string | undefined, file: MergeFile, previous: readonly PreviousEntry[], context: MergeContext): MergeResult
  /** The value at a key path, or undefined (also when the text does not parse). */
  read(text: string, keyPath: readonly string[]): PlainValue | undefined
  /** Our value as `read` gives it back once merged (TOML, say, has no null). */
  readBack(value: JsonValue): PlainValue
  /**
   * Where the definition of `entry`'s key path starts in a text that parses, and what it takes to
   * put the definition back after `merge` has replaced it with `entry` (undefined when it cannot be).
   */
  definition(text: string, entry: MergeEntry): { offset: number; original?: UserOriginal } | undefined
}

/** Previous entries that the current file no longer emits: their keys are removed (or restored). */
export function staleEntries(file: MergeFile, previous: readonly PreviousEntry[]): PreviousEntry[] {
  return previous.filter((old) => !file.entries.some((entry) => samePath(entry.keyPath, old.keyPath)))
}

export function getAtPath(root: PlainValue | undefined, path: readonly string[]): PlainValue | undefined {
  let node = root
  for (const key of path) {
    if (!isPlainObject(node) || !Object.hasOwn(node, key)) return undefined
    node = node[key]
  }
  return node
}

function setAtPath(root: PlainObject, path: readonly string[], value: PlainValue): void {
  const member = arrayItem(path)
  if (member) {
    const list = getAtPath(root, member.list)
    if (Array.isArray(list)) {
      if (!list.some((element) => sameItem(element, member.item))) list.push(member.item)
    } else setAtPath(root, member.list, [member.item])
    return
  }
  let node = root
  for (const key of path.slice(0, -1)) {
    const next = node[key]
    if (isPlainObject(next)) node = next
    else {
      const created: PlainObject = {}
      defineKey(node, key, created)
      node = created
    }
  }
  defineKey(node, path[path.length - 1] as string, value)
}

/** Assignment that also works for the key `__proto__`. */
export function defineKey(node: PlainObject, key: string, value: PlainValue): void {
  Object.defineProperty(node, key, { value, enumerable: true, writable: true, configurable: true })
}

function deleteAtPath(root: PlainObject, path: readonly string[]): void {
  const member = arrayItem(path)
  if (member) {
    // Ours is the last one (we add at the end), should the user have written the item again.
    const list = getAtPath(root, member.list)
    const at = Array.isArray(list) ? list.findLastIndex((element) => sameItem(element, member.item)) : -1
    if (Array.isArray(list) && at >= 0) list.splice(at, 1)
    return
  }
  const parent = getAtPath(root, path.slice(0, -1))
  if (isPlainObject(parent)) delete parent[path[path.length - 1] as string]
}

/** Drops the objects along `path` (deepest first) that are empty, so "removed the last server"
 * compares equal whether or not the format keeps an empty parent behind. */
function pruneEmptyParents(root: PlainObject, path: readonly string[]): void {
  for (let depth = path.length - 1; depth >= 1; depth--) {
    const parentPath = path.slice(0, depth)
    const node = getAtPath(root, parentPath)
    if (isPlainObject(node) && Object.keys(node).length === 0) deleteAtPath(root, parentPath)
  }
}

/** A deep copy as plain data: null-prototype objects become ordinary ones, dates ISO strings. */
export function toPlain(value: unknown): PlainValue {
  if (value instanceof Date) return value.toISOString()
  if (Array.isArray(value)) return value.map(toPlain)
  if (typeof value === 'object' && value !== null) {
    const out: PlainObject = {}
    for (const [key, child] of Object.entries(value)) defineKey(out, key, toPlain(child))
    return out
  }
  if (typeof value === 'bigint') return Number(value)
  // JSON writes -0 as 0 (and reads it back so): the two are one value in a document.
  if (Object.is(value, -0)) return 0
  return value as PlainValue
}

/**
 * Checks a merge result against what it must mean: the user's document with our stale keys
 * removed (or the user's original values back), the empty containers of ours in `pruned` gone, and
 * our entries set, nothing else changed. A mismatch is our bug, and the file is not written.
 */
export function verifyMerge(
  file: MergeFile,
  before: PlainValue | undefined,
  after: PlainValue,
  removed: readonly PreviousEntry[],
  normalise: (value: JsonValue) => PlainValue,
  pruned: readonly (readonly string[])[] = [],
): void {
  const expected = isPlainObject(before) ? (toPlain(before) as PlainObject) : {}
  const actual = toPlain(after)
  if (!isPlainObject(actual)) throw mergeBug(file, 'the merged document is not an object')
  for (const entry of removed) {
    if (entry.original) setAtPath(expected, entry.keyPath, toPlain(entry.original.value))
    else deleteAtPath(expected, entry.keyPath)
  }
  // Deepest first: a container emptied by taking out one made inside it goes too.
  for (const path of [...pruned].sort((a, b) => b.length - a.length)) {
    const container = getAtPath(expected, path)
    if ((Array.isArray(container) && container.length === 0) || (isPlainObject(container) && Object.keys(container).length === 0)) deleteAtPath(expected, path)
  }
  for (const entry of file.entries) setAtPath(expected, entry.keyPath, normalise(entry.value))
  for (const entry of [...removed, ...file.entries]) {
    pruneEmptyParents(expected, entry.keyPath)
    pruneEmptyParents(actual, entry.keyPath)
  }
  if (!isDeepStrictEqual(expected, actual)) {
    throw mergeBug(file, 'the merged document does not read back as the user document plus our entries')
  }
}

function mergeBug(file: MergeFile, detail: string): OacError {
  return new OacError([
    {
      severity: 'error',
      code: 'merge-failed',
      file: file.path,
      message: `unplugin-oac could not merge its entries into ${file.path} safely (${detail}); the file was left unchanged.`,
      fix: 'This is a bug in unplugin-oac: please report it with a copy of the file.',
    },
  ])
}

export function mergeError(file: MergeFile, text: string, offset: number, code: DiagnosticCode, message: string, fix: string): OacError {
  const { line, column } = lineColumn(text, offset)
  const diagnostic: Diagnostic = { severity: 'error', code, file: file.path, line, column, message, fix }
  return new OacError([diagnostic])
}

/** How a JSON value kind reads in messages. */
export function describeKind(value: PlainValue | undefined): string {
  if (Array.isArray(value)) return 'an array'
  if (value === null) return 'null'
  if (isPlainObject(value)) return 'an object'
  return `a ${typeof value}`
}
