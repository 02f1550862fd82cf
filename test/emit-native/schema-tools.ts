import { tool } from '@opencode-ai/plugin'
import * as TypeBox1 from 'typebox'
import * as TypeBox034 from '@sinclair/typebox'
import { z } from 'zod'
import type { JsonSchema } from '../../src/compile/plan.js'
import type { JsonValue } from '../../src/define/types.js'
import { typeboxCode } from '../../src/emit/codegen/typebox-code.js'
import { zodShapeCode } from '../../src/emit/codegen/zod-code.js'

type ZodLike = typeof z | typeof tool.schema

/** Evaluates generated code with `name` bound to `value`, as the generated file does. */
export function evaluate(code: string, name: string, value: unknown): unknown {
  return new Function(name, `return ${code}`)(value)
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

/**
 * The metadata registry opencode 1.18.33 builds before converting a plugin tool's arguments
 * (registry.ts in its binary; Kilo 7.7.7, its fork, has the same function and the same
 * `toJSONSchema(z.object(args), { io: 'input', metadata })` call): each zod schema's own `.meta()` and
 * `.description`, read through the zod instance that made the schema, re-registered for the harness's own zod.
 */
function pluginToolMetadata(schema: z.ZodType): z.core.$ZodRegistry<Record<string, unknown>> {
  const registry = z.registry<Record<string, unknown>>()
  const seen = new WeakSet<object>()
  const visit = (value: unknown): void => {
    if (typeof value !== 'object' || value === null || seen.has(value)) return
    seen.add(value)
    if ('_zod' in value) {
      const node = value as { meta?: () => unknown; description?: unknown; _zod: { def: unknown } }
      const meta = typeof node.meta === 'function' ? node.meta() : undefined
      const description = typeof node.description === 'string' ? node.description : undefined
      const merged = { ...(typeof meta === 'object' && meta !== null && !Array.isArray(meta) ? meta : {}), ...(description ? { description } : {}) }
      if (Object.keys(merged).length > 0) registry.add(value as z.ZodType, merged)
      visit(node._zod.def)
      return
    }
    for (const inner of Object.values(value)) visit(inner)
  }
  visit(schema)
  return registry
}

/**
 * The JSON Schema opencode sends for a shim's `args`: the shape built with `zod` (the plugin's
 * `tool.schema` in opencode), wrapped and converted the way opencode does it, with our zod 4.6.7
 * standing in for the zod 4.4 inside the opencode binary.
 */
export function opencodeArgsSchema(schema: JsonSchema, zod: ZodLike = tool.schema): JsonSchema {
  const shape = evaluate(zodShapeCode(schema, { z: 'z', dialect: 'zod4' }).code, 'z', zod) as z.ZodRawShape
  const object = z.object(shape)
  const json = z.toJSONSchema(object, { io: 'input', metadata: pluginToolMetadata(object) }) as JsonSchema
  const { $schema: _dialect, ...rest } = json
  return rest
}

/** The JSON Schema of the generated TypeBox code, evaluated with TypeBox 1.x (what pi gives extensions) or 0.34. */
export function typeboxSchema(schema: JsonSchema, version: '1' | '0.34' = '1'): JsonSchema {
  const Type = version === '1' ? TypeBox1.Type : TypeBox034.Type
  return JSON.parse(JSON.stringify(evaluate(typeboxCode(schema), 'Type', Type))) as JsonSchema
}

const SCHEMA_MAPS = ['properties', 'patternProperties', '$defs', 'dependentSchemas']
const SCHEMA_LISTS = ['anyOf', 'oneOf', 'allOf', 'prefixItems']
const SCHEMA_VALUES = ['items', 'additionalProperties', 'propertyNames', 'not', 'contains', 'if', 'then', 'else']

function isBareType(value: JsonValue): boolean {
  return isObject(value) && Object.keys(value).length === 1 && typeof value.type === 'string'
}

/**
 * One spelling for JSON Schemas that say the same thing, so zod versions and omp can be compared:
 * an `anyOf` of bare types = a `type` list without repeats (zod 4.6 writes the latter, 4.1 the
 * former), an `anyOf` of constants = an enum, a one-value enum = `const`, `additionalProperties:
 * true` = `{}`, no `properties: {}`, no bare string `propertyNames`, `required` in any order (empty =
 * absent), no `$schema`. Only schema positions are rewritten, never data (`default`, `enum`, ...).
 */
export function normalizeSchema(schema: JsonValue): JsonValue {
  if (!isObject(schema)) return schema
  const out: Record<string, JsonValue> = {}
  for (const [key, value] of Object.entries(schema as Record<string, JsonValue>)) {
    if (key === '$schema') continue
    if (SCHEMA_MAPS.includes(key) && isObject(value)) {
      out[key] = Object.fromEntries(Object.entries(value as Record<string, JsonValue>).map(([k, v]) => [k, normalizeSchema(v)]))
    } else if (SCHEMA_LISTS.includes(key) && Array.isArray(value)) out[key] = value.map(normalizeSchema)
    else if (SCHEMA_VALUES.includes(key)) out[key] = normalizeSchema(value)
    else out[key] = value
  }
  const anyOf = out.anyOf
  if (Array.isArray(anyOf) && anyOf.length > 1 && anyOf.every(isBareType) && out.type === undefined) {
    out.type = anyOf.map((member) => (member as { type: string }).type)
    delete out.anyOf
  }
  if (Array.isArray(out.type)) out.type = [...new Set(out.type)]
  if (Array.isArray(out.type) && out.type.length === 1) out.type = out.type[0]!
  if (out.additionalProperties === true) out.additionalProperties = {}
  if (isObject(out.properties) && Object.keys(out.properties).length === 0) delete out.properties
  if (Array.isArray(out.required)) {
    if (out.required.length === 0) delete out.required
    else out.required = [...out.required].sort()
  }
  // Keys are strings anyway: a bare string `propertyNames` says nothing.
  if (isObject(out.propertyNames) && Object.keys(out.propertyNames).length === 1 && out.propertyNames.type === 'string') delete out.propertyNames
  // An `anyOf` of constants of one type = an enum of them (omptype writes the latter).
  const constants = Array.isArray(out.anyOf) ? out.anyOf : []
  if (
    constants.length > 1 &&
    out.type === undefined &&
    constants.every((m) => isObject(m) && 'const' in m && Object.keys(m).every((k) => k === 'const' || k === 'type')) &&
    new Set(constants.map((m) => (m as { type?: unknown }).type)).size === 1
  ) {
    const type = (constants[0] as { type?: JsonValue }).type
    out.enum = constants.map((m) => (m as { const: JsonValue }).const)
    if (type !== undefined) out.type = type
    delete out.anyOf
  }
  if (Array.isArray(out.enum) && out.enum.length === 1 && !('const' in out)) {
    out.const = out.enum[0]!
    delete out.enum
  }
  return out
}
