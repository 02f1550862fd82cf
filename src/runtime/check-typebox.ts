import type { TSchema } from 'typebox'
import { Value } from 'typebox/value'
import { describeSchema, describeValue, formatPath, lowerFirst, pointerToPath, valueAt } from './describe.js'
import type { InputCheck } from './invoke.js'

/** The schema node a `schemaPath` (`#/properties/a/items`) of a TypeBox 1.x error points at. */
function schemaAt(root: unknown, schemaPath: string): unknown {
  return valueAt(root, pointerToPath(schemaPath.replace(/^#/, '')))
}

/**
 * Checks of TypeBox 1.x tools' input and output (`typebox`), with its own Value module. Its errors are
 * JSON Schema style (keyword, instancePath, schemaPath); each field gets one problem, worded as the
 * other checks word theirs: a union as the choices it allows, a missing property as what it expects.
 */
export const checkInput: InputCheck = async (toolSchema, input, subject = 'input') => {
  const schema = toolSchema as TSchema
  // Defaults declared in the schema are part of the contract (`--help` shows them), so apply them as zod does.
  const value = Value.Default(schema, Value.Clone(input))
  if (Value.Check(schema, value)) return { ok: true, value }
  const problems = new Map<string, string>()
  const errors = [...Value.Errors(schema, value)]
  // A union's branches each report their own failure before the union does: the union's wording wins.
  const unions = new Map(errors.filter((e) => e.keyword === 'anyOf' || e.keyword === 'oneOf').map((e) => [e.instancePath, e]))
  for (const error of errors) {
    const path = pointerToPath(error.instancePath)
    if (error.keyword === 'required') {
      const node = schemaAt(schema, error.schemaPath) as { properties?: Record<string, unknown> } | undefined
      const missing = (error.params as { requiredProperties?: unknown }).requiredProperties
      for (const name of Array.isArray(missing) ? missing.map(String) : []) {
        const where = formatPath([...path, name], subject)
        if (!problems.has(where)) problems.set(where, `${where}: missing (expected ${describeSchema(node?.properties?.[name])})`)
      }
      continue
    }
    const where = formatPath(path, subject)
    if (problems.has(where)) continue
    const union = unions.get(error.instancePath)
    const got = describeValue(valueAt(value, path))
    problems.set(
      where,
      union ? `${where}: expected ${describeSchema(schemaAt(schema, union.schemaPath))}, got ${got}` : `${where}: ${lowerFirst(error.message)}, got ${got}`,
    )
  }
  return { ok: false, problems: [...problems.values()] }
}
