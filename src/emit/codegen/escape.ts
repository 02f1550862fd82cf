import { stringify as stringifyToml } from 'smol-toml'
import { stringify as stringifyYaml } from 'yaml'
import type { JsonValue } from '../../define/types.js'

/**
 * The one escaping function per output format. Every string that reaches a generated file goes
 * through one of these, so no name, description, enum value or prompt can leave its literal.
 */

/** A JS/TS string literal. JSON.stringify escapes quotes, backslashes and control characters;
 * the two unicode line separators are escaped too so the literal stays on one source line. */
export function jsString(value: string): string {
  return JSON.stringify(value).replace(/\u2028/g, '\\u2028').replace(/\u2029/g, '\\u2029')
}

/** A JS/TS value literal (objects, arrays, numbers, strings), for data embedded in generated code. */
export function jsValue(value: JsonValue): string {
  return JSON.stringify(value).replace(/\u2028/g, '\\u2028').replace(/\u2029/g, '\\u2029')
}

/** Text for a single-line `//` comment: line breaks of any kind become spaces. */
export function jsLineComment(text: string): string {
  return text.replace(/[\r\n\u2028\u2029\u0085]+/g, ' ')
}

/** A JSON document, two-space indented, with a final newline. */
export function jsonDocument(value: JsonValue): string {
  return `${JSON.stringify(value, null, 2)}\n`
}

/** TOML text for a table of key/value pairs (sub-tables as `[a.b]` sections), via smol-toml. */
export function tomlDocument(value: { [key: string]: JsonValue }): string {
  return stringifyToml(value)
}

/** A YAML document (used for Markdown frontmatter), via the `yaml` library. Multi-line strings are
 * double-quoted with escapes, not block scalars: yaml 2.9 writes `" \n"` as a block that reads back
 * as `"\n"`, and a keep-chomped block (`|+`) at the end would take the frontmatter's closing lines. */
export function yamlDocument(value: { [key: string]: JsonValue }): string {
  return stringifyYaml(value, { lineWidth: 0, blockQuote: false })
}

/** A Markdown file with YAML frontmatter and a body. The body is free text: it cannot reopen the
 * frontmatter because the frontmatter is closed before it starts. */
export function markdownWithFrontmatter(frontmatter: { [key: string]: JsonValue }, body: string): string {
  return `---\n${yamlDocument(frontmatter)}---\n\n${body.replace(/\s+$/, '')}\n`
}

/** Inline code in Markdown: a backtick fence longer than any run of backticks inside. */
export function markdownCode(text: string): string {
  const longest = Math.max(0, ...[...text.matchAll(/`+/g)].map((m) => m[0].length))
  const fence = '`'.repeat(longest + 1)
  const pad = text.startsWith('`') || text.endsWith('`') ? ' ' : ''
  return `${fence}${pad}${text}${pad}${fence}`
}

/** A fenced Markdown code block whose fence no line of the content can close. */
export function markdownFence(text: string, lang = ''): string {
  const longest = Math.max(2, ...[...text.matchAll(/`+/g)].map((m) => m[0].length))
  const fence = '`'.repeat(longest + 1)
  return `${fence}${lang}\n${text}\n${fence}`
}

/** A shell word for documentation: single-quoted unless it is plainly safe. */
export function shellWord(word: string): string {
  return /^[A-Za-z0-9_./:=@%+-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`
}
