import { describe, expect, it } from 'vitest'
import { ZodJsonSchemaValidator } from '../../src/runtime/mcp-server.js'

describe('ZodJsonSchemaValidator (the SDK validator the server passes instead of ajv)', () => {
  const validate = new ZodJsonSchemaValidator().getValidator<{ city: string; days?: number }>({
    type: 'object',
    properties: { city: { type: 'string' }, days: { type: 'integer', minimum: 1 } },
    required: ['city'],
  })

  it('accepts a value that matches the schema and hands it back', () => {
    expect(validate({ city: 'Oslo', days: 2 })).toEqual({ valid: true, data: { city: 'Oslo', days: 2 }, errorMessage: undefined })
  })

  it('rejects a missing required property, a wrong type and a value below the minimum, naming the property', () => {
    for (const [input, property] of [
      [{}, 'city'],
      [{ city: 3 }, 'city'],
      [{ city: 'Oslo', days: 0 }, 'days'],
    ] as const) {
      const result = validate(input)
      expect(result.valid).toBe(false)
      expect(result.data).toBeUndefined()
      expect(result.errorMessage).toContain(property)
    }
  })
})
