import { stringify as stringifyToml } from 'smol-toml'
import { Document, parse as parseYaml, visit } from 'yaml'
import type { JsonValue } from '../../define/types.js'

/**
 * The one escaping function per output format. Every string that reaches a generated file goes
 * through one of these, so no name, description, enum value or prompt can leave its literal.
 * Each is property-tested (test/escape/) by parsing its output back with a real parser.
 */

// Half of a UTF-16 surrogate pair with no other half: UTF-8 files cannot hold it.
const LONE_SURROGATE = /\p{Cs}/u

/** A JS/TS string literal. JSON.stringify escapes quotes, backslashes, control characters and
 * lone surrogates; the two unicode line separators are escaped too so the literal stays on one line. */
export function jsString(value: string): string {
  return JSON.stringify(value).replace(/\u2028/g, '\\u2028').replace(/\u2029/g, '\\u2029')
}

/**
 * A JS/TS value literal (objects, arrays, numbers, strings), for data embedded in generated code.
 * A `__proto__` key is written as a computed key: as a plain one it would set the prototype. With
 * `indent` (the indentation of the line the literal starts on), one member per line, each with a
 * trailing comma, so that a diff of the data shows the members that changed.
 */
export function jsValue(value: JsonValue, indent?: string): string {
  if (typeof value === 'string') return jsString(value)
  const inner = indent === undefined ? undefined : `${indent}  `
  const list = (open: string, members: string[], close: string) => {
    if (members.length === 0 || inner === undefined) return `${open}${members.join(',')}${close}`
    return `${open}\n${members.map((member) => `${inner}${member},\n`).join('')}${indent}${close}`
  }
  if (Array.isArray(value)) return list('[', value.map((item) => jsValue(item, inner)), ']')
  if (value !== null && typeof value === 'object') {
    const separator = inner === undefined ? ':' : ': '
    const members = Object.keys(value).map((key) => `${key === '__proto__' ? `[${jsString(key)}]` : jsString(key)}${separator}${jsValue(value[key] as JsonValue, inner)}`)
    return list('{', members, '}')
  }
  return JSON.stringify(value)
}

/** Text for a single-line `//` comment: line breaks of any kind become spaces. */
export function jsLineComment(text: string): string {
  return text.replace(/[\r\n\u2028\u2029\u0085]+/g, ' ')
}

/** A JSON document, two-space indented, with a final newline. */
export function jsonDocument(value: JsonValue): string {
  return `${JSON.stringify(value, null, 2)}\n`
}

/**
 * TOML text for a table of key/value pairs (sub-tables as `[a.b]` sections), via smol-toml; a
 * top-level string with line breaks (a prompt) as a multi-line string, so it reads as it will be
 * shown. Throws on what TOML cannot hold (null, lone surrogates) instead of dropping or replacing it.
 * With `multiLineStrings: false` every string stays on one line: for a file whose lines end in CRLF,
 * where the line breaks of a multi-line string would read back as CRLF.
 */
export function tomlDocument(value: { [key: string]: JsonValue }, { multiLineStrings = true } = {}): string {
  checkTomlValue(value, '')
  const keys = Object.keys(value)
  if (!multiLineStrings || !keys.some((key) => isMultiLine(value[key]))) return stringifyToml(value)
  // Scalars come first in TOML, each rendered on its own line in order; tables follow as one document.
  const tables: { [key: string]: JsonValue } = {}
  let scalars = ''
  for (const key of keys) {
    const item = value[key] as JsonValue
    if (isTableLike(item)) Object.defineProperty(tables, key, { value: item, enumerable: true })
    else if (isMultiLine(item)) scalars += `${stringifyToml(singleKey(key, 0)).replace(/ = 0\n$/, '')} = ${tomlMultiLineString(item)}\n`
    else scalars += stringifyToml(singleKey(key, item))
  }
  const rest = Object.keys(tables).length > 0 ? stringifyToml(tables) : ''
  return rest === '' ? scalars : `${scalars}\n${rest}`
}

function isMultiLine(value: JsonValue | undefined): value is string {
  return typeof value === 'string' && value.includes('\n')
}

/** What smol-toml writes as `[table]` / `[[array of tables]]` sections rather than `key = value`. */
function isTableLike(value: JsonValue): boolean {
  const isTable = (item: JsonValue) => typeof item === 'object' && item !== null && !Array.isArray(item)
  return isTable(value) || (Array.isArray(value) && value.length > 0 && value.every(isTable))
}

/** `{ [key]: value }` with `key` an own data property even when it is `__proto__`. */
function singleKey(key: string, value: JsonValue): { [key: string]: JsonValue } {
  const table: { [key: string]: JsonValue } = {}
  Object.defineProperty(table, key, { value, enumerable: true })
  return table
}

/**
 * A TOML multi-line basic string holding exactly `text`: backslashes and control characters
 * escaped, line feeds kept (a carriage return is escaped, since a reader may normalise CRLF), and
 * every `"` escaped that touches another `"` or the closing delimiter, so no `"""` can form.
 */
function tomlMultiLineString(text: string): string {
  const body = text.replace(/[\\\u0000-\u0008\u000b-\u001f\u007f]|"(?="|$)/g, (char) => {
    if (char === '\\') return '\\\\'
    if (char === '"') return '\\"'
    if (char === '\r') return '\\r'
    return `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`
  })
  // The line break right after the opening delimiter is not part of the string.
  return `"""\n${body}"""`
}

function checkTomlValue(value: JsonValue, at: string): void {
  const where = at === '' ? 'the top level' : at
  if (value === null) throw new Error(`TOML cannot hold null (at ${where}); leave the key out instead`)
  if (typeof value === 'string' && LONE_SURROGATE.test(value)) {
    throw new Error(`TOML cannot hold a lone UTF-16 surrogate (in the string at ${where})`)
  }
  if (Array.isArray(value)) value.forEach((item, i) => checkTomlValue(item, `${at}[${i}]`))
  else if (typeof value === 'object') {
    for (const key of Object.keys(value)) {
      if (LONE_SURROGATE.test(key)) throw new Error(`TOML cannot hold a lone UTF-16 surrogate (in a key at ${where})`)
      checkTomlValue(value[key] as JsonValue, at === '' ? key : `${at}.${key}`)
    }
  }
}

// Strings the yaml library might leave plain but that some reader would change: control and C1
// characters, the byte order mark (stripped as a BOM), unicode line separators (line breaks in
// YAML 1.1), lone surrogates, and any line break or edge whitespace.
const NEEDS_DOUBLE_QUOTES = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\ufeff]|\p{Cs}|^\s|\s$/u
// Inside double quotes the yaml library leaves these raw; YAML escapes them by name or number.
const RAW_IN_QUOTES: Record<string, string> = { '\u0085': '\\N', '\u2028': '\\L', '\u2029': '\\P', '\ufeff': '\\ufeff' }

/** A YAML document (used for Markdown frontmatter), via the `yaml` library. Strings with anything
 * a reader could change are double-quoted with escapes, on one line (never block scalars: yaml 2.9
 * writes `" \n"` as a block that reads back as `"\n"`, and a keep-chomped `|+` block would take the
 * closing fence). So no line of the frontmatter can start with `---`. */
export function yamlDocument(value: { [key: string]: JsonValue }): string {
  const entries = Object.entries(value)
  if (entries.length === 0) return yamlLibraryDocument(value)
  // Top-level block entries render independently, so each is written on its own and joined.
  return entries
    .map(([key, entry]) => plainWordMap(key, entry) ?? yamlLibraryDocument({ [key]: entry }))
    .join('')
}

// A word every YAML reader takes as the same plain string: no quoting, escaping or type is involved.
const PLAIN_WORD = /^[A-Za-z_][A-Za-z0-9_-]*$/
// ...except these, which YAML 1.1 readers take as booleans or null.
const TYPED_WORD = /^(?:y|n|yes|no|true|false|on|off|null)$/i
const isPlainWord = (value: JsonValue): value is string => typeof value === 'string' && PLAIN_WORD.test(value) && !TYPED_WORD.test(value)

/**
 * `key:` and a block map of plain words (an agent's tool permissions: 1,000 tools make 1,000 lines),
 * written directly: through the library, 100 such agents took most of a second. The output is the
 * library's own for such maps (test/escape checks it); anything else goes through the library.
 */
function plainWordMap(key: string, value: JsonValue): string | undefined {
  if (!isPlainWord(key) || typeof value !== 'object' || value === null || Array.isArray(value)) return undefined
  const entries = Object.entries(value)
  if (entries.length === 0 || !entries.every(([k, v]) => isPlainWord(k) && isPlainWord(v))) return undefined
  return `${key}:\n${entries.map(([k, v]) => `  ${k}: ${v as string}\n`).join('')}`
}

// Plain scalars that a YAML 1.1 reader may take as another type (js-yaml, Gemini CLI's reader, takes
// `2024-01-01` as a date): timestamps, sexagesimal and `_` numbers, yes/no/on/off, and the merge key
// `<<`. The yaml library writes for YAML 1.2, which reads them as strings, so it leaves them plain.
const YAML11_CANDIDATE = /^[-+.\d]|^(?:y|n|yes|no|on|off)$/i
function typedInYaml11(text: string): boolean {
  if (text === '<<') return true
  if (!YAML11_CANDIDATE.test(text)) return false
  try {
    return typeof parseYaml(text, { version: '1.1', logLevel: 'silent' }) !== 'string'
  } catch {
    // Not a plain scalar at all (`- "`): the library quotes it anyway, and quoting is always safe.
    return true
  }
}

function yamlLibraryDocument(value: { [key: string]: JsonValue }): string {
  const document = new Document(value)
  // Keys are scalars too: the visitor reaches them as well.
  visit(document, {
    Scalar(_, node) {
      if (typeof node.value === 'string' && (NEEDS_DOUBLE_QUOTES.test(node.value) || typedInYaml11(node.value))) node.type = 'QUOTE_DOUBLE'
    },
  })
  // One line per scalar: yaml 2.9 folds long double-quoted strings over several lines, and writes
  // a folded line that starts with a space as `\\ `, which reads back as a backslash.
  const text = document.toString({ lineWidth: 0, blockQuote: false, doubleQuotedMinMultiLineLength: Number.POSITIVE_INFINITY })
  // These characters only occur inside the double-quoted scalars forced above.
  return text.replace(/[\u007f-\u009f\u2028\u2029\ufeff]/g, (c) => RAW_IN_QUOTES[c] ?? `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`)
}

/** A Markdown file with YAML frontmatter and a body. The body is free text: it cannot reopen the
 * frontmatter because the frontmatter is closed before it starts. */
export function markdownWithFrontmatter(frontmatter: { [key: string]: JsonValue }, body: string): string {
  return `---\n${yamlDocument(frontmatter)}---\n\n${body.trimEnd()}\n`
}

/**
 * Inline code in Markdown: a backtick fence longer than any run of backticks inside, padded with a
 * space where the reader strips one. Line breaks become spaces (readers do that anyway, and a line
 * break could end the paragraph or turn the line into a heading). Empty text has no code form: ''.
 */
export function markdownCode(text: string): string {
  const oneLine = text.replace(/\r\n|\r|\n/g, ' ')
  if (oneLine === '') return ''
  const fence = '`'.repeat(longestBacktickRun(oneLine) + 1)
  const stripped = oneLine.startsWith(' ') && oneLine.endsWith(' ') && /[^ ]/.test(oneLine)
  const pad = oneLine.startsWith('`') || oneLine.endsWith('`') || stripped ? ' ' : ''
  return `${fence}${pad}${oneLine}${pad}${fence}`
}

/** A fenced Markdown code block whose fence no line of the content can close. Trailing line breaks
 * are dropped (readers disagree on keeping them); any other line break reads back as `\n`. */
export function markdownFence(text: string, lang = ''): string {
  const content = text.replace(/(?:\r\n|\r|\n)+$/, '')
  const fence = '`'.repeat(Math.max(2, longestBacktickRun(content)) + 1)
  return `${fence}${lang}\n${content}\n${fence}`
}

// A loop, not Math.max(...runs): a long text has more runs than a call can take arguments.
function longestBacktickRun(text: string): number {
  let longest = 0
  for (const run of text.matchAll(/`+/g)) longest = Math.max(longest, run[0].length)
  return longest
}

/** A shell word for documentation: single-quoted unless it is plainly safe. Shells cannot pass NUL. */
export function shellWord(word: string): string {
  if (word.includes('\0')) throw new RangeError('A shell word cannot contain NUL characters')
  return /^[A-Za-z0-9_./:=@%+-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`
}
