import { applyEdits, createScanner, type Edit, modify, type Node, type ParseError, parseTree, printParseErrorCode } from 'jsonc-parser'
import type { JsonValue } from '../define/types.js'
import type { MergeEntry, MergeFile } from '../emit/types.js'
import {
  arrayItem,
  defineKey,
  describeKind,
  detectEol,
  formatPath,
  type MergeFormat,
  type MergeResult,
  mergeError,
  type PlainObject,
  type PlainValue,
  type PreviousEntry,
  type Scaffold,
  sameItem,
  shortValue,
  staleEntries,
  toPlain,
  verifyMerge,
} from './merge-common.js'

// `.mcp.json` may be JSONC: comments and trailing commas are the user's and stay.
const PARSE_OPTIONS = { allowTrailingComma: true, disallowComments: false, allowEmptyContent: true }

// jsonc-parser's SyntaxKind is a const enum, which isolated modules cannot read.
const COMMA = 5
const LINE_COMMENT = 12
const BLOCK_COMMENT = 13
const LINE_BREAK = 14
const TRIVIA = 15

interface JsonStyle {
  /** One level of indentation, as the file writes it. */
  unit: string
  eol: string
}

/** `mergeJson`'s text, for a merge with no record of what earlier ones made around our entries. */
export function mergeJsonText(text: string | undefined, file: MergeFile, previous: readonly PreviousEntry[]): string {
  return mergeJson(text, file, previous, undefined).text
}

/**
 * Merges our entries into a JSON or JSONC document. Only our key paths change: every other byte
 * (servers, unknown keys, comments, order, indentation, line breaks) stays as it was. Entries of
 * `previous` that `file` no longer has are removed, or given back the user's original value text;
 * then what merges made to hold our entries (`scaffold`: objects and lists, the document itself) and
 * now holds nothing goes too. Throws OacError (file, line, fix) when the text does not parse or a
 * parent of our keys is not an object.
 */
export function mergeJson(text: string | undefined, file: MergeFile, previous: readonly PreviousEntry[], scaffold: Scaffold | undefined, kept: readonly (readonly string[])[] = []): MergeResult {
  const source = text ?? ''
  const errors: ParseError[] = []
  const root = parseTree(source, errors, PARSE_OPTIONS)
  const firstError = errors[0]
  if (firstError) {
    throw mergeError(
      file,
      source,
      firstError.offset,
      'merge-parse-error',
      `${file.path} is not valid JSON (${printParseErrorCode(firstError.error)}); unplugin-oac left it unchanged.`,
      `Fix the JSON at this position (or delete the file to have it recreated), then build again.`,
    )
  }
  const removed = staleEntries(file, previous)
  if (root && root.type !== 'object') {
    throw mergeError(
      file,
      source,
      root.offset,
      'merge-unexpected-shape',
      `${file.path} holds ${describeKind(nodeValue(root))}, but unplugin-oac adds its entries to an object; it left the file unchanged.`,
      `Make the document an object (for example { "${file.entries[0]?.keyPath[0] ?? 'key'}": { ... } }), then build again.`,
    )
  }
  for (const entry of [...file.entries, ...removed]) checkParents(source, root, file, entry.keyPath)
  const style = detectStyle(source, root)
  let result = source
  let made: Scaffold = scaffold ?? {}
  if (!root) {
    if (file.entries.length === 0) return { text: source }
    const document: PlainObject = {}
    for (const entry of file.entries) setPlain(document, entry.keyPath, entry.value)
    const lead = source === '' || source.endsWith('\n') ? '' : style.eol
    result = `${source}${lead}${pretty(document, '', style)}${style.eol}`
    made = { document: { lead, end: style.eol }, containers: containersOf(file.entries) }
  } else {
    for (const entry of removed) {
      const member = arrayItem(entry.keyPath)
      if (member) result = removeItem(result, member.list, member.item)
      else result = entry.original ? restoreProperty(result, entry.keyPath, entry.original.value, entry.original.text, style) : removeProperty(result, entry.keyPath)
    }
    // The containers our entries need that are not there yet: made by the additions below, so ours.
    const present = parseTree(result, [], PARSE_OPTIONS) as Node
    const missing = containersOf(file.entries).filter((path) => !valueNode(present, path))
    if (missing.length > 0) made = { ...made, containers: [...(made.containers ?? []), ...missing] }
    const insides = userInsides(result, present, file.entries, made)
    if (insides.length > 0) made = { ...made, insides: [...(made.insides ?? []), ...insides] }
    for (const entry of file.entries) {
      const member = arrayItem(entry.keyPath)
      // An item is written as its entry gives it (the key path names it with its keys sorted).
      result = member ? addItem(result, member.list, entry.value, style) : setProperty(result, entry.keyPath, entry.value, style)
    }
  }
  // Our entries in the file now: those written, and those left as they are (which `file` does not list).
  const ours = [...file.entries, ...kept.map((keyPath) => ({ keyPath: [...keyPath], value: null }))]
  const pruned = pruneScaffold(result, made, ours)
  result = pruned.text
  const afterErrors: ParseError[] = []
  const after = parseTree(result, afterErrors, PARSE_OPTIONS)
  // A document we made and took away again leaves none: nothing of ours, and nothing of the user's.
  const afterValue = afterErrors.length > 0 ? null : after ? nodeValue(after) : {}
  verifyMerge(file, root ? nodeValue(root) : undefined, afterValue, removed, toPlain, made.containers)
  return { text: result, ...(pruned.scaffold ? { scaffold: pruned.scaffold } : {}) }
}

/** The objects and lists that hold our entries, by key path, outermost first, each once. */
function containersOf(entries: readonly MergeEntry[]): string[][] {
  const paths = new Map<string, string[]>()
  for (const entry of entries) {
    const member = arrayItem(entry.keyPath)
    const deepest = member ? member.list : entry.keyPath.slice(0, -1)
    for (let depth = 1; depth <= deepest.length; depth++) paths.set(JSON.stringify(deepest.slice(0, depth)), deepest.slice(0, depth))
  }
  return [...paths.values()]
}

/**
 * The user's empty objects and lists (not ours, not recorded yet) that our entries go into and whose
 * inside is white space other than none: the first member's lines take its place (see appendMember).
 */
function userInsides(text: string, root: Node, entries: readonly MergeEntry[], made: Scaffold): Array<{ path: string[]; text: string }> {
  const known = new Set([...(made.containers ?? []), ...(made.insides ?? []).map((inside) => inside.path)].map((path) => JSON.stringify(path)))
  return holders(entries).flatMap((path) => {
    const node = known.has(JSON.stringify(path)) ? undefined : valueNode(root, path)
    if (!node || !isBare(text, node)) return []
    const inside = text.slice(node.offset + 1, node.offset + node.length - 1)
    return inside === '' ? [] : [{ path, text: inside }]
  })
}

/** Everything that holds our entries: the document (no key path) where there are any, and their containers. */
function holders(entries: readonly MergeEntry[]): string[][] {
  return entries.length === 0 ? [] : [[], ...containersOf(entries)]
}

/** True for an object or list with nothing inside, not even a comment (a comment typed there is the user's). */
function isBare(text: string, node: Node): boolean {
  return (node.type === 'object' || node.type === 'array') && (node.children ?? []).length === 0 && text.slice(node.offset + 1, node.offset + node.length - 1).trim() === ''
}

/**
 * Takes away the containers of `scaffold` that hold nothing now (deepest first, so a parent emptied by
 * that goes too), gives the user's emptied ones back their white space, then takes away the document
 * it made, once bare. Returns the text and what scaffold is left.
 */
function pruneScaffold(text: string, scaffold: Scaffold, entries: readonly MergeEntry[]): { text: string; scaffold?: Scaffold } {
  let result = text
  const kept: string[][] = []
  for (const path of [...(scaffold.containers ?? [])].sort((a, b) => b.length - a.length)) {
    const node = valueNode(parseTree(result, [], PARSE_OPTIONS) as Node, path)
    if (!node) continue
    if (isBare(result, node)) result = removeProperty(result, path)
    else kept.unshift(path)
  }
  // The user's containers that hold none of our entries now: their white space back where they are
  // empty again (one that holds the user's members now is theirs alone).
  const ours = new Set(holders(entries).map((path) => JSON.stringify(path)))
  const insides = (scaffold.insides ?? []).filter((inside) => {
    if (ours.has(JSON.stringify(inside.path))) return true
    const node = valueNode(parseTree(result, [], PARSE_OPTIONS) as Node, inside.path)
    if (node && isBare(result, node)) result = applyEdits(result, [{ offset: node.offset + 1, length: node.length - 2, content: inside.text }])
    return false
  })
  let document = scaffold.document
  const root = parseTree(result, [], PARSE_OPTIONS)
  if (document && root && isBare(result, root)) {
    const leadStart = root.offset - document.lead.length
    const start = result.slice(leadStart, root.offset) === document.lead ? leadStart : root.offset
    const rootEnd = root.offset + root.length
    const end = result.startsWith(document.end, rootEnd) ? rootEnd + document.end.length : rootEnd
    result = result.slice(0, start) + result.slice(end)
    document = undefined
  }
  const left: Scaffold = { ...(kept.length > 0 ? { containers: kept } : {}), ...(document ? { document } : {}), ...(insides.length > 0 ? { insides } : {}) }
  return { text: result, ...(Object.keys(left).length > 0 ? { scaffold: left } : {}) }
}

/** The value at a key path of a JSON/JSONC text, or undefined (also when it does not parse). */
export function readJsonPath(text: string, keyPath: readonly string[]): PlainValue | undefined {
  const errors: ParseError[] = []
  const root = parseTree(text, errors, PARSE_OPTIONS)
  if (!root || errors.length > 0) return undefined
  const member = arrayItem(keyPath)
  if (member) {
    const list = valueNode(root, member.list)
    return list?.type === 'array' && itemNodes(list, member.item).length > 0 ? member.item : undefined
  }
  const node = findProperty(root, keyPath)
  return node?.children?.[1] ? nodeValue(node.children[1]) : undefined
}

/** The user's property at our key path: where its key starts, and its value with the value's exact bytes. */
function jsonDefinition(text: string, entry: MergeEntry): { offset: number; original: { value: PlainValue; text: string } } | undefined {
  // An item of a list is its own value: the user's, if there, is never replaced.
  if (arrayItem(entry.keyPath)) return undefined
  const errors: ParseError[] = []
  const root = parseTree(text, errors, PARSE_OPTIONS)
  const property = root && errors.length === 0 ? findProperty(root, entry.keyPath) : undefined
  const valueNode = property?.children?.[1]
  if (!property || !valueNode) return undefined
  return { offset: property.offset, original: { value: nodeValue(valueNode), text: text.slice(valueNode.offset, valueNode.offset + valueNode.length) } }
}

export const jsonFormat: MergeFormat = { merge: (text, file, previous, context) => mergeJson(text, file, previous, context.scaffold, context.kept), read: readJsonPath, readBack: toPlain, definition: jsonDefinition }

/** The tree as plain data; `__proto__` keys stay ordinary keys, the last duplicate wins (as in JSON.parse). */
function nodeValue(node: Node): PlainValue {
  if (node.type === 'object') {
    const out: PlainObject = {}
    for (const property of node.children ?? []) {
      const [key, value] = property.children ?? []
      if (key && value) defineKey(out, String(key.value), nodeValue(value))
    }
    return out
  }
  if (node.type === 'array') return (node.children ?? []).map(nodeValue)
  return node.value as PlainValue
}

function propertiesNamed(object: Node, key: string): Node[] {
  return (object.children ?? []).filter((property) => property.children?.[0]?.value === key)
}

/** The property node at `path` (following the first match at each level), if present. */
function findProperty(root: Node, path: readonly string[]): Node | undefined {
  let node: Node | undefined = root
  let property: Node | undefined
  for (const key of path) {
    if (node?.type !== 'object') return undefined
    property = propertiesNamed(node, key)[0]
    node = property?.children?.[1]
  }
  return property
}

/** The value at `path` (the document itself for no path), if present. */
function valueNode(root: Node, path: readonly string[]): Node | undefined {
  return path.length === 0 ? root : findProperty(root, path)?.children?.[1]
}

/** The elements of a list that are `item`. */
function itemNodes(list: Node, item: PlainValue): Node[] {
  if (typeof item === 'string') return (list.children ?? []).filter((element) => element.type === 'string' && element.value === item)
  return (list.children ?? []).filter((element) => sameItem(nodeValue(element), item))
}

/**
 * Every parent of our key must be an object, and no key on the path may appear twice; the list an
 * item of ours goes into must be a list.
 */
function checkParents(text: string, root: Node | undefined, file: MergeFile, path: readonly string[]): void {
  const member = arrayItem(path)
  if (member) {
    checkParents(text, root, file, member.list)
    const list = root && valueNode(root, member.list)
    if (list && list.type !== 'array') {
      throw mergeError(
        file,
        text,
        list.offset,
        'merge-unexpected-shape',
        `"${formatPath(member.list)}" in ${file.path} is ${describeKind(nodeValue(list))}, but unplugin-oac adds its entry ${shortValue(member.item)} to a list there; it left the file unchanged.`,
        `Make "${member.list[member.list.length - 1]}" a list (for example [${shortValue(member.item)}]) or remove it, then build again.`,
      )
    }
    return
  }
  let node = root
  for (let depth = 0; node && depth < path.length; depth++) {
    const key = path[depth] as string
    const matches = propertiesNamed(node, key)
    const second = matches[1]
    if (second) {
      throw mergeError(
        file,
        text,
        second.offset,
        'merge-unexpected-shape',
        `"${formatPath(path.slice(0, depth + 1))}" appears more than once in ${file.path}; unplugin-oac cannot tell which one is read, and left the file unchanged.`,
        `Keep one "${key}" key, then build again.`,
      )
    }
    const value = matches[0]?.children?.[1]
    if (!value || depth === path.length - 1) return
    if (value.type !== 'object') {
      throw mergeError(
        file,
        text,
        value.offset,
        'merge-unexpected-shape',
        `"${formatPath(path.slice(0, depth + 1))}" in ${file.path} is ${describeKind(nodeValue(value))}, but unplugin-oac needs an object there to hold its entry "${formatPath(path)}"; it left the file unchanged.`,
        `Make "${key}" an object (for example "${key}": { "${path[depth + 1]}": { ... } }) or remove it, then build again.`,
      )
    }
    node = value
  }
}

/** Indentation of the document's first property (the file's unit), and its line break. */
function detectStyle(text: string, root: Node | undefined): JsonStyle {
  const first = root?.children?.[0]
  const lead = first ? lineLead(text, first.offset) : undefined
  return { unit: lead && /^(\t+| +)$/.test(lead) ? lead : '  ', eol: detectEol(text) }
}

function lineStart(text: string, offset: number): number {
  return text.lastIndexOf('\n', offset - 1) + 1
}

/** The text between the start of the line and `offset`. */
function lineLead(text: string, offset: number): string {
  return text.slice(lineStart(text, offset), offset)
}

function startsOwnLine(text: string, offset: number): boolean {
  return /^[ \t]*$/.test(lineLead(text, offset))
}

/** The whitespace that indents the line holding `offset`. */
function indentOf(text: string, offset: number): string {
  return /^[ \t]*/.exec(lineLead(text, offset))?.[0] ?? ''
}

/** JSON for our value, indented by the file's unit and continued at `base`. */
function pretty(value: JsonValue, base: string, style: JsonStyle): string {
  return JSON.stringify(value, null, style.unit).split('\n').join(style.eol + base)
}

function setPlain(root: PlainObject, path: readonly string[], value: JsonValue): void {
  const member = arrayItem(path)
  if (member) {
    const list = member.list.reduce<PlainValue | undefined>((node, key) => (node !== null && typeof node === 'object' && !Array.isArray(node) ? node[key] : undefined), root)
    if (Array.isArray(list)) list.push(value)
    else setPlain(root, member.list, [value])
    return
  }
  let node = root
  for (const key of path.slice(0, -1)) {
    const next = node[key]
    const child: PlainObject = typeof next === 'object' && next !== null && !Array.isArray(next) ? next : {}
    defineKey(node, key, child)
    node = child
  }
  defineKey(node, path[path.length - 1] as string, value)
}

function nest(path: readonly string[], value: JsonValue): JsonValue {
  return path.reduceRight<JsonValue>((inner, key) => {
    const wrapper: PlainObject = {}
    defineKey(wrapper, key, inner)
    return wrapper as JsonValue
  }, value)
}

/**
 * What follows a value on its line: an optional comma, then only comments, then the line break
 * (its offset). Undefined when another token shares the line (a compact style we do not reflow).
 */
function lineTail(text: string, offset: number): { commaAt?: number; lineBreakAt: number } | undefined {
  const scanner = createScanner(text, false)
  scanner.setPosition(offset)
  let commaAt: number | undefined
  for (;;) {
    const kind = scanner.scan() as number
    if (kind === TRIVIA || kind === LINE_COMMENT) continue
    if (kind === BLOCK_COMMENT && !/[\r\n]/.test(text.slice(scanner.getTokenOffset(), scanner.getPosition()))) continue
    if (kind === COMMA && commaAt === undefined) {
      commaAt = scanner.getTokenOffset()
      continue
    }
    if (kind === LINE_BREAK) return { commaAt, lineBreakAt: scanner.getTokenOffset() }
    return undefined
  }
}

function setProperty(text: string, path: readonly string[], value: JsonValue, style: JsonStyle): string {
  const root = parseTree(text, [], PARSE_OPTIONS) as Node
  let parent = root
  for (let depth = 0; depth < path.length; depth++) {
    const property = propertiesNamed(parent, path[depth] as string)[0]
    const valueNode = property?.children?.[1]
    if (!property || !valueNode) return insertProperty(text, parent, path, depth, value, style)
    if (depth === path.length - 1) {
      // Already right: keep the bytes, including however the user formatted our entry.
      if (JSON.stringify(nodeValue(valueNode)) === JSON.stringify(value)) return text
      const content = pretty(value, indentOf(text, property.offset), style)
      return applyEdits(text, [{ offset: valueNode.offset, length: valueNode.length, content }])
    }
    parent = valueNode
  }
  return text
}

/** Puts the user's value back in place of ours: their bytes when known (our entry sits where theirs was), else their value printed in the file's style. */
function restoreProperty(text: string, path: readonly string[], value: JsonValue, original: string | undefined, style: JsonStyle): string {
  const property = findProperty(parseTree(text, [], PARSE_OPTIONS) as Node, path)
  const valueNode = property?.children?.[1]
  if (!property || !valueNode) return setProperty(text, path, value, style)
  const content = original ?? pretty(value, indentOf(text, property.offset), style)
  return applyEdits(text, [{ offset: valueNode.offset, length: valueNode.length, content }])
}

/** Adds `path[depth]` (holding the rest of the path) to `parent`, on its own line at its siblings' indentation. */
function insertProperty(text: string, parent: Node, path: readonly string[], depth: number, value: JsonValue, style: JsonStyle): string {
  const key = path[depth] as string
  const nested = nest(path.slice(depth + 1), value)
  return appendMember(
    text,
    parent,
    (indent) => `${JSON.stringify(key)}: ${pretty(nested, indent, style)}`,
    // A compact object (siblings share lines, or comments fill an empty one): add ours compactly too.
    () => applyEdits(text, modify(text, path.slice(0, depth + 1), nested, {})),
    style,
  )
}

/** Adds `item` to the list at `list` (made when missing), unless one is there already. */
function addItem(text: string, list: readonly string[], item: PlainValue, style: JsonStyle): string {
  const node = valueNode(parseTree(text, [], PARSE_OPTIONS) as Node, list)
  if (!node) return setProperty(text, list, [item], style)
  if (itemNodes(node, item).length > 0) return text
  // A compact list: ours goes at its end, after a comma.
  return appendMember(text, node, (indent) => pretty(item, indent, style), () => applyEdits(text, modify(text, [...list, -1], item, {})), style)
}

/**
 * Adds a member (`member(indent)`: a property, or an element of a list) at the end of `parent`, on
 * its own line at its siblings' indentation; `compact()` when the siblings share lines.
 */
function appendMember(text: string, parent: Node, member: (indent: string) => string, compact: () => string, style: JsonStyle): string {
  const children = parent.children ?? []
  const last = children[children.length - 1]
  const end = parent.offset + parent.length - 1
  if (!last) {
    if (text.slice(parent.offset + 1, end).trim() === '') {
      const base = indentOf(text, parent.offset)
      const inner = base + style.unit
      const content = `${style.eol}${inner}${member(inner)}${style.eol}${base}`
      return applyEdits(text, [{ offset: parent.offset + 1, length: end - parent.offset - 1, content }])
    }
  } else {
    const tail = lineTail(text, last.offset + last.length)
    if (tail && startsOwnLine(text, last.offset)) {
      const indent = indentOf(text, last.offset)
      const trailingComma = tail.commaAt !== undefined ? ',' : ''
      // The line break the last member ends with (a file may mix them): removing ours again leaves it as it was.
      const eol = text.startsWith('\r\n', tail.lineBreakAt) ? '\r\n' : '\n'
      const line = `${eol}${indent}${member(indent)}${trailingComma}`
      const lastEnd = last.offset + last.length
      if (tail.commaAt !== undefined) return applyEdits(text, [{ offset: tail.lineBreakAt, length: 0, content: line }])
      // The separating comma goes right after the last value (before any comment on its line).
      if (lastEnd === tail.lineBreakAt) return applyEdits(text, [{ offset: lastEnd, length: 0, content: `,${line}` }])
      return applyEdits(text, [
        { offset: lastEnd, length: 0, content: ',' },
        { offset: tail.lineBreakAt, length: 0, content: line },
      ])
    }
  }
  return compact()
}

/** Removes the property at `path`: its whole lines when it has them to itself, else just its text. */
function removeProperty(text: string, path: readonly string[]): string {
  const property = findProperty(parseTree(text, [], PARSE_OPTIONS) as Node, path)
  if (!property) return text
  return removeMember(text, property, () => applyEdits(text, modify(text, [...path], undefined, {})))
}

/** Removes the last element of the list at `list` that is `item` (ours: we add at the end). */
function removeItem(text: string, list: readonly string[], item: PlainValue): string {
  const node = valueNode(parseTree(text, [], PARSE_OPTIONS) as Node, list)
  const element = node?.type === 'array' ? itemNodes(node, item).at(-1) : undefined
  if (!node || !element) return text
  const elements = node.children ?? []
  const index = elements.indexOf(element)
  const next = elements[index + 1]
  const previous = elements[index - 1]
  // Sharing its line: the element and the comma that joined it to the list, as addItem wrote them.
  const compact = () =>
    next
      ? applyEdits(text, [{ offset: element.offset, length: next.offset - element.offset, content: '' }])
      : applyEdits(text, [{ offset: previous ? previous.offset + previous.length : element.offset, length: element.offset + element.length - (previous ? previous.offset + previous.length : element.offset), content: '' }])
  return removeMember(text, element, compact)
}

/**
 * Removes a member (a property, or an element of a list): its whole lines when it has them to
 * itself, the comma before it when it was last without a trailing one; `compact()` otherwise.
 */
function removeMember(text: string, member: Node, compact: () => string): string {
  const parent = member.parent
  if (!parent) return text
  const siblings = parent.children ?? []
  const index = siblings.indexOf(member)
  const tail = lineTail(text, member.offset + member.length)
  if (tail && startsOwnLine(text, member.offset)) {
    const from = lineStart(text, member.offset)
    const to = tail.lineBreakAt + (text.startsWith('\r\n', tail.lineBreakAt) ? 2 : 1)
    const parentEnd = parent.offset + parent.length - 1
    if (siblings.length === 1) {
      const rest = text.slice(parent.offset + 1, from) + text.slice(to, parentEnd)
      if (rest.trim() === '') return applyEdits(text, [{ offset: parent.offset + 1, length: parentEnd - parent.offset - 1, content: '' }])
      return applyEdits(text, [{ offset: from, length: to - from, content: '' }])
    }
    const edits: Edit[] = [{ offset: from, length: to - from, content: '' }]
    const previous = siblings[index - 1]
    if (index === siblings.length - 1 && tail.commaAt === undefined && previous) {
      // We were last without a trailing comma: the comma before us would now trail.
      const previousTail = lineTail(text, previous.offset + previous.length)
      if (previousTail?.commaAt === undefined) return compact()
      edits.push({ offset: previousTail.commaAt, length: 1, content: '' })
    }
    return applyEdits(text, edits)
  }
  return compact()
}
