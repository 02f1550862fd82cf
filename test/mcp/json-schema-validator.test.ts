import { describe, expect, it } from 'vitest'
import { NoElicitationValidator } from '../../src/runtime/mcp-server.js'

describe('NoElicitationValidator (the SDK validator the server passes instead of ajv)', () => {
  it('refuses to check answers, since the server sends no elicitation request that would have any', () => {
    const schema = { type: 'object' as const, properties: { city: { type: 'string' as const } } }
    expect(() => new NoElicitationValidator().getValidator(schema)).toThrow(/sends no elicitation requests.*"city"/)
  })
})
