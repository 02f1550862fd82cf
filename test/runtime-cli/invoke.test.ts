import { Type } from '@sinclair/typebox'
import { Type as Type1 } from 'typebox'
import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { defineTool } from '../../src/define/index.js'
import type { ToolInputSchema, ToolOutput, ToolOutputSchema } from '../../src/define/types.js'
import { checkInput as checkSinclairTypeBox } from '../../src/runtime/check-sinclair-typebox.js'
import { checkInput as checkTypeBox } from '../../src/runtime/check-typebox.js'
import { checkInput as checkZod } from '../../src/runtime/check-zod.js'
import { invokeTool, pickTool } from '../../src/runtime/invoke.js'
import type { InvokeOptions } from '../../src/runtime/types.js'

function options(overrides: Partial<InvokeOptions> = {}): InvokeOptions {
  return { signal: new AbortController().signal, cwd: '/work/here', env: { TOKEN: 't' }, progress: () => {}, ...overrides }
}

const zodTool = defineTool({
  name: 'zod_tool',
  description: 'zod',
  input: z.object({
    city: z.string(),
    days: z.number().int().min(1).optional(),
    unit: z.enum(['c', 'f']).default('c'),
    stops: z.array(z.object({ nights: z.number() })).optional(),
  }),
  run: (input) => input,
})

const typeboxTool = defineTool({
  name: 'typebox_tool',
  description: 'TypeBox',
  input: Type.Object({
    title: Type.String({ minLength: 2 }),
    priority: Type.Optional(Type.Integer({ default: 3 })),
    kind: Type.Union([Type.Literal('todo'), Type.Literal('idea')]),
    nested: Type.Optional(Type.Object({ ids: Type.Array(Type.Number()) })),
  }),
  run: (input) => input,
})

function returning(value: unknown) {
  return defineTool({ name: 'out', description: 'returns a value', input: z.object({}), run: () => value as ToolOutput })
}

describe('validation with the tool’s own schema', () => {
  it('passes zod’s parsed output (defaults applied) to run', async () => {
    expect(await invokeTool(zodTool, { city: 'Oslo' }, options(), checkZod)).toEqual({ ok: true, text: JSON.stringify({ city: 'Oslo', unit: 'c' }, null, 2) })
  })

  it('names each bad zod field by path with what was expected and what came', async () => {
    const result = await invokeTool(zodTool, { days: 'x', unit: 'k', stops: [{ nights: 'two' }] }, options(), checkZod)
    expect(result).toEqual({
      ok: false,
      kind: 'invalid-input',
      message: [
        'city: missing (expected string)',
        'days: expected number, got "x"',
        'unit: expected one of "c", "f", got "k"',
        'stops[0].nights: expected number, got "two"',
      ].join('\n'),
    })
  })

  it('says integer for zod .int() and reports bounds', async () => {
    const fraction = await invokeTool(zodTool, { city: 'a', days: 1.5 }, options(), checkZod)
    expect(fraction).toMatchObject({ kind: 'invalid-input', message: 'days: expected integer, got 1.5' })
    const low = await invokeTool(zodTool, { city: 'a', days: 0 }, options(), checkZod)
    expect(low).toMatchObject({ kind: 'invalid-input', message: 'days: too small: expected number to be >=1, got 0' })
  })

  it('rejects a non-object input', async () => {
    expect(await invokeTool(zodTool, ['a'], options(), checkZod)).toMatchObject({ kind: 'invalid-input', message: '(input): expected object, got an array' })
  })

  it('runs async zod refinements', async () => {
    const tool = defineTool({
      name: 'refined',
      description: 'async refinement',
      input: z.object({ name: z.string().refine(async (name) => name !== 'taken', 'that name is taken') }),
      run: ({ name }) => `hello ${name}`,
    })
    expect(await invokeTool(tool, { name: 'free' }, options(), checkZod)).toEqual({ ok: true, text: 'hello free' })
    expect(await invokeTool(tool, { name: 'taken' }, options(), checkZod)).toEqual({ ok: false, kind: 'invalid-input', message: 'name: that name is taken' })
  })

  it('applies TypeBox defaults before checking', async () => {
    const result = await invokeTool(typeboxTool, { title: 'ok', kind: 'todo' }, options(), checkSinclairTypeBox)
    expect(result).toEqual({ ok: true, text: JSON.stringify({ title: 'ok', kind: 'todo', priority: 3 }, null, 2) })
  })

  it('names each bad TypeBox field once, by path', async () => {
    const result = await invokeTool(typeboxTool, { title: 'x', priority: 'high', kind: 'nope', nested: { ids: [1, 'a'] } }, options(), checkSinclairTypeBox)
    expect(result).toEqual({
      ok: false,
      kind: 'invalid-input',
      message: [
        'title: expected string length greater or equal to 2, got "x"',
        'priority: expected integer, got "high"',
        'kind: expected one of "todo", "idea", got "nope"',
        'nested.ids[1]: expected number, got "a"',
      ].join('\n'),
    })
  })

  it('reports missing TypeBox fields with the expected type', async () => {
    const result = await invokeTool(typeboxTool, {}, options(), checkSinclairTypeBox)
    expect(result).toEqual({
      ok: false,
      kind: 'invalid-input',
      message: ['title: missing (expected string)', 'kind: missing (expected one of "todo", "idea")'].join('\n'),
    })
  })

  // TypeBox 1.x words its errors in JSON Schema terms; the check words them as for the other packages.
  const typebox1Tool = defineTool({
    name: 'typebox1_tool',
    description: 'TypeBox 1.x',
    input: Type1.Object({
      title: Type1.String({ minLength: 2 }),
      priority: Type1.Integer({ default: 3 }),
      kind: Type1.Union([Type1.Literal('todo'), Type1.Literal('idea')]),
      nested: Type1.Optional(Type1.Object({ ids: Type1.Array(Type1.Number()) })),
    }),
    run: (input) => ({ ...input, upper: input.title.toUpperCase() }),
  })

  it('checks TypeBox 1.x input with its own Value module, defaults applied (a defaulted field may be left out)', async () => {
    const result = await invokeTool(typebox1Tool, { title: 'ok', kind: 'todo' }, options(), checkTypeBox)
    expect(result).toEqual({ ok: true, text: JSON.stringify({ title: 'ok', kind: 'todo', priority: 3, upper: 'OK' }, null, 2) })
  })

  it('names each bad TypeBox 1.x field once, by path, and each missing one with what it expects', async () => {
    const bad = await invokeTool(typebox1Tool, { title: 'x', priority: 'high', kind: 'nope', nested: { ids: [1, 'a'] } }, options(), checkTypeBox)
    expect(bad).toEqual({
      ok: false,
      kind: 'invalid-input',
      message: [
        'title: must not have fewer than 2 characters, got "x"',
        'priority: must be integer, got "high"',
        'kind: expected one of "todo", "idea", got "nope"',
        'nested.ids[1]: must be number, got "a"',
      ].join('\n'),
    })
    const missing = await invokeTool(typebox1Tool, {}, options(), checkTypeBox)
    expect(missing).toEqual({
      ok: false,
      kind: 'invalid-input',
      message: ['title: missing (expected string)', 'kind: missing (expected one of "todo", "idea")'].join('\n'),
    })
  })

  it('does not run the tool on invalid input', async () => {
    let ran = false
    const tool = defineTool({ name: 't', description: 'd', input: z.object({ n: z.number() }), run: () => ((ran = true), 'ran') })
    await invokeTool(tool, { n: 'x' }, options(), checkZod)
    expect(ran).toBe(false)
  })
})

describe('running', () => {
  it('gives run the caller’s cwd, signal, env and progress', async () => {
    const controller = new AbortController()
    const messages: string[] = []
    const tool = defineTool({
      name: 'ctx',
      description: 'echoes its context',
      input: z.object({}),
      run: (_input, ctx) => {
        ctx.progress('half way')
        return { cwd: ctx.cwd, aborted: ctx.signal.aborted, sameSignal: ctx.signal === controller.signal, env: { TOKEN: ctx.env.TOKEN ?? null } }
      },
    })
    const result = await invokeTool(tool, {}, options({ signal: controller.signal, progress: (m) => messages.push(m) }), checkZod)
    expect(result).toEqual({ ok: true, text: JSON.stringify({ cwd: '/work/here', aborted: false, sameSignal: true, env: { TOKEN: 't' } }, null, 2) })
    expect(messages).toEqual(['half way'])
  })

  it.each<[string, unknown, string]>([
    ['a string as is', 'line 1\nline 2', 'line 1\nline 2'],
    ['an empty string', '', ''],
    ['undefined as empty text', undefined, ''],
    ['null as JSON', null, 'null'],
    ['a number as JSON', 42, '42'],
    ['a boolean as JSON', false, 'false'],
    ['an array as indented JSON', [1, 'two'], '[\n  1,\n  "two"\n]'],
  ])('turns %s into text', async (_name, value, text) => {
    expect(await invokeTool(returning(value), {}, options(), checkZod)).toEqual({ ok: true, text })
  })

  it('reports an output with no JSON form as a tool error', async () => {
    const result = await invokeTool(returning({ big: 1n }), {}, options(), checkZod)
    expect(result).toMatchObject({ ok: false, kind: 'tool-error' })
    expect(result.ok === false && result.message).toMatch(/^The tool "out" returned a value that cannot be turned into JSON: .*BigInt/)
  })

  it('turns a throw into a tool error with message and stack', async () => {
    const tool = defineTool({
      name: 'thrower',
      description: 'throws',
      input: z.object({}),
      run: async () => {
        throw new RangeError('out of range')
      },
    })
    const result = await invokeTool(tool, {}, options(), checkZod)
    expect(result).toMatchObject({ ok: false, kind: 'tool-error', message: 'out of range' })
    expect(result.ok === false && result.kind === 'tool-error' && result.stack).toMatch(/^RangeError: out of range\n\s+at /)
  })

  it('turns a thrown non-Error into its text, without a stack', async () => {
    const tool = defineTool({
      name: 'thrower',
      description: 'throws a string',
      input: z.object({}),
      run: () => {
        throw 'plain text'
      },
    })
    expect(await invokeTool(tool, {}, options(), checkZod)).toEqual({ ok: false, kind: 'tool-error', message: 'plain text', stack: undefined })
  })
})

describe('output schemas', () => {
  const weather = defineTool({
    name: 'weather',
    description: 'weather with an output schema',
    input: z.object({ high: z.unknown() }),
    output: z.object({ city: z.string(), high: z.number(), unit: z.enum(['c', 'f']).default('c') }),
    run: ({ high }) => ({ city: 'Oslo', high: high as number }),
  })

  it('checks the value against the output schema, fills its defaults, and gives it as structured output and as JSON text', async () => {
    const result = await invokeTool(weather, { high: 21 }, options(), checkZod)
    const value = { city: 'Oslo', high: 21, unit: 'c' }
    expect(result).toEqual({ ok: true, text: JSON.stringify(value, null, 2), structured: value })
  })

  it('turns a value that does not match into a tool failure naming each field', async () => {
    expect(await invokeTool(weather, { high: 'warm' }, options(), checkZod)).toEqual({
      ok: false,
      kind: 'tool-error',
      message: 'The tool "weather" returned a value that does not match its output schema:\nhigh: expected number, got "warm"',
    })
  })

  it('names the whole value (output) when it is of the wrong kind, for every schema package', async () => {
    // A tool's input and output schemas are of one package (compile checks), whose check the script runs.
    const textFor = (input: ToolInputSchema, output: ToolOutputSchema) => defineTool({ name: 'kind', description: 'returns text', input, output, run: () => 'text' as never })
    const expected = /^The tool "kind" returned a value that does not match its output schema:\n\(output\): .*object.*"text"$/
    for (const [tool, check] of [
      [textFor(z.object({}), z.object({ a: z.string() })), checkZod],
      [textFor(Type1.Object({}), Type1.Object({ a: Type1.String() })), checkTypeBox],
      [textFor(Type.Object({}), Type.Object({ a: Type.String() })), checkSinclairTypeBox],
    ] as const) {
      const result = await invokeTool(tool, {}, options(), check)
      expect(result.ok === false && result.message).toMatch(expected)
    }
  })

  it('takes any JSON schema as output, an array of TypeBox objects (defaults filled) too', async () => {
    const tool = defineTool({
      name: 'list',
      description: 'a list',
      input: Type1.Object({}),
      output: Type1.Array(Type1.Object({ id: Type1.Integer(), done: Type1.Boolean({ default: false }) })),
      // TypeBox types a defaulted property as required; the check fills it in.
      run: () => [{ id: 1 }, { id: 2, done: true }] as never,
    })
    expect(await invokeTool(tool, {}, options(), checkTypeBox)).toMatchObject({ ok: true, structured: [{ id: 1, done: false }, { id: 2, done: true }] })
  })

  it('checks the value of a rich result, and requires one', async () => {
    const tool = defineTool({
      name: 'rich',
      description: 'a rich result',
      input: z.object({ give: z.boolean() }),
      output: z.object({ n: z.number() }),
      run: ({ give }, ctx) => (give ? ctx.result({ value: { n: 1 }, details: 'from cache' }) : ctx.result({ value: undefined as never })),
    })
    expect(await invokeTool(tool, { give: true }, options(), checkZod)).toEqual({ ok: true, text: '{\n  "n": 1\n}', structured: { n: 1 }, details: 'from cache' })
    expect(await invokeTool(tool, { give: false }, options(), checkZod)).toEqual({
      ok: false,
      kind: 'tool-error',
      message: 'The tool "rich" returned a value that does not match its output schema:\n(output): missing (expected object)',
    })
  })
})

describe('rich results', () => {
  const png = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0, 255])

  it('carries images (bytes as base64, base64 as given), text and details', async () => {
    const tool = defineTool({
      name: 'chart',
      description: 'a chart',
      input: z.object({}),
      run: (_input, ctx) =>
        ctx.result({
          value: 'the chart',
          images: [
            { data: Buffer.from(png).subarray(1), mimeType: 'image/png' },
            { data: 'AAEC', mimeType: 'image/webp' },
          ],
          details: { points: 3, source: null },
        }),
    })
    expect(await invokeTool(tool, {}, options(), checkZod)).toEqual({
      ok: true,
      text: 'the chart',
      images: [
        { data: Buffer.from(png.subarray(1)).toString('base64'), mimeType: 'image/png' },
        { data: 'AAEC', mimeType: 'image/webp' },
      ],
      details: { points: 3, source: null },
    })
  })

  it('gives an image alone empty text, and a JSON value JSON text', async () => {
    const tool = defineTool({
      name: 'pics',
      description: 'images',
      input: z.object({ json: z.boolean() }),
      run: ({ json }, ctx) => (json ? ctx.result({ value: { a: [1] } }) : ctx.result({ images: [{ data: png, mimeType: 'image/gif' }] })),
    })
    expect(await invokeTool(tool, { json: false }, options(), checkZod)).toEqual({ ok: true, text: '', images: [{ data: Buffer.from(png).toString('base64'), mimeType: 'image/gif' }] })
    expect(await invokeTool(tool, { json: true }, options(), checkZod)).toEqual({ ok: true, text: '{\n  "a": [\n    1\n  ]\n}' })
  })

  it('turns an error result into a tool error with its details, without a stack', async () => {
    const tool = defineTool({ name: 'refuse', description: 'refuses', input: z.object({}), run: (_input, ctx) => ctx.error('No such branch.', { details: { tried: ['main'] } }) })
    expect(await invokeTool(tool, {}, options(), checkZod)).toEqual({ ok: false, kind: 'tool-error', message: 'No such branch.', details: { tried: ['main'] } })
  })

  it('reads a plain object that looks like a result as the value it is', async () => {
    const lookalike = { error: 'not an error', images: [], details: 'x' }
    expect(await invokeTool(returning(lookalike), {}, options(), checkZod)).toEqual({ ok: true, text: JSON.stringify(lookalike, null, 2) })
  })

  it.each<[string, unknown, RegExp]>([
    ['an image type models do not read', { data: png, mimeType: 'image/bmp' }, /^The tool "bad" returned image 1 of type "image\/bmp"; models read image\/png, /],
    ['image data that is not base64', { data: 'not base64!', mimeType: 'image/png' }, /^The tool "bad" returned image 1 whose data is neither bytes .* nor base64 text$/],
    ['an image that is no object', 'picture.png', /^The tool "bad" returned image 1 of type undefined/],
  ])('reports %s as a tool error', async (_name, image, message) => {
    const tool = defineTool({ name: 'bad', description: 'bad image', input: z.object({}), run: (_input, ctx) => ctx.result({ images: [image as never] }) })
    const result = await invokeTool(tool, {}, options(), checkZod)
    expect(result).toMatchObject({ ok: false, kind: 'tool-error' })
    expect(result.ok === false && result.message).toMatch(message)
  })

  it('reports details that JSON cannot hold as a tool error', async () => {
    const tool = defineTool({
      name: 'loop',
      description: 'cyclic details',
      input: z.object({}),
      run: (_input, ctx) => {
        const details: Record<string, unknown> = {}
        details.self = details
        return ctx.result({ value: 'ok', details: details as never })
      },
    })
    const result = await invokeTool(tool, {}, options(), checkZod)
    expect(result.ok === false && result.message).toMatch(/^The tool "loop" returned details that cannot be turned into JSON: .*circular/)
  })
})

describe('pickTool', () => {
  it('finds the tool by its name among the exports, default included', () => {
    expect(pickTool({ other: 1, zodTool }, 'zod_tool', 'tools/a.ts')).toBe(zodTool)
    expect(pickTool({ default: typeboxTool }, 'typebox_tool', 'tools/b.ts')).toBe(typeboxTool)
  })

  it('says which file does not export the tool, what it exports, and how to fix it', () => {
    expect(() => pickTool({ zodTool }, 'forecast', 'tools/forecast.ts')).toThrow(
      'tools/forecast.ts does not export the tool "forecast". It exports "zod_tool". ' +
        'Export the definition from the module where defineTool is called, e.g. `export const myTool = defineTool({ name: "forecast", ... })`.',
    )
  })
})
