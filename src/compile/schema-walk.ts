import type { JsonValue } from '../define/types.js'
import type { JsonSchema } from './plan.js'

/** Keywords whose value is a map of subschemas. */
const SCHEMA_MAPS = ['properties', 'patternProperties', '$defs', 'definitions', 'dependentSchemas'] as const
/** Keywords whose value is a list of subschemas. */
const SCHEMA_LISTS = ['prefixItems', 'anyOf', 'oneOf', 'allOf'] as const
/** Keywords whose value is one subschema (`items` is a list in drafts before 2020-12). */
const SCHEMA_SINGLES = [
  'items', 'additionalProperties', 'unevaluatedProperties', 'unevaluatedItems', 'propertyNames', 'contains',
  'not', 'if', 'then', 'else', 'contentSchema',
] as const

export function isSchemaObject(value: JsonValue | undefined): value is JsonSchema {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

/** Escapes one JSON Pointer segment (RFC 6901). */
function segment(key: string): string {
  return key.includes('~') || key.includes('/') ? key.replaceAll('~', '~0').replaceAll('/', '~1') : key
}

/** The direct subschemas of `node`, each with its JSON Pointer relative to `node`. */
export function subschemas(node: JsonSchema): Array<[pointer: string, schema: JsonSchema]> {
  const found: Array<[string, JsonSchema]> = []
  for (const keyword of SCHEMA_MAPS) {
    const map = node[keyword]
    if (!isSchemaObject(map)) continue
    for (const [key, value] of Object.entries(map)) if (isSchemaObject(value)) found.push([`/${keyword}/${segment(key)}`, value])
  }
  for (const keyword of [...SCHEMA_LISTS, 'items'] as const) {
    const list = node[keyword]
    if (Array.isArray(list)) list.forEach((value, i) => isSchemaObject(value) && found.push([`/${keyword}/${i}`, value]))
  }
  for (const keyword of SCHEMA_SINGLES) {
    const value = node[keyword]
    if (isSchemaObject(value)) found.push([`/${keyword}`, value])
  }
  return found
}

/** Visits every schema object in `schema`, depth first, with its JSON Pointer from the root ('' for the root). */
export function walkSchema(schema: JsonSchema, visit: (node: JsonSchema, pointer: string) => void, pointer = ''): void {
  visit(schema, pointer)
  for (const [relative, child] of subschemas(schema)) walkSchema(child, visit, pointer + relative)
}

/** Rebuilds `schema` bottom-up, replacing each schema object by what `transform` returns for it. */
export function mapSchema(schema: JsonSchema, transform: (node: JsonSchema) => JsonSchema): JsonSchema {
  const copy: JsonSchema = { ...schema }
  for (const keyword of SCHEMA_MAPS) {
    const map = copy[keyword]
    if (isSchemaObject(map)) {
      copy[keyword] = Object.fromEntries(Object.entries(map).map(([k, v]) => [k, isSchemaObject(v) ? mapSchema(v, transform) : v]))
    }
  }
  for (const keyword of [...SCHEMA_LISTS, 'items'] as const) {
    const list = copy[keyword]
    if (Array.isArray(list)) copy[keyword] = list.map((v) => (isSchemaObject(v) ? mapSchema(v, transform) : v))
  }
  for (const keyword of SCHEMA_SINGLES) {
    const value = copy[keyword]
    if (isSchemaObject(value)) copy[keyword] = mapSchema(value, transform)
  }
  return transform(copy)
}
