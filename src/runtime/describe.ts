import type { JsonValue } from '../define/types.js'

/**
 * Short human wording for values and schemas, shared by input validation messages and `--help`,
 * so an error says `days: expected integer, got "x"` in the same words the usage uses.
 */

type SchemaObject = { readonly [key: string]: JsonValue | undefined }

const MAX_SHOWN = 60

/** How a received value reads in a message: strings quoted (and shortened), containers by kind. */
export function describeValue(value: unknown): string {
  if (value === undefined) return 'nothing'
  if (value === null) return 'null'
  if (typeof value === 'string') {
    const quoted = JSON.stringify(value)
    return quoted.length > MAX_SHOWN ? `${quoted.slice(0, MAX_SHOWN - 4)}..."` : quoted
  }
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint') return String(value)
  if (Array.isArray(value)) return 'an array'
  if (typeof value === 'object') return 'an object'
  return `a ${typeof value}`
}

/** A field path as people write it: `items[0].name`; the whole value is `(input)` (or `(output)`). */
export function formatPath(path: ReadonlyArray<PropertyKey>, subject: CheckedValue = 'input'): string {
  let text = ''
  for (const key of path) {
    if (typeof key === 'number') text += `[${key}]`
    else text += text === '' ? String(key) : `.${String(key)}`
  }
  return text === '' ? `(${subject})` : text
}

/** What a schema check is checking: a tool's input, or the value it returns. */
export type CheckedValue = 'input' | 'output'

/** A JSON Pointer (`/items/0/name`, as TypeBox reports paths) as path segments. */
export function pointerToPath(pointer: string): Array<string | number> {
  if (pointer === '' || pointer === '/') return []
  return pointer
    .slice(1)
    .split('/')
    .map((part) => part.replace(/~1/g, '/').replace(/~0/g, '~'))
    .map((part) => (/^(0|[1-9]\d*)$/.test(part) ? Number(part) : part))
}

/** The value at `path` inside `input`; undefined where the path leaves it. */
export function valueAt(input: unknown, path: ReadonlyArray<PropertyKey>): unknown {
  let value = input
  for (const key of path) {
    if (value === null || typeof value !== 'object') return undefined
    value = (value as Record<PropertyKey, unknown>)[key]
  }
  return value
}

export function lowerFirst(text: string): string {
  return text.charAt(0).toLowerCase() + text.slice(1)
}

function isSchemaObject(value: unknown): value is SchemaObject {
  return value !== null && typeof value === 'object' && !Array.isArray(value)
}

/** The fixed values a schema allows (`enum`, `const`, or a union of those), if it is such a choice. */
export function schemaChoices(schema: SchemaObject): JsonValue[] | undefined {
  if (Array.isArray(schema.enum) && schema.enum.length > 0) return schema.enum
  if ('const' in schema && schema.const !== undefined) return [schema.const]
  const branches = schema.anyOf ?? schema.oneOf
  if (Array.isArray(branches) && branches.length > 0) {
    const values: JsonValue[] = []
    for (const branch of branches) {
      const choices = isSchemaObject(branch) ? schemaChoices(branch) : undefined
      if (!choices) return undefined
      values.push(...choices)
    }
    return values
  }
  return undefined
}

/** What a schema expects, in a few words: `integer`, `one of "c", "f"`, `array of string`. */
export function describeSchema(schema: unknown): string {
  if (!isSchemaObject(schema)) return 'a value'
  const choices = schemaChoices(schema)
  if (choices) return choices.length === 1 ? JSON.stringify(choices[0]) : `one of ${choices.map((c) => JSON.stringify(c)).join(', ')}`
  const type = schema.type
  if (type === 'array') return isSchemaObject(schema.items) ? `array of ${describeSchema(schema.items)}` : 'array'
  if (typeof type === 'string') return type
  if (Array.isArray(type)) return type.map(String).join(' or ')
  const branches = schema.anyOf ?? schema.oneOf
  if (Array.isArray(branches)) return branches.map(describeSchema).join(' or ')
  return 'a value'
}
