import fc from 'fast-check'
import { z } from 'zod'
import { describe, expect, it } from 'vitest'
import type { JsonSchema } from '../../src/compile/plan.js'
import { canonicalSchema } from '../../src/compile/schema.js'
import type { JsonValue } from '../../src/define/types.js'
import { typeboxCode } from '../../src/emit/codegen/typebox-code.js'
import { zodGaps, zodSchemaCode, zodShapeCode } from '../../src/emit/codegen/zod-code.js'
import { typebox1Inputs, typeboxInputs, zodInputs } from '../fixtures/native-schemas/schemas.js'
import { fixturePlan } from './fixture.js'
import { normalizeSchema, opencodeArgsSchema, typeboxSchema } from './schema-tools.js'

function canonical(input: unknown): JsonSchema {
  const result = canonicalSchema(input)
  if (!result.ok) throw new Error(result.message)
  return result.schema
}

const fixtureSchemas: Array<[string, JsonSchema]> = [
  ...Object.entries(zodInputs).map(([name, input]) => [`zod ${name}`, canonical(input)] as [string, JsonSchema]),
  ...Object.entries(typeboxInputs).map(([name, input]) => [`typebox ${name}`, canonical(input)] as [string, JsonSchema]),
  ...Object.entries(typebox1Inputs).map(([name, input]) => [`typebox 1.x ${name}`, canonical(input)] as [string, JsonSchema]),
]

describe('canonical schemas of TypeBox 1.x inputs', () => {
  it('list a field with a default as optional, at every depth', () => {
    const note = canonical(typebox1Inputs.note)
    expect(note.required).toEqual(['title', 'kind'])
    const open = canonical(typebox1Inputs.open) as { properties: { nested: { properties: { deep: { items: { required: string[] } } } } } }
    expect(open.properties.nested.properties.deep.items.required).toEqual(['x'])
  })
})

/** The canonical schema without the root keywords opencode's argument shape cannot carry (reported as gaps). */
function shapeExpressible(schema: JsonSchema): JsonSchema {
  const rootGaps = new Set(zodGaps(schema, 'zod4', 'shape').filter((gap) => gap.path === '/').map((gap) => gap.keyword))
  return Object.fromEntries(Object.entries(schema).filter(([key]) => !rootGaps.has(key)))
}

describe('zod code for opencode', () => {
  it.each(fixtureSchemas)('%s: as opencode converts it (tool.schema = zod 4.1.8), the same JSON Schema', (_name, schema) => {
    expect(normalizeSchema(opencodeArgsSchema(schema))).toEqual(normalizeSchema(shapeExpressible(schema)))
  })

  it.each(fixtureSchemas.filter(([name]) => name.startsWith('zod')))(
    '%s: built and converted with zod 4.6.7 (compile\'s), exactly the canonical schema',
    (_name, schema) => {
      expect(opencodeArgsSchema(schema, z)).toEqual(schema)
    },
  )

  it('reports no gaps for fixture schemas whose root holds only properties', () => {
    for (const [name, schema] of fixtureSchemas) {
      const gaps = zodGaps(schema, 'zod4', 'shape').filter((gap) => gap.path !== '/')
      expect(gaps, name).toEqual([])
    }
  })

  it('reports root keywords the argument shape cannot carry', () => {
    const schema = { type: 'object', description: 'root', properties: { a: { type: 'string' } }, additionalProperties: false }
    expect(zodGaps(schema, 'zod4', 'shape').map((gap) => gap.keyword).sort()).toEqual(['additionalProperties', 'description'])
  })

  it('types a recursive field as unknown and drops the definitions', () => {
    const Tree: z.ZodType = z.object({ name: z.string(), get children() { return z.array(Tree) } })
    const schema = canonical(z.object({ tree: Tree, label: z.string() }))
    expect(JSON.stringify(schema)).toContain('$ref')
    const { code, gaps } = zodShapeCode(schema, { z: 'z', dialect: 'zod4' })
    expect(code).not.toContain('$ref')
    expect(gaps.map((gap) => gap.keyword)).toContain('$ref')
    expect(opencodeArgsSchema(schema).properties).toEqual({ tree: {}, label: { type: 'string' } })
  })
})

describe('TypeBox code for pi', () => {
  it.each(fixtureSchemas)('%s: TypeBox 1.x (pi\'s) builds exactly the canonical schema', (_name, schema) => {
    expect(typeboxSchema(schema, '1')).toEqual(schema)
  })

  it.each(fixtureSchemas)('%s: TypeBox 0.34 builds exactly the canonical schema', (_name, schema) => {
    expect(typeboxSchema(schema, '0.34')).toEqual(schema)
  })

  it('writes string enums as plain schemas, not unions of literals', () => {
    const code = typeboxCode(canonical(z.object({ unit: z.enum(['c', 'f']) })))
    expect(code).toContain('unit: Type.Unsafe({ type: "string", enum: ["c", "f"] })')
    expect(code).not.toContain('Union')
  })
})

describe('pi.zod code for oh-my-pi', () => {
  it('uses only builders pi.zod has and lists what it leaves out', () => {
    const schema = canonical(zodInputs.strings!)
    const { code, gaps } = zodSchemaCode(schema, { z: 'z', dialect: 'omptype' })
    expect(code).not.toMatch(/\.meta\(|z\.email|z\.int\(|\.gt\(|\.lt\(|z\.literal\(\[/)
    expect(gaps.map((gap) => `${gap.path} ${gap.keyword}`).sort()).toEqual([
      '/properties/code pattern',
      '/properties/day format',
      '/properties/day pattern',
      '/properties/email format',
      '/properties/email pattern',
      '/properties/ip format',
      '/properties/ip pattern',
      '/properties/uuid format',
      '/properties/uuid pattern',
      '/properties/when format',
      '/properties/when pattern',
    ])
  })

  it('has no gaps for the common subset', async () => {
    const plan = await fixturePlan()
    const count = plan.tools.find((tool) => tool.name === 'count')!
    expect(zodGaps(count.schema, 'omptype', 'object')).toEqual([])
  })
})

/*
 * Property tests: random JSON Schemas in the canonical form compile produces (zod 4's
 * toJSONSchema conventions) go through the generated code and come back the same.
 */
const tricky = fc.constantFrom('', 'plain', 'quote " and \' and `', '${x} */ // <!-- -->', 'line\nbreak\r\n', '\u2028\u2029 separators', 'back\\slash', 'ünïcödé 🎉')
const text = fc.oneof(tricky, fc.string({ maxLength: 12 }))
const patterns = fc.constantFrom('^[a-z]+$', '\\d{3}', '^(?:a|b)*$', '[\\\\/"\']', '^\\p{L}+$')
const finite = fc.oneof(fc.integer({ min: -1000, max: 1000 }), fc.double({ min: -1e6, max: 1e6, noNaN: true, noDefaultInfinity: true })).map((n) => (Object.is(n, -0) ? 0 : n))
const positive = fc.oneof(fc.integer({ min: 1, max: 100 }), fc.constantFrom(0.5, 0.25, 2.5))

function withAnnotations(schema: fc.Arbitrary<Record<string, JsonValue>>): fc.Arbitrary<Record<string, JsonValue>> {
  return fc
    .tuple(schema, fc.option(text, { nil: undefined }), fc.option(text, { nil: undefined }), fc.option(fc.array(text, { maxLength: 2 }), { nil: undefined }))
    .map(([node, description, title, examples]) => ({
      ...node,
      ...(description !== undefined ? { description } : {}),
      ...(title !== undefined ? { title } : {}),
      ...(examples !== undefined ? { examples } : {}),
    }))
}

function optionalFields(fields: Record<string, fc.Arbitrary<JsonValue>>): fc.Arbitrary<Record<string, JsonValue>> {
  return fc.record(fields, { requiredKeys: [] }) as fc.Arbitrary<Record<string, JsonValue>>
}

// Contradictory bounds (maxLength < minLength) are left out: zod 4.1 refuses to build them at all.
const lengths = fc.tuple(fc.option(fc.nat(10), { nil: undefined }), fc.option(fc.nat(50), { nil: undefined })).map(([min, extra]) => ({
  ...(min !== undefined ? { minLength: min } : {}),
  ...(extra !== undefined ? { maxLength: (min ?? 0) + extra } : {}),
}))
const stringSchema = fc
  .tuple(
    lengths,
    fc.oneof(
      fc.constant({}),
      patterns.map((pattern) => ({ pattern })),
      fc.constantFrom('uri', 'date-time', 'uuid', 'hostname').map((format) => ({ format })),
      fc.tuple(fc.constantFrom('email', 'date'), patterns).map(([format, pattern]) => ({ format, pattern })),
    ),
  )
  .map(([bounds, extra]) => ({ type: 'string', ...bounds, ...extra }) as Record<string, JsonValue>)

const numberSchema = fc
  .tuple(
    fc.constantFrom('number', 'integer'),
    fc.oneof(fc.constant({}), finite.map((minimum) => ({ minimum })), finite.map((exclusiveMinimum) => ({ exclusiveMinimum }))),
    fc.oneof(fc.constant({}), finite.map((maximum) => ({ maximum })), finite.map((exclusiveMaximum) => ({ exclusiveMaximum }))),
    optionalFields({ multipleOf: positive }),
  )
  .map(([type, low, high, step]) => {
    const schema: Record<string, JsonValue> = { type, ...low, ...high, ...step }
    // zod writes integer bounds inside the safe range, as compile's canonical schemas hold them.
    if (type === 'integer') {
      for (const key of ['minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum'] as const) {
        if (typeof schema[key] === 'number') schema[key] = Math.round(schema[key] as number) || 0
      }
    }
    return schema
  })

const scalarValues = fc.oneof(fc.string({ maxLength: 6 }), fc.integer({ min: -5, max: 5 }), fc.boolean(), fc.constant(null))
const enumSchema = fc.oneof(
  fc.uniqueArray(text, { minLength: 1, maxLength: 4 }).map((values) => ({ type: 'string', enum: values }) as Record<string, JsonValue>),
  fc.uniqueArray(fc.integer({ min: -9, max: 9 }), { minLength: 2, maxLength: 4 }).map((values) => ({ type: 'number', enum: values }) as Record<string, JsonValue>),
  fc.tuple(fc.string({ maxLength: 4 }), fc.integer(), fc.constant(null)).map((values) => ({ enum: values }) as Record<string, JsonValue>),
  scalarValues.map((value) => ({ type: value === null ? 'null' : typeof value === 'number' ? 'number' : typeof value, const: value }) as Record<string, JsonValue>),
)
const leaf = fc.oneof(
  stringSchema,
  numberSchema,
  fc.constant({ type: 'boolean' }),
  fc.constant({ type: 'null' }),
  fc.constant({}),
  enumSchema,
)

const propertyName = fc.oneof(fc.constantFrom('a', 'b_c', 'with space', 'quote"', 'new\nline', '$dollar', '0digit', 'type', 'anyOf', 'required'), fc.string({ minLength: 1, maxLength: 8 })).filter((key) => key !== '__proto__')

const { schema: schemaArbitrary } = fc.letrec<{ schema: Record<string, JsonValue>; object: Record<string, JsonValue> }>((tie) => ({
  schema: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    withAnnotations(leaf),
    withAnnotations(
      fc.tuple(tie('schema'), optionalFields({ minItems: fc.nat(3), maxItems: fc.integer({ min: 3, max: 9 }) })).map(([items, bounds]) => ({ type: 'array', items, ...bounds })),
    ),
    withAnnotations(tie('object')),
    withAnnotations(fc.array(tie('schema'), { minLength: 2, maxLength: 3 }).map((anyOf) => ({ anyOf }))),
    withAnnotations(tie('schema').map((inner) => ({ anyOf: [inner, { type: 'null' }] }))),
  ),
  object: fc
    .tuple(
      fc.uniqueArray(fc.tuple(propertyName, tie('schema'), fc.boolean(), fc.option(scalarValues, { nil: undefined })), { maxLength: 4, selector: ([key]) => key }),
      fc.oneof(fc.constant(undefined), fc.constant(false), tie('schema')),
    )
    .map(([fields, additional]) => {
      const properties: Record<string, JsonValue> = {}
      for (const [key, schema, isRequired, defaultValue] of fields) {
        properties[key] = !isRequired && defaultValue !== undefined ? { ...schema, default: defaultValue } : schema
      }
      // In key order, as zod and TypeBox list them (integer-like keys come first in JS objects).
      const required = Object.keys(properties).filter((key) => fields.some(([name, , isRequired]) => name === key && isRequired))
      return {
        type: 'object',
        properties,
        ...(required.length > 0 ? { required } : {}),
        ...(additional !== undefined ? { additionalProperties: additional } : {}),
      }
    }),
}))

const rootArbitrary = fc
  .uniqueArray(fc.tuple(propertyName, schemaArbitrary, fc.boolean()), { maxLength: 5, selector: ([key]) => key })
  .map((fields) => {
    const properties = Object.fromEntries(fields.map(([key, schema]) => [key, schema]))
    const required = Object.keys(properties).filter((key) => fields.some(([name, , isRequired]) => name === key && isRequired))
    return {
      type: 'object',
      properties,
      ...(required.length > 0 ? { required } : {}),
    } as JsonSchema
  })

describe('property: generated code gives back the schema it came from', () => {
  it('zod code, as opencode converts it', () => {
    fc.assert(
      fc.property(rootArbitrary, (schema) => {
        expect(normalizeSchema(opencodeArgsSchema(schema))).toEqual(normalizeSchema(schema))
        expect(normalizeSchema(opencodeArgsSchema(schema, z))).toEqual(normalizeSchema(schema))
      }),
      { numRuns: 300 },
    )
  })

  it('TypeBox code, with TypeBox 1.x and 0.34', () => {
    fc.assert(
      fc.property(rootArbitrary, (schema) => {
        expect(typeboxSchema(schema, '1')).toEqual(schema)
        expect(typeboxSchema(schema, '0.34')).toEqual(schema)
      }),
      { numRuns: 300 },
    )
  })
})
