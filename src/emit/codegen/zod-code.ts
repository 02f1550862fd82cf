import type { JsonSchema } from '../../compile/plan.js'
import type { JsonValue } from '../../define/types.js'
import { jsString } from './escape.js'
import { arrayLiteral, indentTail, jsKey, jsLiteral, objectLiteral } from './js-literal.js'

/**
 * Zod code generated from the canonical JSON Schema, in two dialects:
 * - `zod4`: real zod 4 (opencode's `tool.schema`, zod 4.1.8 in @opencode-ai/plugin 1.18.33). Every
 *   keyword zod has no builder for is carried by `.meta({...})`, so the JSON Schema zod produces
 *   (`z.toJSONSchema(..., { io: 'input' })`) equals the canonical one; the tool script still validates
 *   the input with the definition's own schema, so nothing is lost at run time either.
 * - `omptype`: oh-my-pi's `pi.zod` (omptype), a zod-like builder without `.meta`, formats (but `url`),
 *   exclusive bounds (but `positive`) or `multipleOf`. What it cannot say is reported as a gap.
 *
 * The generators are total: a construct a dialect cannot express is left out of the code and listed
 * in `gaps`, which the compile step turns into diagnostics (see `zodGaps`).
 */
export type ZodDialect = 'zod4' | 'omptype'

/** A part of the canonical schema that the generated code leaves out of the JSON Schema it produces. */
export interface SchemaGap {
  /** JSON Pointer into the canonical schema, e.g. `/properties/city`. */
  path: string
  keyword: string
  message: string
}

export interface GeneratedSchemaCode {
  code: string
  gaps: SchemaGap[]
}

export interface ZodCodeOptions {
  /** The expression the builders hang off: `z` after `const z = tool.schema` or `const z = pi.zod`. */
  z: string
  dialect: ZodDialect
}

interface Context extends ZodCodeOptions {
  gaps: SchemaGap[]
}

/** The zod expression for a whole schema (oh-my-pi's `parameters`). */
export function zodSchemaCode(schema: JsonSchema, options: ZodCodeOptions): GeneratedSchemaCode {
  const context: Context = { ...options, gaps: [] }
  // Definitions only serve recursive references, which become `unknown()` (see `schemaCode`).
  const { $defs: _definitions, ...body } = schema
  return { code: schemaCode(body, '', context), gaps: context.gaps }
}

/**
 * The raw shape `{ key: schema, ... }` of the root object (opencode's `args`: opencode wraps it in
 * `z.object(args)` itself). Root keywords other than the properties cannot ride along and are gaps.
 */
export function zodShapeCode(schema: JsonSchema, options: ZodCodeOptions): GeneratedSchemaCode {
  const context: Context = { ...options, gaps: [] }
  const rest = new Keywords(schema)
  rest.take('$schema')
  rest.take('$defs')
  if (rest.peek('type') === 'object') rest.take('type')
  const code = shapeCode(rest, '', context)
  for (const [keyword] of rest.entries()) {
    gap(context, '', keyword, `opencode builds the root object from the argument shape alone, so the root "${keyword}" cannot be expressed`)
  }
  return { code, gaps: context.gaps }
}

/** What the dialect's code leaves out of a schema, for the compile step's diagnostics. */
export function zodGaps(schema: JsonSchema, dialect: ZodDialect, root: 'shape' | 'object'): SchemaGap[] {
  const options = { z: 'z', dialect }
  return (root === 'shape' ? zodShapeCode(schema, options) : zodSchemaCode(schema, options)).gaps
}

/** The keywords of one schema object that are still to be placed; whatever is left at the end goes to `.meta()` or is a gap. */
class Keywords {
  private readonly left: Map<string, JsonValue>
  /** Keywords the builders write on their own but the canonical schema leaves out: `.meta()` sets them to undefined. */
  readonly cleared: string[] = []
  constructor(schema: JsonSchema) {
    this.left = new Map(Object.entries(schema))
  }
  has(keyword: string): boolean {
    return this.left.has(keyword)
  }
  peek(keyword: string): JsonValue | undefined {
    return this.left.get(keyword)
  }
  set(keyword: string, value: JsonValue): void {
    this.left.set(keyword, value)
  }
  take(keyword: string): JsonValue | undefined {
    const value = this.left.get(keyword)
    this.left.delete(keyword)
    return value
  }
  /** Takes the keyword when it is a number. */
  takeNumber(keyword: string): number | undefined {
    const value = this.left.get(keyword)
    if (typeof value !== 'number') return undefined
    this.left.delete(keyword)
    return value
  }
  entries(): Array<[string, JsonValue]> {
    return [...this.left.entries()]
  }
}

function gap(context: Context, path: string, keyword: string, message: string): void {
  context.gaps.push({ path: path || '/', keyword, message })
}

function isSchemaObject(value: JsonValue | undefined): value is JsonSchema {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

function isPrimitive(value: JsonValue): value is string | number | boolean | null {
  return value === null || typeof value !== 'object'
}

function pointer(path: string, ...segments: string[]): string {
  return path + segments.map((s) => `/${s.replace(/~/g, '~0').replace(/\//g, '~1')}`).join('')
}

function jsonType(value: JsonValue): string {
  return value === null ? 'null' : typeof value
}

/** `wrapper` (e.g. `.default(...)`) goes between the builders and the annotations: omptype keeps a
 * description only when it is the last call, and zod is indifferent to the order. */
function schemaCode(schema: JsonValue | undefined, path: string, context: Context, wrapper = ''): string {
  const { z } = context
  if (schema === undefined || schema === true) return `${z}.unknown()${wrapper}`
  if (schema === false) {
    if (context.dialect === 'zod4') return `${z}.never()${wrapper}`
    gap(context, path, 'false', 'pi.zod has no schema that rejects every value')
    return `${z}.unknown()${wrapper}`
  }
  if (!isSchemaObject(schema)) {
    gap(context, path, 'schema', 'a schema must be an object or a boolean')
    return `${z}.unknown()${wrapper}`
  }
  const rest = new Keywords(schema)
  if (typeof rest.peek('$ref') === 'string') {
    // Only recursion keeps a reference in the canonical schema, and neither zod form can refer back.
    rest.take('$ref')
    gap(context, path, '$ref', 'a recursive field is typed as unknown (the tool script still validates it)')
    return `${context.z}.unknown()${wrapper}${annotationCode(rest, path, context)}`
  }
  const base = baseCode(rest, path, context)
  // Without a wrapper, cleared bounds join the node's one `.meta()` call in `annotationCode`.
  return base + (wrapper ? clearedMeta(rest) : '') + wrapper + annotationCode(rest, path, context)
}

/** `.describe()` and, in zod 4, one `.meta()` with every keyword no builder took. It comes last:
 * zod keeps metadata per instance, and a later builder call would start a fresh one. */
function annotationCode(rest: Keywords, path: string, context: Context): string {
  const leftover = rest.entries()
  if (context.dialect === 'omptype') {
    let code = ''
    for (const [keyword, value] of leftover) {
      if (keyword === 'description' && typeof value === 'string') code += `.describe(${jsString(value)})`
      else gap(context, path, keyword, `pi.zod cannot express "${keyword}"`)
    }
    return code
  }
  const entries = [...leftover.map(([k, v]) => [k, jsLiteral(v)] as const), ...rest.cleared.map((k) => [k, 'undefined'] as const)]
  if (entries.length === 0) return ''
  const [only] = leftover
  if (entries.length === 1 && only && only[0] === 'description' && typeof only[1] === 'string') return `.describe(${jsString(only[1])})`
  return `.meta(${objectLiteral(entries)})`
}

function baseCode(rest: Keywords, path: string, context: Context): string {
  const { z } = context
  if (rest.has('anyOf')) return anyOfCode(rest, path, context)
  if (context.dialect === 'omptype' && rest.has('oneOf')) {
    // omptype has no exclusive union: the nearest is the inclusive one (anyOf).
    gap(context, path, 'oneOf', 'pi.zod has no exclusive union; the field becomes an inclusive one (anyOf)')
    rest.set('anyOf', rest.take('oneOf')!)
    return anyOfCode(rest, path, context)
  }
  if (context.dialect === 'omptype' && rest.has('allOf') && !rest.has('type')) {
    rest.take('allOf')
    gap(context, path, 'allOf', 'pi.zod has no intersection; the field is typed as unknown (the tool script still validates it)')
    return `${context.z}.unknown()`
  }
  if (rest.has('const')) return constCode(rest, path, context)
  if (rest.has('enum')) return enumCode(rest, path, context)
  const type = rest.peek('type')
  if (typeof type === 'string') {
    rest.take('type')
    return typedCode(type, rest, path, context)
  }
  if (Array.isArray(type) && type.length > 0 && type.every((t) => typeof t === 'string')) {
    rest.take('type')
    const types = type as string[]
    const nonNull = types.filter((t) => t !== 'null')
    const nullable = nonNull.length < types.length
    if (nonNull.length === 0) return `${z}.null()`
    // Type-specific keywords apply to their one type; with several types they stay behind (meta, or a gap).
    const code =
      nonNull.length === 1
        ? typedCode(nonNull[0]!, rest, path, context) + clearedMeta(rest)
        : `${z}.union(${arrayLiteral(nonNull.map((t) => bareTypeCode(t, path, context)))})`
    return nullable ? `${code}.nullable()` : code
  }
  return `${z}.unknown()`
}

/** One member of a `type` list: the type alone (type-specific keywords stay with the list's schema). */
function bareTypeCode(type: string, path: string, context: Context): string {
  const keywords = new Keywords({})
  return typedCode(type, keywords, path, context) + clearedMeta(keywords)
}

/** The cleared keywords' `.meta()`, for a typed schema about to be wrapped (the wrapper's own meta would land on the wrapper). */
function clearedMeta(rest: Keywords): string {
  if (rest.cleared.length === 0) return ''
  const code = `.meta(${objectLiteral(rest.cleared.map((k) => [k, 'undefined'] as const))})`
  rest.cleared.length = 0
  return code
}

function anyOfCode(rest: Keywords, path: string, context: Context): string {
  const { z } = context
  const members = rest.take('anyOf')
  if (!Array.isArray(members) || members.length === 0) {
    gap(context, path, 'anyOf', '"anyOf" must be a non-empty array')
    return `${z}.unknown()`
  }
  const at = (i: number) => pointer(path, 'anyOf', String(i))
  if (members.length === 1) return schemaCode(members[0], at(0), context)
  // `.nullable()` writes `anyOf: [<schema>, { type: "null" }]`, in that order.
  const isNull = (m: JsonValue | undefined) => isSchemaObject(m) && Object.keys(m).length === 1 && m.type === 'null'
  if (members.length === 2 && isNull(members[1]) && !isNull(members[0])) return `${schemaCode(members[0], at(0), context)}.nullable()`
  return `${z}.union(${arrayLiteral(members.map((m, i) => schemaCode(m, at(i), context)))})`
}

/** Takes `type` along with `const`/`enum` when it only restates the values' own type (zod writes it itself). */
function takeImpliedType(rest: Keywords, values: JsonValue[]): void {
  const type = rest.peek('type')
  const types = new Set(values.map(jsonType))
  if (types.size !== 1) return
  const [valueType] = types
  if (type === valueType || (type === 'integer' && values.every((v) => Number.isInteger(v)))) rest.take('type')
}

function constCode(rest: Keywords, path: string, context: Context): string {
  const value = rest.peek('const')!
  if (!isPrimitive(value)) {
    if (context.dialect === 'omptype') {
      rest.take('const')
      gap(context, path, 'const', 'pi.zod literals are strings, numbers, booleans or null')
    }
    return `${context.z}.unknown()`
  }
  rest.take('const')
  takeImpliedType(rest, [value])
  return `${context.z}.literal(${jsLiteral(value)})`
}

function enumCode(rest: Keywords, path: string, context: Context): string {
  const { z } = context
  const values = rest.peek('enum')
  if (!Array.isArray(values) || values.length === 0 || !values.every(isPrimitive)) {
    if (context.dialect === 'omptype') {
      rest.take('enum')
      gap(context, path, 'enum', 'pi.zod enums are non-empty lists of strings, numbers, booleans or null')
    }
    return `${z}.unknown()`
  }
  rest.take('enum')
  takeImpliedType(rest, values)
  // zod 4 keeps enum values as object keys, which puts index-like ones ("0", "12") first; literals keep the order.
  const indexLike = (v: JsonValue) => typeof v === 'string' && /^(?:0|[1-9]\d{0,8})$/.test(v)
  if (values.every((v) => typeof v === 'string') && !(context.dialect === 'zod4' && values.some(indexLike))) {
    return `${z}.enum(${arrayLiteral(values.map(jsLiteral))})`
  }
  if (context.dialect === 'zod4') return `${z}.literal(${arrayLiteral(values.map(jsLiteral))})`
  if (values.length === 1) return `${z}.literal(${jsLiteral(values[0]!)})`
  return `${z}.union(${arrayLiteral(values.map((v) => `${z}.literal(${jsLiteral(v)})`))})`
}

function typedCode(type: string, rest: Keywords, path: string, context: Context): string {
  const { z } = context
  switch (type) {
    case 'string':
      return stringCode(rest, path, context)
    case 'number':
    case 'integer':
      return numberCode(type, rest, path, context)
    case 'boolean':
      return `${z}.boolean()`
    case 'null':
      return `${z}.null()`
    case 'array':
      return arrayCode(rest, path, context)
    case 'object':
      return objectCode(rest, path, context)
    default:
      gap(context, path, 'type', `unknown type "${type}"`)
      return `${z}.unknown()`
  }
}

function regexCode(pattern: string): string {
  return `new RegExp(${jsString(pattern)})`
}

function stringCode(rest: Keywords, path: string, context: Context): string {
  const { z } = context
  const pattern = typeof rest.peek('pattern') === 'string' ? (rest.peek('pattern') as string) : undefined
  const format = typeof rest.peek('format') === 'string' ? (rest.peek('format') as string) : undefined
  let code: string
  if (format === 'uri' && pattern === undefined) {
    rest.take('format')
    code = context.dialect === 'zod4' ? `${z}.url()` : `${z}.string().url()`
  } else if (context.dialect === 'zod4' && format === 'email' && pattern !== undefined) {
    // zod's email check writes `format: "email"` plus its pattern; passing the canonical pattern keeps it exact.
    rest.take('format')
    rest.take('pattern')
    code = `${z}.email({ pattern: ${regexCode(pattern)} })`
  } else {
    code = `${z}.string()`
    if (pattern !== undefined) {
      rest.take('pattern')
      code += `.regex(${regexCode(pattern)})`
      if (context.dialect === 'omptype') gap(context, path, 'pattern', 'pi.zod validates the pattern but leaves it out of the JSON Schema the model sees')
    }
    // Other formats (zod's own checks write version-specific patterns) stay behind for `.meta()`.
  }
  const minLength = rest.takeNumber('minLength')
  if (minLength !== undefined) code += `.min(${minLength})`
  const maxLength = rest.takeNumber('maxLength')
  if (maxLength !== undefined) code += `.max(${maxLength})`
  return code
}

function numberCode(type: 'number' | 'integer', rest: Keywords, path: string, context: Context): string {
  const { z } = context
  const minimum = rest.takeNumber('minimum')
  const maximum = rest.takeNumber('maximum')
  const exclusiveMinimum = rest.takeNumber('exclusiveMinimum')
  const exclusiveMaximum = rest.takeNumber('exclusiveMaximum')
  const multipleOf = rest.takeNumber('multipleOf')
  if (context.dialect === 'omptype') {
    let code = `${z}.number()${type === 'integer' ? '.int()' : ''}`
    if (minimum !== undefined) code += `.min(${minimum})`
    if (exclusiveMinimum === 0 && minimum === undefined) code += '.positive()'
    else if (exclusiveMinimum !== undefined) gap(context, path, 'exclusiveMinimum', 'pi.zod has no exclusive minimum but `positive()` (> 0)')
    if (maximum !== undefined) code += `.max(${maximum})`
    if (exclusiveMaximum !== undefined) gap(context, path, 'exclusiveMaximum', 'pi.zod has no exclusive maximum')
    if (multipleOf !== undefined) gap(context, path, 'multipleOf', 'pi.zod has no multipleOf')
    return code
  }
  let code: string
  if (type === 'integer') {
    // zod's integers carry the safe-integer range as bounds; a side the canonical schema leaves open is cleared in meta.
    code = `${z}.int()`
    if (minimum !== undefined && minimum !== Number.MIN_SAFE_INTEGER) code += `.min(${minimum})`
    if (maximum !== undefined && maximum !== Number.MAX_SAFE_INTEGER) code += `.max(${maximum})`
  } else {
    code = `${z}.number()`
    if (minimum !== undefined) code += `.min(${minimum})`
    if (maximum !== undefined) code += `.max(${maximum})`
  }
  if (exclusiveMinimum !== undefined) code += `.gt(${exclusiveMinimum})`
  if (exclusiveMaximum !== undefined) code += `.lt(${exclusiveMaximum})`
  if (multipleOf !== undefined) code += `.multipleOf(${multipleOf})`
  if (type === 'integer') {
    if (minimum === undefined && exclusiveMinimum === undefined) rest.cleared.push('minimum')
    if (maximum === undefined && exclusiveMaximum === undefined) rest.cleared.push('maximum')
  }
  return code
}

function arrayCode(rest: Keywords, path: string, context: Context): string {
  const { z } = context
  const items = rest.peek('items')
  let code: string
  if (context.dialect === 'omptype' && rest.has('prefixItems')) {
    rest.take('prefixItems')
    rest.take('items')
    gap(context, path, 'prefixItems', 'pi.zod has no tuple; the field is an array of unknown values (the tool script still validates it)')
    code = `${z}.array(${z}.unknown())`
  } else if (items === undefined || items === true || isSchemaObject(items)) {
    rest.take('items')
    code = `${z}.array(${schemaCode(items, pointer(path, 'items'), context)})`
  } else {
    code = `${z}.array(${z}.unknown())`
    if (context.dialect === 'omptype') {
      rest.take('items')
      gap(context, path, 'items', 'pi.zod arrays have one item schema')
    }
  }
  const minItems = rest.takeNumber('minItems')
  if (minItems !== undefined) code += `.min(${minItems})`
  const maxItems = rest.takeNumber('maxItems')
  if (maxItems !== undefined) code += `.max(${maxItems})`
  return code
}

/** `{ key: schema, ... }` for `properties`, optional where not `required`. Takes both keywords. */
function shapeCode(rest: Keywords, path: string, context: Context): string {
  const properties = rest.peek('properties')
  const required = rest.peek('required')
  const requiredNames = new Set(Array.isArray(required) ? required.filter((r) => typeof r === 'string') : [])
  const props = isSchemaObject(properties) ? properties : {}
  if (properties !== undefined) rest.take('properties')
  if (required !== undefined) {
    rest.take('required')
    const missing = [...requiredNames].filter((name) => !(name in props))
    if (missing.length > 0) gap(context, path, 'required', `required properties without a schema cannot be expressed: ${missing.join(', ')}`)
  }
  const entries = Object.entries(props).map(([key, value]) => {
    return [key, propertyCode(value, requiredNames.has(key), pointer(path, 'properties', key), context)] as const
  })
  if (entries.length === 0) return '{}'
  return `{\n${entries.map(([key, code]) => `  ${jsKey(key)}: ${indentTail(code)},`).join('\n')}\n}`
}

/** An optional property's `default` becomes `.default()` (zod then also fills it in); a required one keeps it as data. */
function propertyCode(schema: JsonValue, required: boolean, path: string, context: Context): string {
  if (required) return schemaCode(schema, path, context)
  if (isSchemaObject(schema) && 'default' in schema) {
    const { default: value, ...withoutDefault } = schema
    return schemaCode(withoutDefault, path, context, `.default(${jsLiteral(value!)})`)
  }
  return `${schemaCode(schema, path, context)}.optional()`
}

function objectCode(rest: Keywords, path: string, context: Context): string {
  const { z } = context
  const hasProperties = rest.has('properties')
  const additional = rest.peek('additionalProperties')
  const propertyNames = rest.peek('propertyNames')
  const plainKeys = isSchemaObject(propertyNames) && Object.keys(propertyNames).length === 1 && propertyNames.type === 'string'
  const extra = () => schemaCode(rest.take('additionalProperties'), pointer(path, 'additionalProperties'), context)
  if (context.dialect === 'zod4') {
    if (isSchemaObject(additional) && Object.keys(additional).length > 0 && !hasProperties && isSchemaObject(propertyNames)) {
      const keys = schemaCode(rest.take('propertyNames'), pointer(path, 'propertyNames'), context)
      return `${z}.record(${keys}, ${extra()})`
    }
    const shape = shapeCode(rest, path, context)
    if (additional === false) {
      rest.take('additionalProperties')
      return `${z}.strictObject(${shape})`
    }
    if (additional === true || (isSchemaObject(additional) && Object.keys(additional).length === 0)) {
      rest.take('additionalProperties')
      return `${z}.looseObject(${shape})`
    }
    if (isSchemaObject(additional)) return `${z}.object(${shape}).catchall(${extra()})`
    return `${z}.object(${shape})`
  }
  const patterns = rest.peek('patternProperties')
  if (isSchemaObject(patterns) && !hasProperties && additional === undefined) {
    rest.take('patternProperties')
    rest.take('propertyNames')
    gap(context, path, 'patternProperties', 'pi.zod records have no key pattern; the field takes any keys (the tool script still validates them)')
    const values = Object.entries(patterns)
    const [first] = values
    const value = values.length === 1 && first ? schemaCode(first[1], pointer(path, 'patternProperties', first[0]), context) : `${z}.unknown()`
    return `${z}.record(${value})`
  }
  if (isSchemaObject(additional) && Object.keys(additional).length > 0 && !hasProperties) {
    if (propertyNames !== undefined) {
      rest.take('propertyNames')
      if (!plainKeys) gap(context, path, 'propertyNames', 'pi.zod records take any string key')
    }
    return `${z}.record(${extra()})`
  }
  const shape = shapeCode(rest, path, context)
  if (additional === false) {
    rest.take('additionalProperties')
    return `${z}.object(${shape}).strict()`
  }
  if (additional !== undefined) {
    rest.take('additionalProperties')
    gap(context, path, 'additionalProperties', 'pi.zod objects with declared properties cannot describe extra ones (omp closes every object)')
  }
  return `${z}.object(${shape})`
}
