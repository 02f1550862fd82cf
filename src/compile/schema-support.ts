import { type Harness, HARNESSES } from '../define/types.js'
import { type ConstructEffect, harness, type SchemaConstruct } from './harnesses/index.js'
import type { JsonSchema } from './plan.js'
import { walkSchema } from './schema-walk.js'

/*
 * The one table of JSON Schema constructs that some target cannot express as written. What each
 * harness does with a construct is in its description (`schemaLimits`, src/compile/harnesses/<id>.ts)
 * and is joined in here as the rule's `targets`. Emitter authors: when a tool's schema holds one of
 * these constructs, emit exactly the effect written there for your harness (compile has already
 * warned the user about it, or failed the build); a harness that lists no effect for a construct
 * must express it faithfully.
 *
 * Only tools with native forms (plan.nativeTools and tool.json) are checked: the bash route runs the
 * tool's own schema and never needs the JSON form.
 */

export type { ConstructEffect, SchemaConstruct } from './harnesses/index.js'

export interface ConstructRule {
  construct: SchemaConstruct
  /** The construct as the user wrote it, for messages. */
  label: string
  matches: (node: JsonSchema) => boolean
  /** What each harness that cannot express the construct does with it, from the harness descriptions. */
  targets: Partial<Record<Harness, ConstructEffect>>
  fix: string
}

const untyped = (node: JsonSchema) => node.type === undefined
const KEEP_ON_BASH = 'or set json: false on the tool to keep it on the bash route'

/** Each harness's effect for `construct`, from its description. */
function targetsOf(construct: SchemaConstruct): Partial<Record<Harness, ConstructEffect>> {
  const targets: Partial<Record<Harness, ConstructEffect>> = {}
  for (const id of HARNESSES) {
    const effect = harness(id).schemaLimits[construct]
    if (effect) targets[id] = effect
  }
  return targets
}

export const SCHEMA_SUPPORT: readonly ConstructRule[] = [
  {
    construct: 'recursion',
    label: 'a recursive schema ($ref)',
    matches: (node) => typeof node.$ref === 'string',
    targets: targetsOf('recursion'),
    fix: `Flatten the recursive part (e.g. to a fixed depth), ${KEEP_ON_BASH}.`,
  },
  {
    construct: 'exclusive-union',
    label: 'an exclusive union (oneOf: z.discriminatedUnion, z.xor)',
    matches: (node) => Array.isArray(node.oneOf),
    targets: targetsOf('exclusive-union'),
    fix: `Use an inclusive union (z.union([...]) / Type.Union([...]), which Codex reads), ${KEEP_ON_BASH}.`,
  },
  {
    construct: 'union',
    label: 'a union (anyOf)',
    matches: (node) => Array.isArray(node.anyOf),
    targets: targetsOf('union'),
    fix: 'Where the choices are strings, use z.enum([...]) (a string enum) instead; otherwise this matters only with Google models.',
  },
  {
    construct: 'intersection',
    label: 'an intersection (allOf without a type of its own)',
    matches: (node) => Array.isArray(node.allOf) && untyped(node),
    targets: targetsOf('intersection'),
    fix: `Merge the parts into one object (z.object({ ...a.shape, ...b.shape }) / Type.Composite([...])), ${KEEP_ON_BASH}.`,
  },
  {
    construct: 'const',
    label: 'a constant (const: z.literal, Type.Literal)',
    matches: (node) => node.const !== undefined,
    targets: targetsOf('const'),
    fix: "Use a one-value string enum (z.enum(['value'])) where Google models matter.",
  },
  {
    construct: 'pattern-properties',
    label: 'keys matched by pattern (patternProperties: z.looseRecord)',
    matches: (node) => typeof node.patternProperties === 'object' && node.patternProperties !== null,
    targets: targetsOf('pattern-properties'),
    fix: 'Use z.record(z.string(), ...) (or named properties) instead of a key pattern.',
  },
  {
    construct: 'tuple',
    label: 'a tuple (prefixItems: z.tuple, Type.Tuple)',
    matches: (node) => Array.isArray(node.prefixItems),
    targets: targetsOf('tuple'),
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
    for (const id of harnesses) {
      const effect = rule.targets[id]
      if (!effect) continue
      const pointers = nodes.filter(({ node }) => rule.matches(node) && (effect.when?.(node) ?? true)).map(({ pointer }) => pointer)
      if (pointers.length) found.push({ rule, harness: id, effect, pointers })
    }
  }
  return found
}
