import type { JsonValue } from '../../define/types.js'
import { jsString } from './escape.js'

/** Generated code is indented by two spaces per level and kept under this width where it can be. */
const LINE_WIDTH = 100

/** A property key as written in an object literal: bare when it is a plain identifier, quoted otherwise. */
export function jsKey(key: string): string {
  // `__proto__` as a plain or quoted key sets the prototype instead of a property; a computed key does not.
  if (key === '__proto__') return `[${jsString(key)}]`
  return /^[A-Za-z_$][A-Za-z0-9_$]*$/.test(key) ? key : jsString(key)
}

/** Indents every line but the first of a multi-line snippet, for embedding it at a deeper level. */
export function indentTail(code: string, by = '  '): string {
  return code.replace(/\n/g, `\n${by}`)
}

/**
 * An object literal from already generated member values: on one line when it fits,
 * otherwise one member per line with trailing commas.
 */
export function objectLiteral(entries: ReadonlyArray<readonly [key: string, code: string]>): string {
  if (entries.length === 0) return '{}'
  const members = entries.map(([key, code]) => `${jsKey(key)}: ${code}`)
  const inline = `{ ${members.join(', ')} }`
  if (inline.length <= LINE_WIDTH && !inline.includes('\n')) return inline
  return `{\n${members.map((m) => `  ${indentTail(m)},`).join('\n')}\n}`
}

/** An array literal from already generated element values, wrapped like `objectLiteral`. */
export function arrayLiteral(elements: readonly string[]): string {
  const inline = `[${elements.join(', ')}]`
  if (inline.length <= LINE_WIDTH && !inline.includes('\n')) return inline
  return `[\n${elements.map((e) => `  ${indentTail(e)},`).join('\n')}\n]`
}

/** A JSON value as a readable JS literal; strings go through `jsString`, so nothing can leave its literal. */
export function jsLiteral(value: JsonValue): string {
  if (value === null || typeof value === 'boolean') return String(value)
  // JSON numbers are finite; `-0` would print as `0`, which JSON cannot tell apart anyway.
  if (typeof value === 'number') return String(value)
  if (typeof value === 'string') return jsString(value)
  if (Array.isArray(value)) return arrayLiteral(value.map(jsLiteral))
  return objectLiteral(Object.entries(value).map(([k, v]) => [k, jsLiteral(v)] as const))
}
