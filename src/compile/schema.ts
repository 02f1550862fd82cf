import { z } from 'zod'
import type { JsonValue } from '../define/types.js'
import type { JsonSchema, PlannedTool } from './plan.js'
import { isSchemaObject, mapSchema, walkSchema } from './schema-walk.js'

export type SchemaKind = PlannedTool['schemaKind']

export type CanonicalSchema =
  | { ok: true; schema: JsonSchema; kind: SchemaKind }
  | { ok: false; code: string; message: string; fix: string; kind?: SchemaKind }

const TYPEBOX_KIND = Symbol.for('TypeBox.Kind')
const JSON_TYPES = new Set(['string', 'number', 'integer', 'boolean', 'object', 'array', 'null'])
const DEFS_REF = /^#\/\$defs\/(.+)$/

const WRAP_FIX: Record<SchemaKind, string> = {
  zod: 'Wrap the input in z.object({ ... }): tools take named fields.',
  typebox: 'Wrap the input in Type.Object({ ... }): tools take named fields.',
}

function schemaKind(input: unknown): SchemaKind | 'zod3' | undefined {
  if (typeof input !== 'object' || input === null) return undefined
  if ('_zod' in input) return 'zod'
  if (TYPEBOX_KIND in input) return 'typebox'
  if ('_def' in input && 'safeParse' in input) return 'zod3'
  return undefined
}

function unrepresentable(kind: SchemaKind, reason: string): CanonicalSchema {
  return {
    ok: false,
    kind,
    code: 'tool-schema-unrepresentable',
    message: `The input schema cannot be expressed as JSON Schema: ${reason}.`,
    fix:
      kind === 'zod'
        ? 'Use JSON types for input fields (z.string(), z.number(), z.enum(...), z.array(...), z.object(...); e.g. z.iso.datetime() instead of z.date()); parse or transform inside run.'
        : 'Use JSON types for input fields (Type.String(), Type.Number(), Type.Array(...), Type.Object(...)); convert values inside run.',
  }
}

/** The target of a local `$ref`: a `#/...` JSON Pointer, or the `$id` of a schema in the tree (TypeBox). */
function resolveRef(root: JsonSchema, ref: string, ids: ReadonlyMap<string, JsonSchema>): JsonValue | undefined {
  if (ids.has(ref)) return ids.get(ref)
  if (ref !== '#' && !ref.startsWith('#/')) return undefined
  let node: JsonValue | undefined = root
  for (const raw of ref === '#' ? [] : ref.slice(2).split('/')) {
    const key = raw.replaceAll('~1', '/').replaceAll('~0', '~')
    node = isSchemaObject(node) ? node[key] : Array.isArray(node) ? node[Number(key)] : undefined
  }
  return node
}

function refsIn(schema: JsonSchema): string[] {
  const refs: string[] = []
  walkSchema(schema, (node) => typeof node.$ref === 'string' && refs.push(node.$ref))
  return refs
}

/**
 * Replaces every `$ref` to a `$defs` entry that is not recursive by the entry itself, so the schema
 * is self-contained wherever it can be: only recursion keeps a `$ref`. (zod extracts schemas with a
 * `.meta({ id })` into `$defs`, even at the root.)
 */
function inlineDefinitions(schema: JsonSchema): JsonSchema {
  // Nothing to inline (the schema is the converter's own copy, so it need not be copied again).
  if (!Object.hasOwn(schema, '$defs')) return schema
  const defs = isSchemaObject(schema.$defs) ? schema.$defs : {}
  const defName = (ref: JsonValue | undefined) => (typeof ref === 'string' ? DEFS_REF.exec(ref)?.[1] : undefined)
  const defRefs = (name: string) => {
    const def = defs[name]
    return isSchemaObject(def) ? refsIn(def).map(defName).filter((n) => n !== undefined) : []
  }
  const recursive = new Set<string>()
  for (const name of Object.keys(defs)) {
    const seen = new Set<string>()
    const pending = defRefs(name)
    while (pending.length) {
      const next = pending.pop()!
      if (next === name) recursive.add(name)
      if (!seen.has(next)) {
        seen.add(next)
        pending.push(...defRefs(next))
      }
    }
  }
  const inlined = new Map<string, JsonSchema>()
  const inline = (node: JsonSchema): JsonSchema => {
    const name = defName(node.$ref)
    const def = name === undefined ? undefined : defs[name]
    if (name === undefined || recursive.has(name) || !isSchemaObject(def)) return node
    if (!inlined.has(name)) inlined.set(name, mapSchema(def, inline))
    const { $ref: _ref, ...siblings } = node
    return { ...inlined.get(name)!, ...siblings }
  }
  const { $defs: _defs, ...body } = schema
  const result = mapSchema(body, inline)
  // Keep only the (recursive) definitions still reachable from the schema, themselves inlined.
  const kept = new Map<string, JsonSchema>()
  const pending = refsIn(result).map(defName).filter((n) => n !== undefined)
  while (pending.length) {
    const name = pending.pop()!
    const def = defs[name]
    if (kept.has(name) || !isSchemaObject(def)) continue
    const inlinedDef = mapSchema(def, inline)
    kept.set(name, inlinedDef)
    pending.push(...refsIn(inlinedDef).map(defName).filter((n) => n !== undefined))
  }
  if (kept.size) result.$defs = Object.fromEntries([...kept].sort(([a], [b]) => (a < b ? -1 : 1)))
  return result
}

function fromZod(input: unknown): CanonicalSchema {
  let converted: Record<string, unknown>
  try {
    converted = z.toJSONSchema(input as z.ZodType, { io: 'input', target: 'draft-2020-12', unrepresentable: 'throw' })
  } catch (error) {
    return unrepresentable('zod', (error as Error).message.replace(/\.$/, ''))
  }
  const { $schema: _dialect, ...schema } = converted
  return { ok: true, kind: 'zod', schema: schema as JsonSchema }
}

function fromTypeBox(input: unknown): CanonicalSchema {
  let schema: JsonSchema
  try {
    // TypeBox schemas are JSON Schema plus symbol-keyed metadata, which JSON drops.
    schema = JSON.parse(JSON.stringify(input)) as JsonSchema
  } catch (error) {
    return unrepresentable('typebox', (error as Error).message)
  }
  const problems: string[] = []
  walkSchema(schema, (node, pointer) => {
    if (typeof node.type === 'string' && !JSON_TYPES.has(node.type)) problems.push(`${node.type} at ${pointer || '/'}`)
  })
  if (problems.length) return unrepresentable('typebox', problems.join(', '))
  return { ok: true, kind: 'typebox', schema }
}

/**
 * The one canonical JSON Schema of a tool's input: zod v4 through `z.toJSONSchema` (the input side,
 * draft 2020-12, without `$schema`), TypeBox as the plain JSON it already is. Non-recursive `$defs`
 * are inlined; every remaining `$ref` must resolve inside the schema; the root must be an object.
 */
export function canonicalSchema(input: unknown): CanonicalSchema {
  const kind = schemaKind(input)
  if (kind === 'zod3') {
    return {
      ok: false,
      code: 'tool-schema-unsupported',
      message: 'The input is a zod 3 schema; tools take zod 4 (or TypeBox) schemas.',
      fix: "Upgrade to zod 4 (import { z } from 'zod' with zod@^4, or from 'zod/v4' in zod 3.25).",
    }
  }
  if (kind === undefined) {
    return {
      ok: false,
      code: 'tool-schema-unsupported',
      message: 'The input is neither a zod 4 schema nor a TypeBox schema.',
      fix: "Define input with z.object({ ... }) from 'zod' or Type.Object({ ... }) from '@sinclair/typebox'.",
    }
  }
  const converted = kind === 'zod' ? fromZod(input) : fromTypeBox(input)
  if (!converted.ok) return converted
  const schema = inlineDefinitions(converted.schema)

  const ids = new Map<string, JsonSchema>()
  walkSchema(schema, (node) => typeof node.$id === 'string' && ids.set(node.$id, node))
  const unresolved = refsIn(schema).filter((ref) => resolveRef(schema, ref, ids) === undefined)
  if (unresolved.length) {
    return {
      ok: false,
      kind,
      code: 'tool-schema-unresolved-ref',
      message: `The input schema refers to ${unresolved.map((r) => `"${r}"`).join(', ')}, which it does not contain.`,
      fix: kind === 'typebox' ? 'Use the referenced schema itself instead of Type.Ref(...), or Type.Recursive for recursion.' : 'Use the referenced schema itself instead of a reference.',
    }
  }
  if (schema.type !== 'object') {
    return {
      ok: false,
      kind,
      code: 'tool-input-not-object',
      message: `The input schema is ${typeof schema.type === 'string' ? `of type "${schema.type}"` : 'not an object schema'}; a tool's input must be an object with named fields.`,
      fix: WRAP_FIX[kind],
    }
  }
  return { ok: true, kind, schema }
}
