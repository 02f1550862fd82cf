import { Type as SinclairType } from '@sinclair/typebox'
import { Type } from 'typebox'
import { describe, expect, expectTypeOf, it } from 'vitest'
import { z } from 'zod'
import { defineTool } from '../../src/index.js'

// tsc (npm run typecheck) checks these types, each `@ts-expect-error` included: a probe whose line
// compiles fails the check. vitest runs the same code, which defines tools and never calls them.

interface Day {
  n: number
}

describe('defineTool with an output schema', () => {
  it('types run as returning the schema\'s value (zod), plain or through ctx.result', () => {
    const day: Day = { n: 1 }
    const weather = defineTool({
      name: 'weather',
      description: 'Weather.',
      input: z.object({ city: z.string() }),
      output: z.object({ city: z.string(), high: z.number(), unit: z.enum(['c', 'f']).default('c'), days: z.array(z.object({ n: z.number() })) }),
      async run({ city }, ctx) {
        // The schema's input side: `unit` has a default, so run may leave it out.
        if (city === 'x') return { city, high: 1, days: [] }
        return ctx.result({ value: { city, high: 2, unit: 'f', days: [day] }, details: { cached: true } })
      },
    })
    expectTypeOf(weather.output.shape.high).toEqualTypeOf<z.ZodNumber>()

    defineTool({
      name: 'wrong',
      description: 'Wrong.',
      input: z.object({}),
      output: z.object({ high: z.number() }),
      // @ts-expect-error -- high is a number, never a string
      run: () => ({ high: 'warm' }),
    })
    defineTool({
      name: 'wrong_choice',
      description: 'A value the enum does not hold.',
      input: z.object({}),
      output: z.object({ unit: z.enum(['c', 'f']) }),
      // @ts-expect-error -- "k" is not a unit
      run: (_, ctx) => ctx.result({ value: { unit: 'k' } }),
    })
    defineTool({
      name: 'plain_text',
      description: 'Text where the schema wants an object.',
      input: z.object({}),
      output: z.object({ high: z.number() }),
      // @ts-expect-error -- a tool with an output schema returns that value, not free text
      run: () => 'hot',
    })
    defineTool({
      name: 'no_value',
      description: 'A rich result without the value.',
      input: z.object({}),
      output: z.object({ high: z.number() }),
      // @ts-expect-error -- structured output needs the value
      run: (_, ctx) => ctx.result({ details: 'no value' }),
    })
    defineTool({
      name: 'not_a_result',
      description: 'A plain object is a value, not a result.',
      input: z.object({}),
      output: z.object({ high: z.number() }),
      // @ts-expect-error -- only ctx.result and ctx.error make results
      run: () => ({ value: { high: 1 } }),
    })
  })

  it('types run from a TypeBox output schema, of TypeBox 1.x and 0.34', () => {
    defineTool({
      name: 'typebox_out',
      description: 'TypeBox 1.x.',
      input: Type.Object({ n: Type.Number() }),
      output: Type.Object({ doubled: Type.Number() }),
      run: ({ n }) => ({ doubled: n * 2 }),
    })
    defineTool({
      name: 'sinclair_out',
      description: 'TypeBox 0.34.',
      input: SinclairType.Object({ n: SinclairType.Number() }),
      output: SinclairType.Array(SinclairType.String()),
      run: ({ n }, ctx) => ctx.result({ value: [String(n)] }),
    })
    defineTool({
      name: 'typebox_wrong',
      description: 'TypeBox 1.x, wrong value.',
      input: Type.Object({}),
      output: Type.Object({ doubled: Type.Number() }),
      // @ts-expect-error -- doubled is a number
      run: () => ({ doubled: true }),
    })
  })

  it('lets an error result stand in for any output, and keeps run without an output schema as it was', () => {
    defineTool({
      name: 'failing',
      description: 'Fails without throwing.',
      input: z.object({ path: z.string() }),
      output: z.object({ size: z.number() }),
      run: ({ path }, ctx) => (path === '' ? ctx.error('No path given.', { details: { checked: [] } }) : { size: 1 }),
    })
    const text = defineTool({
      name: 'text',
      description: 'Text or JSON, as before.',
      input: z.object({ big: z.boolean() }),
      run: ({ big }) => (big ? { n: 1, list: [1, 'a', null] } : 'small'),
    })
    expectTypeOf(text.output).toEqualTypeOf<undefined>()
    defineTool({
      name: 'with_images',
      description: 'Images, with or without text.',
      input: z.object({ caption: z.boolean() }),
      run: async ({ caption }, ctx) => {
        const images = [{ data: new Uint8Array([1]), mimeType: 'image/png' as const }]
        return caption ? ctx.result({ value: 'a chart', images }) : ctx.result({ images })
      },
    })
    defineTool({
      name: 'bad_image',
      description: 'An image type models do not read.',
      input: z.object({}),
      // @ts-expect-error -- image/bmp is not one of the image types
      run: (_, ctx) => ctx.result({ images: [{ data: '', mimeType: 'image/bmp' }] }),
    })
    defineTool({
      name: 'not_json',
      description: 'A value JSON cannot hold.',
      input: z.object({}),
      // @ts-expect-error -- a Date is not a JSON value
      run: (_, ctx) => ctx.result({ value: new Date() }),
    })
    defineTool({
      name: 'details_not_json',
      description: 'Details JSON cannot hold.',
      input: z.object({}),
      // @ts-expect-error -- details are JSON
      run: (_, ctx) => ctx.result({ value: 'ok', details: { when: new Date() } }),
    })
  })

  it('takes what a tool does to the world', () => {
    const tool = defineTool({
      name: 'effects',
      description: 'Declares what it does.',
      input: z.object({}),
      effects: { readOnly: true, idempotent: true },
      run: () => 'ok',
    })
    expect(tool.effects).toEqual({ readOnly: true, idempotent: true })
    expect(defineTool({ name: 'none', description: 'Declares nothing.', input: z.object({}), run: () => 'ok' }).effects).toEqual({})
    defineTool({
      name: 'bad_effect',
      description: 'An effect that does not exist.',
      input: z.object({}),
      // @ts-expect-error -- `safe` is not an effect
      effects: { safe: true },
      run: () => 'ok',
    })
  })
})
