import type { TSchema } from '@sinclair/typebox'
import { Value, ValueErrorType } from '@sinclair/typebox/value'
import { describeSchema, describeValue, formatPath, lowerFirst, pointerToPath } from './describe.js'
import type { InputCheck } from './invoke.js'

/** Checks of TypeBox 0.34 tools' input and output (`@sinclair/typebox`), with its own Value module. */
export const checkInput: InputCheck = async (toolSchema, input, subject = 'input') => {
  const schema = toolSchema as TSchema
  // Defaults declared in the schema are part of the contract (`--help` shows them), so apply them as zod does.
  const value = Value.Default(schema, Value.Clone(input))
  if (Value.Check(schema, value)) return { ok: true, value }
  const problems = new Map<string, string>()
  for (const error of Value.Errors(schema, value)) {
    const where = formatPath(pointerToPath(error.path), subject)
    // TypeBox reports several errors per field (e.g. "required property" then "string"): the first says it best.
    if (problems.has(where)) continue
    let problem: string
    if (error.value === undefined) problem = `missing (expected ${describeSchema(error.schema)})`
    else if (error.type === ValueErrorType.Union) problem = `expected ${describeSchema(error.schema)}, got ${describeValue(error.value)}`
    else problem = `${lowerFirst(error.message)}, got ${describeValue(error.value)}`
    problems.set(where, `${where}: ${problem}`)
  }
  return { ok: false, problems: [...problems.values()] }
}
