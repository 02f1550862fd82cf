import type { JsonValue } from '../define/types.js'
import type { DiagnosticCode } from '../diagnostic-codes.js'
import { isZodVersion, type ZodCopy, type ZodVersion } from '../load/zod-copy.js'
import type { JsonSchema, PlannedTool } from './plan.js'
import { isSchemaObject, mapSchema, walkSchema } from './schema-walk.js'

export type SchemaKind = PlannedTool['schemaKind']
export type SchemaPackage = PlannedTool['schemaPackage']

export type CanonicalSchema =
  | { ok: true; schema: JsonSchema; kind: SchemaKind; package: SchemaPackage }
  | { ok: false; code: DiagnosticCode; message: string; fix: string; kind?: SchemaKind }

/** TypeBox 0.34 (`@sinclair/typebox`) marks its schemas with this symbol; TypeBox 1.x (`typebox`) with a hidden `~kind`. */
const TYPEBOX_0_KIND = Symbol.for('TypeBox.Kind')
const TYPEBOX_1_KIND = '~kind'
const JSON_TYPES = new Set(['string', 'number', 'integer', 'boolean', 'object', 'array', 'null'])
const DEFS_REF = /^#\/\$defs\/(.+)$/

const WRAP_FIX: Record<SchemaKind, string> = {
  zod: 'Wrap the input in z.object({ ... }): tools take named fields.',
  typebox: 'Wrap the input in Type.Object({ ... }): tools take named fields.',
}

function schemaPackage(input: unknown): SchemaPackage | 'zod3' | undefined {
  if (typeof input !== 'object' || input === null) return undefined
  if ('_zod' in input) return 'zod'
  if (TYPEBOX_0_KIND in input) return '@sinclair/typebox'
  if (typeof (input as { [TYPEBOX_1_KIND]?: unknown })[TYPEBOX_1_KIND] === 'string') return 'typebox'
  if ('_def' in input && 'safeParse' in input) return 'zod3'
  return undefined
}

/** Which of a tool's schemas is converted: its input, or the value `run` returns. */
export type SchemaSide = 'input' | 'output'

function unrepresentable(kind: SchemaKind, reason: string, side: SchemaSide): CanonicalSchema {
  const where = side === 'input' ? 'parse or transform inside run' : 'return JSON values from run'
  return {
    ok: false,
    kind,
    code: 'tool-schema-unrepresentable',
    message: `The ${side} schema cannot be expressed as JSON Schema: ${reason}.`,
    fix:
      kind === 'zod'
        ? `Use JSON types for ${side} fields (z.string(), z.number(), z.enum(...), z.array(...), z.object(...); e.g. z.iso.datetime() instead of z.date()); ${where}.`
        : `Use JSON types for ${side} fields (Type.String(), Type.Number(), Type.Array(...), Type.Object(...)); ${side === 'input' ? 'convert values inside run' : where}.`,
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

const zodParams = (side: SchemaSide) => ({ io: side, target: 'draft-2020-12', unrepresentable: 'throw' }) as const

const versionText = (version: ZodVersion) => `${version.major}.${version.minor}.${version.patch}`

/**
 * Converts with the copy of zod the schema was made with: zod keeps descriptions and other
 * metadata in a registry per copy, so another copy's converter would drop them without a word.
 * zod 4.2 and later give each (classic) schema its own `toJSONSchema`; before that, the copy the
 * registry module imported is used when it is the schema's version.
 */
function fromZod(input: object, zod: ZodCopy | undefined, side: SchemaSide): CanonicalSchema {
  const own = (input as { toJSONSchema?: unknown }).toJSONSchema
  const made = (input as { _zod?: { version?: unknown } })._zod?.version
  const params = zodParams(side)
  let convert: (() => Record<string, unknown>) | undefined
  if (typeof own === 'function') convert = () => (own as (params: ReturnType<typeof zodParams>) => Record<string, unknown>).call(input, params)
  else if (zod && isZodVersion(made) && versionText(made) === versionText(zod.version)) convert = () => zod.toJSONSchema(input, params)
  if (!convert) {
    const schemaVersion = isZodVersion(made) ? `zod ${versionText(made)}` : 'a zod copy of unknown version'
    return {
      ok: false,
      kind: 'zod',
      code: 'tool-schema-zod-copy',
      message: zod
        ? `The ${side} schema was made with ${schemaVersion}, but the project's zod is ${versionText(zod.version)} (${zod.location}): only the copy that made a schema can read its descriptions and defaults.`
        : `The ${side} schema was made with ${schemaVersion}, which the project does not resolve as "zod": only the copy that made a schema can read its descriptions and defaults.`,
      fix: 'Install one copy of zod in the project (`npm ls zod` lists every copy; `npm dedupe`, or one version in package.json), and import zod from there.',
    }
  }
  let converted: Record<string, unknown>
  try {
    converted = convert()
  } catch (error) {
    return unrepresentable('zod', (error as Error).message.replace(/\.$/, ''), side)
  }
  const { $schema: _dialect, ...schema } = converted
  return { ok: true, kind: 'zod', package: 'zod', schema: schema as JsonSchema }
}

/**
 * TypeBox fills in a missing property that has a default (the script applies `Value.Default` before
 * checking, see runtime/check-typebox.ts), so for a caller the property is optional whatever
 * `required` says: the input side lists only properties without one, as zod's `io: 'input'` does.
 */
function defaultedNotRequired(node: JsonSchema): JsonSchema {
  if (!Array.isArray(node.required) || !isSchemaObject(node.properties)) return node
  const properties = node.properties
  const required = node.required.filter((name) => {
    const property = typeof name === 'string' && Object.hasOwn(properties, name) ? properties[name] : undefined
    return !(isSchemaObject(property) && property.default !== undefined)
  })
  if (required.length === node.required.length) return node
  const { required: _required, ...rest } = node
  return required.length ? { ...rest, required } : rest
}

function fromTypeBox(input: unknown, pkg: 'typebox' | '@sinclair/typebox', side: SchemaSide): CanonicalSchema {
  let schema: JsonSchema
  try {
    // TypeBox schemas are JSON Schema plus symbol-keyed metadata, which JSON drops.
    schema = JSON.parse(JSON.stringify(input)) as JsonSchema
  } catch (error) {
    return unrepresentable('typebox', (error as Error).message, side)
  }
  const problems: string[] = []
  walkSchema(schema, (node, pointer) => {
    if (typeof node.type === 'string' && !JSON_TYPES.has(node.type)) problems.push(`${node.type} at ${pointer || '/'}`)
  })
  if (problems.length) return unrepresentable('typebox', problems.join(', '), side)
  // What `run` returns has its defaults filled in before it leaves the tool: there they stay required.
  return { ok: true, kind: 'typebox', package: pkg, schema: side === 'input' ? mapSchema(schema, defaultedNotRequired) : schema }
}

/**
 * zod's `.int()` bounds every integer by the safe-integer limits; as schema text they say nothing a
 * model needs (the script's own schema still rejects unsafe integers), so they are left out.
 */
function withoutSafeIntegerBounds(node: JsonSchema): JsonSchema {
  if (node.minimum !== Number.MIN_SAFE_INTEGER && node.maximum !== Number.MAX_SAFE_INTEGER) return node
  const copy = { ...node }
  if (copy.minimum === Number.MIN_SAFE_INTEGER) delete copy.minimum
  if (copy.maximum === Number.MAX_SAFE_INTEGER) delete copy.maximum
  return copy
}

/**
 * The one canonical JSON Schema of a tool's input: zod v4 through its own copy's `toJSONSchema` (the
 * input side, draft 2020-12, without `$schema`; `zod` is the project's copy, for schemas that cannot
 * convert themselves), TypeBox 1.x and 0.34 as the plain JSON they already are, with defaulted
 * properties optional. Non-recursive `$defs` are inlined; every remaining `$ref` must resolve inside
 * the schema; the root must be an object; the safe-integer bounds of zod's `.int()` are left out.
 *
 * With `side` 'output', the schema of the value `run` returns, the same way but for its other side:
 * zod's output side, TypeBox defaults filled in (so required), and any root (a list, a string).
 */
export function canonicalSchema(input: unknown, zod?: ZodCopy, side: SchemaSide = 'input'): CanonicalSchema {
  const pkg = schemaPackage(input)
  if (pkg === 'zod3') {
    return {
      ok: false,
      code: 'tool-schema-unsupported',
      message: `The ${side} is a zod 3 schema; tools take zod 4 (or TypeBox) schemas.`,
      fix: "Upgrade to zod 4 (zod@^4 in package.json, import { z } from 'zod').",
    }
  }
  if (pkg === undefined) {
    return {
      ok: false,
      code: 'tool-schema-unsupported',
      message: `The ${side} is neither a zod 4 schema nor a TypeBox schema.`,
      fix:
        side === 'input'
          ? "Define input with z.object({ ... }) from 'zod', or Type.Object({ ... }) from 'typebox' (TypeBox 1.x) or '@sinclair/typebox' (0.34)."
          : "Define output with a schema from 'zod' (z.object({ ... }), z.array(...)), or from 'typebox' (TypeBox 1.x) or '@sinclair/typebox' (0.34).",
    }
  }
  const converted = pkg === 'zod' ? fromZod(input as object, zod, side) : fromTypeBox(input, pkg, side)
  if (!converted.ok) return converted
  const kind = converted.kind
  const schema = mapSchema(inlineDefinitions(converted.schema), withoutSafeIntegerBounds)

  const ids = new Map<string, JsonSchema>()
  walkSchema(schema, (node) => typeof node.$id === 'string' && ids.set(node.$id, node))
  const unresolved = refsIn(schema).filter((ref) => resolveRef(schema, ref, ids) === undefined)
  if (unresolved.length) {
    return {
      ok: false,
      kind,
      code: 'tool-schema-unresolved-ref',
      message: `The ${side} schema refers to ${unresolved.map((r) => `"${r}"`).join(', ')}, which it does not contain.`,
      fix: kind === 'typebox' ? 'Use the referenced schema itself instead of Type.Ref(...), or Type.Recursive for recursion.' : 'Use the referenced schema itself instead of a reference.',
    }
  }
  if (side === 'input' && schema.type !== 'object') {
    return {
      ok: false,
      kind,
      code: 'tool-input-not-object',
      message: `The input schema is ${typeof schema.type === 'string' ? `of type "${schema.type}"` : 'not an object schema'}; a tool's input must be an object with named fields.`,
      fix: WRAP_FIX[kind],
    }
  }
  return { ok: true, kind, package: converted.package, schema }
}
