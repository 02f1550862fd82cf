import { defineTool, type JsonValue } from 'unplugin-oac'
import { z } from 'zod'

const KINDS = ['number', 'boolean', 'null', 'json_string', 'array', 'object', 'text', 'empty'] as const

/**
 * One value of each kind a tool may return. A string is the model's text as it is, anything else its
 * JSON: `number` reads `42`, `json_string` reads `"forty-two"` (a string that is JSON), `empty` nothing.
 */
const SAMPLES: Record<(typeof KINDS)[number], JsonValue> = {
  number: 42,
  boolean: true,
  null: null,
  json_string: JSON.stringify('forty-two'),
  array: [1, 'two', null],
  object: { city: 'Oslo', days: 3 },
  text: 'Sunny, 21 °C',
  empty: '',
}

export const sampleValue = defineTool({
  name: 'sample_value',
  description: 'Returns a sample value of the chosen kind, to see how a harness hands each kind of tool result to its model.',
  input: z.object({ kind: z.enum(KINDS).describe('Which kind of value to return') }),
  effects: { readOnly: true, idempotent: true },
  run({ kind }) {
    return SAMPLES[kind]
  },
})
