import type { JsonSchema } from '../../compile/plan.js'
import type { JsonValue } from '../../define/types.js'
import { arrayLiteral, indentTail, jsKey, jsLiteral, objectLiteral } from './js-literal.js'

/**
 * TypeBox code generated from the canonical JSON Schema, for pi's `parameters`. TypeBox builders
 * copy their options into the schema as given, so every keyword rides along and the JSON Schema is
 * the canonical one, whole. Enums, constants, type lists and anything without a builder become
 * `Type.Unsafe(<the schema as data>)`: pi advises plain `{ type: 'string', enum }` schemas over
 * unions of literals, which some model providers reject.
 *
 * The code works with TypeBox 1.x (`typebox`, what pi 0.7x and 1.x give extensions) and 0.34.
 */
export function typeboxCode(schema: JsonSchema, type = 'Type'): string {
  return schemaCode(schema, type)
}

function isSchemaObject(value: JsonValue | undefined): value is JsonSchema {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

const SIMPLE_TYPES: Record<string, string> = {
  string: 'String',
  number: 'Number',
  integer: 'Integer',
  boolean: 'Boolean',
  null: 'Null',
}

/** Builder options from the keywords the builder itself does not write; omitted when there are none. */
function optionsArgument(options: JsonSchema): string {
  const entries = Object.entries(options)
  return entries.length === 0 ? '' : objectLiteral(entries.map(([k, v]) => [k, jsLiteral(v)] as const))
}

function call(name: string, ...args: string[]): string {
  return `${name}(${args.filter((a) => a !== '').join(', ')})`
}

function schemaCode(schema: JsonValue, type: string): string {
  if (!isSchemaObject(schema)) return call(`${type}.Unsafe`, jsLiteral(schema))
  const { type: kind, ...rest } = schema
  if ('enum' in schema || 'const' in schema) return call(`${type}.Unsafe`, jsLiteral(schema))
  if (typeof kind === 'string' && kind in SIMPLE_TYPES) return call(`${type}.${SIMPLE_TYPES[kind]}`, optionsArgument(rest))
  if (kind === 'array') {
    const { items, ...options } = rest
    if (items !== undefined && !isSchemaObject(items)) return call(`${type}.Unsafe`, jsLiteral(schema))
    const itemCode = items === undefined ? `${type}.Unknown()` : schemaCode(items, type)
    return call(`${type}.Array`, itemCode, optionsArgument(options))
  }
  if (kind === 'object') return objectCode(schema, type)
  if (kind === undefined && Array.isArray(schema.anyOf) && schema.anyOf.length > 0) {
    const { anyOf, ...options } = rest
    const members = (anyOf as JsonValue[]).map((member) => schemaCode(member, type))
    return call(`${type}.Union`, arrayLiteral(members), optionsArgument(options))
  }
  if (kind === undefined && !('anyOf' in schema) && !('allOf' in schema) && !('oneOf' in schema)) {
    return call(`${type}.Unknown`, optionsArgument(rest))
  }
  return call(`${type}.Unsafe`, jsLiteral(schema))
}

function objectCode(schema: JsonSchema, type: string): string {
  const { type: _object, properties, required, ...options } = schema
  const requiredNames = new Set(Array.isArray(required) ? required : [])
  const props = isSchemaObject(properties) ? properties : {}
  // `required` names without a property schema keep the schema as data.
  const unmatched = [...requiredNames].some((name) => typeof name !== 'string' || !(name in props))
  // TypeBox objects always write `properties`, so an object without them (a record) stays data too.
  if (unmatched || !isSchemaObject(properties)) return call(`${type}.Unsafe`, jsLiteral(schema))
  const entries = Object.entries(props).map(([key, value]) => {
    const code = schemaCode(value, type)
    return [key, requiredNames.has(key) ? code : call(`${type}.Optional`, code)] as const
  })
  const shape = entries.length === 0 ? '{}' : `{\n${entries.map(([key, code]) => `  ${jsKey(key)}: ${indentTail(code)},`).join('\n')}\n}`
  return call(`${type}.Object`, shape, optionsArgument(options))
}
