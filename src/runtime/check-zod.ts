import type { z } from 'zod'
import { type CheckedValue, describeSchema, describeValue, formatPath, lowerFirst, valueAt } from './describe.js'
import type { InputCheck } from './invoke.js'

/**
 * Checks of zod tools' input and output: the schema's own `safeParseAsync`, so the script uses the
 * zod the tool was written with. (The async parse also runs async refinements and transforms, which
 * the sync one rejects.)
 */
export const checkInput: InputCheck = async (schema, input, subject = 'input') => {
  const result = await (schema as z.ZodType).safeParseAsync(input)
  if (result.success) return { ok: true, value: result.data }
  return { ok: false, problems: result.error.issues.map((issue) => zodProblem(issue, input, subject)) }
}

function zodProblem(issue: z.core.$ZodIssue, input: unknown, subject: CheckedValue): string {
  const where = formatPath(issue.path, subject)
  const value = valueAt(input, issue.path)
  switch (issue.code) {
    case 'invalid_type': {
      const expected = issue.expected === 'int' ? 'integer' : issue.expected
      return value === undefined ? `${where}: missing (expected ${expected})` : `${where}: expected ${expected}, got ${describeValue(value)}`
    }
    case 'invalid_value':
      return `${where}: expected ${describeSchema({ enum: issue.values.map((v) => (typeof v === 'bigint' ? String(v) : v ?? null)) })}, got ${describeValue(value)}`
    case 'custom':
    case 'unrecognized_keys':
      return `${where}: ${lowerFirst(issue.message)}`
    default:
      return `${where}: ${lowerFirst(issue.message)}, got ${describeValue(value)}`
  }
}
