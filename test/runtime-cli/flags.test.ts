import { describe, expect, it } from 'vitest'
import type { JsonSchema } from '../../src/compile/plan.js'
import { formatHelp, inputFlags, parseCommand } from '../../src/runtime/flags.js'

const schema: JsonSchema = {
  type: 'object',
  properties: {
    name: { type: 'string', description: 'Who' },
    count: { type: 'integer', default: 1 },
    ratio: { type: 'number' },
    loud: { type: 'boolean' },
    mode: { enum: ['fast', 'slow'] },
    level: { anyOf: [{ const: 1 }, { const: 2 }] },
    nickname: { type: ['string', 'null'] },
    alias: { anyOf: [{ type: 'string' }, { type: 'null' }] },
    tags: { type: 'array', items: { type: 'string' } },
    sizes: { type: 'array', items: { type: 'integer' } },
    switches: { type: 'array', items: { type: 'boolean' } },
    shared: { $ref: '#/$defs/Colour' },
    where: { type: 'object', properties: { x: { type: 'number' } } },
    pairs: { type: 'array', items: { type: 'array', items: { type: 'number' } } },
    either: { anyOf: [{ type: 'string' }, { type: 'number' }] },
    'has.dot': { type: 'string' },
    json: { type: 'string' },
    help: { type: 'boolean' },
  },
  required: ['name', 'where'],
  $defs: { Colour: { type: 'string', enum: ['red', 'blue'] } },
}

const flags = inputFlags(schema)

describe('inputFlags', () => {
  it('makes a flag of every scalar, enum, nullable scalar and array of scalars', () => {
    expect(flags.flags.filter((f) => f.kind !== 'json').map((f) => [f.name, f.kind, f.repeated, f.required])).toEqual([
      ['name', 'string', false, true],
      ['count', 'integer', false, false],
      ['ratio', 'number', false, false],
      ['loud', 'boolean', false, false],
      ['mode', 'choice', false, false],
      ['level', 'choice', false, false],
      ['nickname', 'string', false, false],
      ['alias', 'string', false, false],
      ['tags', 'string', true, false],
      ['sizes', 'integer', true, false],
      ['switches', 'choice', true, false],
      ['shared', 'choice', false, false],
    ])
    expect(flags.flags.find((f) => f.name === 'shared')?.choices).toEqual(['red', 'blue'])
    expect(flags.flags.find((f) => f.name === 'level')?.choices).toEqual([1, 2])
  })

  it('gives objects, nested arrays and type unions a flag that takes JSON, with an example of their shape', () => {
    expect(flags.flags.filter((f) => f.kind === 'json').map((f) => [f.name, f.expected, f.required, f.example])).toEqual([
      ['where', 'object', true, { x: 1 }],
      ['pairs', 'array of array of number', false, [[1]]],
      ['either', 'string or number', false, 'text'],
    ])
  })

  it('leaves awkward names and the runner’s own flag names to --json', () => {
    expect(flags.jsonOnly.map((f) => [f.name, f.expected, f.required])).toEqual([
      ['has.dot', 'string', false],
      ['json', 'string', false],
      ['help', 'boolean', false],
    ])
  })
})

describe('parseCommand', () => {
  it('converts every kind of flag', () => {
    const args = ['--name', 'Ada', '--count', '3', '--ratio=-0.5', '--no-loud', '--mode', 'slow', '--level', '2', '--tags', 'a', '--tags', 'b', '--sizes', '1', '--sizes', '20', '--switches', 'true', '--switches', 'false', '--shared', 'red']
    expect(parseCommand(args, flags)).toEqual({
      kind: 'flags',
      input: { name: 'Ada', count: 3, ratio: -0.5, loud: false, mode: 'slow', level: 2, tags: ['a', 'b'], sizes: [1, 20], switches: [true, false], shared: 'red' },
    })
  })

  it('leaves out what was not given, so the schema reports missing fields', () => {
    expect(parseCommand([], flags)).toEqual({ kind: 'flags', input: {} })
  })

  it('reports every problem, each naming its flag', () => {
    expect(parseCommand(['--count', '2.5', '--ratio', '1e', '--level', '3', '--sizes', '1', '--sizes', 'x'], flags)).toEqual({
      kind: 'invalid',
      problems: ['--count: expected integer, got "2.5"', '--ratio: expected number, got "1e"', '--level: expected one of 1, 2, got "3"', '--sizes: expected integer, got "x"'],
    })
  })

  it('names every unknown option at once, including names only --json can set', () => {
    expect(parseCommand(['--has.dot', 'x', '--nope', '-z', '--no-name', '--toString', '--constructor'], flags)).toEqual({
      kind: 'invalid',
      problems: ['unknown option --has.dot', 'unknown option --nope', 'unknown option -z', 'unknown option --no-name', 'unknown option --toString', 'unknown option --constructor'],
    })
  })

  it('reads a JSON value for an object, array or union field, and names the flag when it is no JSON', () => {
    expect(parseCommand(['--where', '{"x":-2}', '--pairs', '[[1,2]]', '--either', '3'], flags)).toEqual({ kind: 'flags', input: { where: { x: -2 }, pairs: [[1, 2]], either: 3 } })
    const bad = parseCommand(['--where', '{x:1}'], flags)
    expect(bad.kind).toBe('invalid')
    expect(bad.kind === 'invalid' && bad.problems).toEqual([expect.stringMatching(/^--where: expected object as JSON, got "\{x:1\}": /)])
  })

  it('recognises --help, -h and --json', () => {
    expect(parseCommand(['--name', 'x', '-h'], flags)).toEqual({ kind: 'help' })
    expect(parseCommand(['--json'], flags)).toEqual({ kind: 'json' })
    expect(parseCommand(['--json', '--name', 'x'], flags)).toMatchObject({ kind: 'invalid', problems: ['--json reads the whole input from stdin; do not combine it with --name'] })
  })

  it('reads the envelope version asked for, with --json or flags, and keeps a property named envelope to --json', () => {
    expect(parseCommand(['--json', '--envelope', '1'], flags)).toEqual({ kind: 'json', envelope: '1' })
    expect(parseCommand(['--envelope=1', '--name', 'x'], flags)).toEqual({ kind: 'flags', input: { name: 'x' }, envelope: '1' })
    expect(parseCommand(['--envelope', '1', '--count', 'x'], flags)).toEqual({ kind: 'invalid', problems: ['--count: expected integer, got "x"'], envelope: '1' })
    const withEnvelope = inputFlags({ type: 'object', properties: { envelope: { type: 'string' } } })
    expect(withEnvelope.jsonOnly.map((field) => field.name)).toEqual(['envelope'])
  })

  it('takes a negative number after a number flag, repeated ones too, and numeric choices', () => {
    const schemaWithNegatives: JsonSchema = { type: 'object', properties: { step: { enum: [-1, 1] }, ...schema.properties as object } }
    expect(parseCommand(['--ratio', '-5', '--count', '-3', '--sizes', '-1', '--sizes', '-2e3', '--step', '-1'], inputFlags(schemaWithNegatives))).toEqual({
      kind: 'flags',
      input: { ratio: -5, count: -3, sizes: [-1, -2000], step: -1 },
    })
  })

  it('still rejects a value that looks like an option after a text flag, pointing at the --flag=value form', () => {
    const result = parseCommand(['--name', '-5'], flags)
    expect(result.kind).toBe('invalid')
    expect(result.kind === 'invalid' && result.problems[0]).toContain("use '--name=-XYZ'")
    expect(parseCommand(['--name=-5', '--ratio', '--count'], flags).kind).toBe('invalid')
  })
})

describe('formatHelp', () => {
  it('lists flags and JSON-only fields with types, requiredness, defaults and choices', () => {
    const help = formatHelp({ name: 'demo', description: 'Line one.\nLine two.', script: 'scripts/demo.mjs', schema }, flags)
    expect(help).toContain('demo: Line one.\n      Line two.')
    expect(help).toContain('node scripts/demo.mjs --name <string> [--count <integer>]')
    expect(help).toContain('[--switches <true|false>...]')
    expect(help).toMatch(/--count <integer>\n\s+integer; optional; default: 1\n/)
    expect(help).toMatch(/--mode <fast\|slow>\n\s+one of "fast", "slow"; optional\n/)
    expect(help).toMatch(/--where <json>\n\s+object as JSON, e\.g\. --where '\{"x":1\}'; required\n/)
    expect(help).toMatch(/Only through --json:\n\s+"has\.dot"\n\s+string; optional\n/)
    expect(help.endsWith('user, are printed on stderr. Exit codes: 0 success, 1 the tool failed, 2 invalid input.\nSet OAC_DEBUG=1 to print stack traces.\n')).toBe(true)
  })
})
