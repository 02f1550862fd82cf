import { parse } from 'smol-toml'

/**
 * Where each statement of a TOML document sits in its text: table headers and key/value pairs,
 * with their byte ranges, so a merge can splice our keys and leave every other byte alone.
 * smol-toml (which validates the document first) has no source positions, so this only finds
 * statement boundaries (strings, comments, brackets); every key is decoded by smol-toml itself.
 */
export interface TomlStatement {
  kind: 'table' | 'array-table' | 'key'
  /** Offset of the start of the statement's first line. */
  start: number
  /** Offset just past the statement's last line break (or the end of the text). */
  end: number
  /** Headers: the table's key path. Keys: the table the pair sits in plus the pair's dotted key. */
  path: string[]
  /** Keys only: the path of the table the pair sits in ([] at the top level). */
  table: string[]
}

export function scanTomlStatements(text: string): TomlStatement[] {
  const statements: TomlStatement[] = []
  let table: string[] = []
  let i = 0
  while (i < text.length) {
    const start = i
    i = skipBlanks(text, i)
    const c = text[i]
    if (c === '\n' || c === '\r' || c === '#' || c === undefined) {
      i = endOfLine(text, i)
      continue
    }
    if (c === '[') {
      const array = text[i + 1] === '['
      const keyStart = i + (array ? 2 : 1)
      const keyEnd = scanKeyUntil(text, keyStart, ']')
      const path = decodeKey(text.slice(keyStart, keyEnd))
      i = endOfLine(text, keyEnd + (array ? 2 : 1))
      statements.push({ kind: array ? 'array-table' : 'table', start, end: i, path, table: path })
      table = path
      continue
    }
    const equals = scanKeyUntil(text, i, '=')
    const key = decodeKey(text.slice(i, equals))
    i = endOfLine(text, scanValue(text, equals + 1))
    statements.push({ kind: 'key', start, end: i, path: [...table, ...key], table })
  }
  return statements
}

/** The dotted key's path, decoded by smol-toml (quoted keys, escapes, spaces around dots). */
function decodeKey(keyText: string): string[] {
  const path: string[] = []
  let node: unknown = parse(`${keyText.trim()} = 0`)
  while (typeof node === 'object' && node !== null) {
    const key = Object.keys(node)[0] as string
    path.push(key)
    node = (node as Record<string, unknown>)[key]
  }
  return path
}

function skipBlanks(text: string, i: number): number {
  while (text[i] === ' ' || text[i] === '\t') i++
  return i
}

/** Past the line break that ends the line at `i` (a trailing comment included). */
function endOfLine(text: string, i: number): number {
  const lineBreak = text.indexOf('\n', i)
  return lineBreak === -1 ? text.length : lineBreak + 1
}

/** The offset of `stop` after a key, skipping quoted parts. */
function scanKeyUntil(text: string, i: number, stop: string): number {
  while (i < text.length && text[i] !== stop) {
    const c = text[i]
    i = c === '"' ? endOfBasicString(text, i + 1) : c === "'" ? text.indexOf("'", i + 1) + 1 : i + 1
  }
  return i
}

/** The offset of the line break that ends a value (arrays and inline tables may span lines). */
function scanValue(text: string, i: number): number {
  let depth = 0
  while (i < text.length) {
    const c = text[i]
    if (c === '"') i = text.startsWith('"""', i) ? endOfMultilineString(text, i + 3, '"') : endOfBasicString(text, i + 1)
    else if (c === "'") i = text.startsWith("'''", i) ? endOfMultilineString(text, i + 3, "'") : text.indexOf("'", i + 1) + 1
    else if (c === '#') i = text.indexOf('\n', i) === -1 ? text.length : text.indexOf('\n', i)
    else if (c === '\n' && depth === 0) return i
    else {
      if (c === '[' || c === '{') depth++
      else if (c === ']' || c === '}') depth--
      i++
    }
  }
  return i
}

function endOfBasicString(text: string, i: number): number {
  while (i < text.length && text[i] !== '"') i += text[i] === '\\' ? 2 : 1
  return i + 1
}

/** Past the closing delimiter of a multi-line string; up to two more quotes belong to the content. */
function endOfMultilineString(text: string, i: number, quote: '"' | "'"): number {
  const delimiter = quote.repeat(3)
  while (i < text.length) {
    if (quote === '"' && text[i] === '\\') i += 2
    else if (text.startsWith(delimiter, i)) {
      i += 3
      for (let extra = 0; extra < 2 && text[i] === quote; extra++) i++
      return i
    } else i++
  }
  return i
}
