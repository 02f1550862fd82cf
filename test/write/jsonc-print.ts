import fc from 'fast-check'
import { createScanner, type Node, type ParseError, parseTree } from 'jsonc-parser'
import type { JsonValue } from '../../src/define/types.js'

/** How a random user `.mcp.json` is laid out. */
export interface JsoncStyle {
  indent: string
  eol: '\n' | '\r\n'
  trailingCommas: boolean
  /** Objects and arrays on one line, as some people (and tools) write them. */
  compact: boolean
  /** Where comments go: consumed one per possible position. */
  comments: boolean[]
  commentText: string
  /** What an empty object or list holds (people leave `[\n  ]` where they emptied one). */
  emptyInside: '' | ' ' | 'line'
}

export const jsoncStyle: fc.Arbitrary<JsoncStyle> = fc.record({
  indent: fc.constantFrom('  ', '    ', '\t', ' '),
  eol: fc.constantFrom('\n' as const, '\r\n' as const),
  trailingCommas: fc.boolean(),
  compact: fc.boolean(),
  comments: fc.array(fc.boolean(), { maxLength: 40 }),
  commentText: fc.string({ maxLength: 20 }).map((s) => s.replace(/[\r\n\u2028\u2029]|\*\//g, ' ')),
  emptyInside: fc.constantFrom('' as const, ' ' as const, 'line' as const),
})

/** Prints a JSON value as JSONC in the given style, with comments at some positions. */
export function printJsonc(value: JsonValue, style: JsoncStyle): string {
  let next = 0
  const coin = (): boolean => style.comments[next++ % Math.max(1, style.comments.length)] === true && style.comments.length > 0
  const print = (node: JsonValue, depth: number): string => {
    if (node === null || typeof node !== 'object') return JSON.stringify(node)
    const entries: [string | undefined, JsonValue][] = Array.isArray(node)
      ? node.map((item) => [undefined, item])
      : Object.keys(node).map((key) => [key, node[key] as JsonValue])
    const [open, close] = Array.isArray(node) ? ['[', ']'] : ['{', '}']
    if (entries.length === 0) return open + (style.emptyInside === 'line' ? `${style.eol}${style.indent.repeat(depth + 2)}` : style.emptyInside) + close
    const item = ([key, child]: [string | undefined, JsonValue]): string =>
      `${key === undefined ? '' : `${JSON.stringify(key)}: `}${print(child, depth + 1)}`
    if (style.compact) {
      const inner = entries.map((entry) => (coin() ? `/* ${style.commentText} */ ` : '') + item(entry)).join(', ')
      return `${open}${inner}${style.trailingCommas ? ',' : ''}${close}`
    }
    const pad = style.indent.repeat(depth + 1)
    const lines = entries.map((entry, i) => {
      const leading = coin() ? `${pad}// ${style.commentText}${style.eol}` : ''
      const comma = i < entries.length - 1 || style.trailingCommas ? ',' : ''
      const trailing = coin() ? ` // ${style.commentText}` : ''
      return `${leading}${pad}${item(entry)}${comma}${trailing}`
    })
    return `${open}${style.eol}${lines.join(style.eol)}${style.eol}${style.indent.repeat(depth)}${close}`
  }
  const header = coin() ? `// ${style.commentText}${style.eol}` : ''
  return `${header}${print(value, 0)}${style.eol}`
}

/** The comments of a JSONC text, in order. */
export function jsoncComments(text: string): string[] {
  const scanner = createScanner(text, false)
  const comments: string[] = []
  for (let kind = scanner.scan() as number; kind !== 17; kind = scanner.scan() as number) {
    if (kind === 12 || kind === 13) comments.push(text.slice(scanner.getTokenOffset(), scanner.getPosition()))
  }
  return comments
}

/** A JSONC text as plain data (keys such as `__proto__` kept as keys), for comparisons. */
export function jsoncValue(text: string): JsonValue {
  const errors: ParseError[] = []
  const root = parseTree(text, errors, { allowTrailingComma: true, disallowComments: false })
  if (!root || errors.length > 0) throw new Error(`not JSONC: ${JSON.stringify(errors)}`)
  const convert = (node: Node): JsonValue => {
    if (node.type === 'array') return (node.children ?? []).map(convert)
    if (node.type !== 'object') return node.value as JsonValue
    const out: { [key: string]: JsonValue } = {}
    for (const property of node.children ?? []) {
      const [key, value] = property.children ?? []
      if (key && value) Object.defineProperty(out, String(key.value), { value: convert(value), enumerable: true, writable: true, configurable: true })
    }
    return out
  }
  return convert(root)
}
