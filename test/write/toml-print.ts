import fc from 'fast-check'
import { stringify } from 'smol-toml'
import { hostileString } from '../escape/hostile.js'

/**
 * Random user TOML documents (Codex agent files written by hand): top-level keys with every string
 * style, multi-line arrays with comments, inline tables, other MCP servers, unrelated tables and
 * arrays of tables, comments everywhere, odd spacing, LF or CRLF.
 */

type Scalar = string | number | boolean
export type UserValue = Scalar | Scalar[] | { [key: string]: Scalar }

interface KeyValue {
  key: string
  value: UserValue
  /** How a string is written: 0 basic, 1 literal, 2 multi-line basic, 3 multi-line literal. */
  style: number
  spaced: boolean
  trailingComment: boolean
  commentAbove: boolean
  multilineArray: boolean
}

interface Table {
  path: string[]
  array: boolean
  spacedHeader: boolean
  keys: KeyValue[]
}

export interface UserToml {
  topLevel: KeyValue[]
  tables: Table[]
  eol: '\n' | '\r\n'
  headerComment: boolean
  blankLines: boolean
  commentText: string
}

// Text that looks like TOML structure, to catch a splicer that does not know it is inside a string.
const TRICKY_LINES = ['[mcp_servers.oac-tools]', '[[agents]]', 'name = "fake"', '# not a comment', 'x = """', '  indented ] }', '{ [', "'", '"', '']

const keyName = fc.oneof(
  fc.constantFrom('model', 'sandbox_mode', 'model_reasoning_effort', 'nickname', 'a-b', 'x_1', 'name', 'description'),
  fc.string({ minLength: 1, maxLength: 8 }),
)
const multilineContent = fc.array(fc.constantFrom(...TRICKY_LINES), { minLength: 1, maxLength: 5 })
const scalar: fc.Arbitrary<Scalar> = fc.oneof(
  hostileString.filter((s) => s.length < 200),
  fc.integer({ min: -1_000_000, max: 1_000_000 }),
  fc.double({ noNaN: true, noDefaultInfinity: true, min: -1e6, max: 1e6 }).filter((n) => !Number.isInteger(n)),
  fc.boolean(),
)
const value: fc.Arbitrary<UserValue> = fc.oneof(
  { weight: 4, arbitrary: scalar },
  { weight: 1, arbitrary: multilineContent.map((lines) => lines.join('\n')) },
  { weight: 1, arbitrary: fc.array(fc.oneof(fc.string({ maxLength: 6 }), fc.integer()), { maxLength: 4 }) },
  { weight: 1, arbitrary: fc.dictionary(fc.string({ minLength: 1, maxLength: 5 }), scalar, { maxKeys: 3 }) },
)
const keyValue = (key: fc.Arbitrary<string>): fc.Arbitrary<KeyValue> =>
  fc.record({
    key,
    value,
    style: fc.nat(3),
    spaced: fc.boolean(),
    trailingComment: fc.boolean(),
    commentAbove: fc.boolean(),
    multilineArray: fc.boolean(),
  })
const keyValues = fc.uniqueArray(keyValue(keyName), { maxLength: 5, selector: (kv) => kv.key })

const table: fc.Arbitrary<Table> = fc.record({
  path: fc.oneof(
    fc.string({ minLength: 1, maxLength: 8 }).map((name) => ['mcp_servers', name]),
    fc.constantFrom<string[]>(['profile'], ['profile', 'sub'], ['skills', 'config'], ['tools']),
  ),
  array: fc.boolean(),
  spacedHeader: fc.boolean(),
  keys: keyValues,
})

export const userToml: fc.Arbitrary<UserToml> = fc.record({
  topLevel: keyValues,
  tables: fc
    .uniqueArray(table, { maxLength: 4, selector: (t) => t.path.join('\u0000') })
    // Only `[[tools]]` may be an array of tables: `profile` has a sub-table, `mcp_servers.*` are Codex's tables.
    .map((tables) => tables.map((t) => ({ ...t, array: t.array && t.path.join('.') === 'tools' }))),
  eol: fc.constantFrom('\n' as const, '\r\n' as const),
  headerComment: fc.boolean(),
  blankLines: fc.boolean(),
  commentText: fc.string({ maxLength: 20 }).map((s) => s.replace(/[\u0000-\u001f\u007f]/g, ' ')),
})

function quoteKey(key: string): string {
  return /^[A-Za-z0-9_-]+$/.test(key) ? key : stringify({ [key]: 0 }).replace(/ = 0\n$/, '')
}

function basicString(text: string): string {
  return stringify({ v: text }).slice(4, -1)
}

function renderString(text: string, style: number, eol: string): string {
  const oneLine = !/[\u0000-\u0008\u000a-\u001f\u007f]/.test(text)
  if (style === 1 && oneLine && !text.includes("'")) return `'${text}'`
  const multilineSafe = !/[\u0000-\u0008\u000b-\u001f\u007f\\]/.test(text) && !text.includes('"""') && !text.includes("'''") && !text.endsWith('"') && !text.endsWith("'")
  if (style === 2 && multilineSafe) return `"""${eol}${text.replace(/\n/g, eol)}"""`
  if (style === 3 && multilineSafe) return `'''${eol}${text.replace(/\n/g, eol)}'''`
  return basicString(text)
}

function renderValue(kv: KeyValue, eol: string, comment: string): string {
  const v = kv.value
  if (typeof v === 'string') return renderString(v, kv.style, eol)
  if (typeof v === 'number' || typeof v === 'boolean') return stringify({ v }).slice(4, -1)
  if (Array.isArray(v)) {
    const items = v.map((item) => (typeof item === 'string' ? basicString(item) : String(item)))
    if (!kv.multilineArray) return `[${items.join(', ')}]`
    return `[${eol}${items.map((item, i) => `  ${item},${i === 0 ? ` # ${comment}` : ''}`).join(eol)}${eol}]`
  }
  return `{ ${Object.entries(v).map(([key, item]) => `${quoteKey(key)} = ${typeof item === 'string' ? basicString(item) : stringify({ v: item }).slice(4, -1)}`).join(', ')} }`
}

export interface PrintedToml {
  text: string
  /** Every own-line comment, in order. */
  comments: string[]
}

export function printToml(doc: UserToml): PrintedToml {
  const lines: string[] = []
  const comments: string[] = []
  const comment = (text: string): void => {
    lines.push(text)
    comments.push(text)
  }
  const keyLines = (kvs: KeyValue[], indent: string): void => {
    for (const kv of kvs) {
      if (kv.commentAbove) comment(`${indent}# about ${kv.key.replace(/[\u0000-\u001f\u007f]/g, ' ')}: ${doc.commentText}`)
      const equals = kv.spaced ? '   =\t' : ' = '
      lines.push(`${indent}${quoteKey(kv.key)}${equals}${renderValue(kv, doc.eol, doc.commentText)}${kv.trailingComment ? ` # ${doc.commentText}` : ''}`)
    }
  }
  if (doc.headerComment) comment(`# Codex agent, hand-written ${doc.commentText}`)
  if (doc.headerComment && doc.blankLines) lines.push('')
  keyLines(doc.topLevel, '')
  for (const t of doc.tables) {
    if (doc.blankLines) lines.push('')
    const name = t.path.map(quoteKey).join(t.spacedHeader ? ' . ' : '.')
    const header = t.array ? `[[${name}]]` : t.spacedHeader ? `[ ${name} ]` : `[${name}]`
    lines.push(`${header}${t.spacedHeader ? ` # ${doc.commentText}` : ''}`)
    keyLines(t.keys, t.spacedHeader ? '  ' : '')
  }
  return { text: lines.length === 0 ? '' : `${lines.join(doc.eol)}${doc.eol}`, comments }
}
