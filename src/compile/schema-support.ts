import type { Harness } from '../define/types.js'
import type { JsonSchema } from './plan.js'
import { walkSchema } from './schema-walk.js'

/*
 * The one table of JSON Schema constructs that some target cannot express as written, and what that
 * target does with them. Emitter authors: when a tool's schema holds one of these constructs, emit
 * exactly the effect written here for your harness (compile has already warned the user about it, or
 * failed the build); a harness not listed under a construct must express the construct faithfully.
 *
 * Targets and what they read the canonical schema with:
 *  - claude: the MCP server serves the schema as is; Claude reads full JSON Schema. Never listed.
 *  - codex:  the same MCP schema, but Codex keeps only type, description, enum, items, properties,
 *            required, additionalProperties and anyOf (const becomes a one-value enum); a node left
 *            without a type is shown to the model as a string (codex-rs `sanitize_json_schema`).
 *  - opencode: the shim's zod code (opencode's zod 4.1: unions, literals, tuples, intersections and
 *            records are all there); it has no way to refer back to a schema, so no recursion.
 *  - pi:     TypeBox parameters, validated by pi as plain JSON Schema; everything passes through, but
 *            pi's docs warn that Google (Gemini) models reject anyOf/oneOf and const.
 *  - omp:    pi.zod (omptype): string, number, boolean, literal, enum, union, array, object, record,
 *            unknown, any; no recursion, intersection, tuple or key patterns.
 * Only tools with native forms (plan.nativeTools and tool.json) are checked: the bash route runs the
 * tool's own schema and never needs the JSON form.
 */

export type SchemaConstruct = 'recursion' | 'exclusive-union' | 'union' | 'intersection' | 'const' | 'pattern-properties' | 'tuple'

export interface ConstructEffect {
  /** `error` where the target would show the model a wrong type; `warning` where it loosens or passes it through. */
  severity: 'error' | 'warning'
  /** What the target does with the construct (the emitter does exactly this). */
  effect: string
  /** Only nodes for which this holds are affected (default: every node with the construct). */
  when?: (node: JsonSchema) => boolean
}

export interface ConstructRule {
  construct: SchemaConstruct
  /** The construct as the user wrote it, for messages. */
  label: string
  matches: (node: JsonSchema) => boolean
  targets: Partial<Record<Harness, ConstructEffect>>
  fix: string
}

const STILL_VALIDATES = 'the tool script still validates the real schema'
const untyped = (node: JsonSchema) => node.type === undefined
const KEEP_ON_BASH = 'or set json: false on the tool to keep it on the bash route'

export const SCHEMA_SUPPORT: readonly ConstructRule[] = [
  {
    construct: 'recursion',
    label: 'a recursive schema ($ref)',
    matches: (node) => typeof node.$ref === 'string',
    targets: {
      codex: { severity: 'error', effect: 'Codex does not follow $ref and shows the model a plain string in its place' },
      opencode: { severity: 'warning', effect: `the opencode shim types the recursive field as unknown (z.unknown(); ${STILL_VALIDATES})` },
      kilo: { severity: 'warning', effect: `the Kilo shim types the recursive field as unknown (z.unknown(); ${STILL_VALIDATES})` },
      omp: { severity: 'warning', effect: `the omp tool types the recursive field as unknown (pi.zod.unknown(); ${STILL_VALIDATES})` },
    },
    fix: `Flatten the recursive part (e.g. to a fixed depth), ${KEEP_ON_BASH}.`,
  },
  {
    construct: 'exclusive-union',
    label: 'an exclusive union (oneOf: z.discriminatedUnion, z.xor)',
    matches: (node) => Array.isArray(node.oneOf),
    targets: {
      codex: { severity: 'error', effect: 'Codex drops oneOf and shows the model a plain string there', when: untyped },
      pi: { severity: 'warning', effect: 'pi passes oneOf to the model as is, and Google (Gemini) models reject it' },
    },
    fix: `Use an inclusive union (z.union([...]) / Type.Union([...]), which Codex reads), ${KEEP_ON_BASH}.`,
  },
  {
    construct: 'union',
    label: 'a union (anyOf)',
    matches: (node) => Array.isArray(node.anyOf),
    targets: {
      pi: { severity: 'warning', effect: 'pi passes anyOf to the model as is, and Google (Gemini) models reject it' },
    },
    fix: 'Where the choices are strings, use z.enum([...]) (a string enum) instead; otherwise this matters only with Google models.',
  },
  {
    construct: 'intersection',
    label: 'an intersection (allOf without a type of its own)',
    matches: (node) => Array.isArray(node.allOf) && untyped(node),
    targets: {
      codex: { severity: 'error', effect: 'Codex drops allOf and shows the model a plain string there' },
      omp: { severity: 'warning', effect: `the omp tool types the field as unknown (pi.zod has no intersection; ${STILL_VALIDATES})` },
    },
    fix: `Merge the parts into one object (z.object({ ...a.shape, ...b.shape }) / Type.Composite([...])), ${KEEP_ON_BASH}.`,
  },
  {
    construct: 'const',
    label: 'a constant (const: z.literal, Type.Literal)',
    matches: (node) => node.const !== undefined,
    targets: {
      pi: { severity: 'warning', effect: 'pi passes const to the model as is, and Google (Gemini) models reject it' },
    },
    fix: "Use a one-value string enum (z.enum(['value'])) where Google models matter.",
  },
  {
    construct: 'pattern-properties',
    label: 'keys matched by pattern (patternProperties: z.looseRecord)',
    matches: (node) => typeof node.patternProperties === 'object' && node.patternProperties !== null,
    targets: {
      codex: { severity: 'warning', effect: `Codex drops patternProperties: the model sees an object without those keys described (${STILL_VALIDATES})` },
      omp: { severity: 'warning', effect: `the omp tool takes a record of any keys there (pi.zod.record has no key pattern; ${STILL_VALIDATES})` },
    },
    fix: 'Use z.record(z.string(), ...) (or named properties) instead of a key pattern.',
  },
  {
    construct: 'tuple',
    label: 'a tuple (prefixItems: z.tuple, Type.Tuple)',
    matches: (node) => Array.isArray(node.prefixItems),
    targets: {
      codex: { severity: 'error', effect: 'Codex drops prefixItems and shows the model an array of its `items` (strings when the tuple has no rest element)' },
      omp: { severity: 'warning', effect: `the omp tool takes an array of unknown values (pi.zod has no tuple; ${STILL_VALIDATES})` },
    },
    fix: `Use an object with named fields instead of a tuple, ${KEEP_ON_BASH}.`,
  },
]

export interface SchemaLimitation {
  rule: ConstructRule
  harness: Harness
  effect: ConstructEffect
  /** JSON Pointers (from the schema root) of every affected node. */
  pointers: string[]
}

/** Every construct in `schema` that one of `harnesses` cannot express as written, one entry per construct and harness. */
export function schemaLimitations(schema: JsonSchema, harnesses: readonly Harness[]): SchemaLimitation[] {
  const found: SchemaLimitation[] = []
  // One walk for every rule and harness: the walk (pointers included) cost more than the rules.
  const nodes: Array<{ node: JsonSchema; pointer: string }> = []
  walkSchema(schema, (node, pointer) => nodes.push({ node, pointer: pointer || '/' }))
  for (const rule of SCHEMA_SUPPORT) {
    for (const harness of harnesses) {
      const effect = rule.targets[harness]
      if (!effect) continue
      const pointers = nodes.filter(({ node }) => rule.matches(node) && (effect.when?.(node) ?? true)).map(({ pointer }) => pointer)
      if (pointers.length) found.push({ rule, harness, effect, pointers })
    }
  }
  return found
}
