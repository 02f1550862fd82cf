import type { JsonSchema } from '../compile/plan.js'
import type { JsonValue } from '../define/types.js'
import { describeSchema, describeValue, schemaChoices } from './describe.js'

// A built-in taken as in runtime/start.ts.
const { parseArgs } = process.getBuiltinModule('node:util')

/**
 * The command line of a tool script, derived from the tool's canonical JSON Schema: one
 * `--<property>` flag per property whose name works as a flag (objects, arrays of objects and
 * unions take a JSON value), the rest only through `--json`.
 * Pure (no process access), so documentation can derive the same flags.
 */

/** Property names usable verbatim as `--name`. */
export const FLAG_NAME = /^[A-Za-z0-9][A-Za-z0-9_-]*$/

/** Flags of the runner itself; properties with these names can only be given through `--json`. */
const RUNNER_FLAGS = ['json', 'help', 'envelope'] as const

type FlagKind = 'string' | 'number' | 'integer' | 'boolean' | 'choice' | 'json'

export interface FlagSpec {
  /** The property name, which is also the flag name. */
  name: string
  kind: FlagKind
  /** For `choice`: the allowed values (strings, numbers, booleans or null, matched by their text). */
  choices: JsonValue[]
  /** For `json`: what the value must be, in a few words (`object`, `array of object`). */
  expected?: string
  /** For `json`: a value of the schema's shape, for the docs (`{"tags":["text"]}`). */
  example?: JsonValue
  /** An array of scalars: the flag is repeated once per element. */
  repeated: boolean
  required: boolean
  description?: string
  default?: JsonValue
}

export interface JsonOnlyField {
  name: string
  required: boolean
  /** What the property expects, in a few words. */
  expected: string
  description?: string
}

export interface InputFlags {
  flags: FlagSpec[]
  /** Properties only `--json` can set: those whose names cannot be flags (`has.dot`, `json`, `help`). */
  jsonOnly: JsonOnlyField[]
}

type SchemaObject = { readonly [key: string]: JsonValue | undefined }

function asObject(value: JsonValue | undefined): SchemaObject | undefined {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? value : undefined
}

/** Follows a local `$ref` (`#/$defs/Name`), as zod emits for reused schemas. */
function resolveRef(schema: SchemaObject, root: JsonSchema): SchemaObject {
  const ref = schema.$ref
  if (typeof ref !== 'string' || !ref.startsWith('#/')) return schema
  let target: JsonValue | undefined = root
  for (const part of ref.slice(2).split('/')) {
    target = asObject(target)?.[part.replace(/~1/g, '/').replace(/~0/g, '~')]
  }
  const resolved = asObject(target)
  return resolved && resolved !== schema ? resolveRef(resolved, root) : schema
}

const SCALAR_TYPES = new Set(['string', 'number', 'integer', 'boolean'])

/** The flag form of a scalar schema; undefined when a flag cannot express it. */
function scalarKind(schema: SchemaObject, root: JsonSchema): { kind: FlagKind; choices: JsonValue[] } | undefined {
  const choices = schemaChoices(schema)
  if (choices) {
    return choices.every((choice) => choice === null || typeof choice !== 'object') ? { kind: 'choice', choices } : undefined
  }
  const type = schema.type
  if (typeof type === 'string') return SCALAR_TYPES.has(type) ? { kind: type as FlagKind, choices: [] } : undefined
  // A nullable scalar (`["string", "null"]`, or `anyOf` with a null branch): flags give the non-null form.
  if (Array.isArray(type)) {
    const nonNull = type.filter((t) => t !== 'null')
    return nonNull.length === 1 ? scalarKind({ ...schema, type: nonNull[0] }, root) : undefined
  }
  const branches = Array.isArray(schema.anyOf) ? schema.anyOf : Array.isArray(schema.oneOf) ? schema.oneOf : undefined
  if (branches) {
    const nonNull = branches.map(asObject).filter((b): b is SchemaObject => b !== undefined && b.type !== 'null')
    return nonNull.length === 1 && nonNull.length < branches.length ? scalarKind(resolveRef(nonNull[0]!, root), root) : undefined
  }
  return undefined
}

/** A small value of the schema's shape: its default, first choice, or one of each required (else first) property. */
function exampleValue(schema: SchemaObject, root: JsonSchema, depth = 0): JsonValue {
  if (schema.default !== undefined) return schema.default
  const choices = schemaChoices(schema)
  if (choices?.length) return choices[0]!
  const branch = [schema.anyOf, schema.oneOf].find(Array.isArray)?.map(asObject).find((b) => b !== undefined)
  if (branch) return exampleValue(resolveRef(branch, root), root, depth)
  const type = Array.isArray(schema.type) ? schema.type.find((t) => t !== 'null') : schema.type
  if (depth > 3) return type === 'array' ? [] : type === 'object' ? {} : null
  if (type === 'array') {
    const items = asObject(schema.items)
    return items ? [exampleValue(resolveRef(items, root), root, depth + 1)] : []
  }
  if (type === 'object' || asObject(schema.properties)) {
    const properties = Object.entries(asObject(schema.properties) ?? {})
    const required = Array.isArray(schema.required) ? schema.required.map(String) : []
    const shown = properties.filter(([name]) => required.includes(name))
    const example: Record<string, JsonValue> = {}
    for (const [name, value] of shown.length ? shown : properties.slice(0, 1)) {
      example[name] = exampleValue(resolveRef(asObject(value) ?? {}, root), root, depth + 1)
    }
    return example
  }
  if (type === 'integer' || type === 'number') return typeof schema.minimum === 'number' ? schema.minimum : 1
  if (type === 'boolean') return true
  if (type === 'null') return null
  return 'text'
}

export function inputFlags(schema: JsonSchema): InputFlags {
  const properties = asObject(schema.properties) ?? {}
  const required = new Set(Array.isArray(schema.required) ? schema.required.map(String) : [])
  const flags: FlagSpec[] = []
  const jsonOnly: JsonOnlyField[] = []
  for (const [name, raw] of Object.entries(properties)) {
    const property = resolveRef(asObject(raw) ?? {}, schema)
    const description = typeof property.description === 'string' ? property.description : undefined
    const isRequired = required.has(name)
    const items = property.type === 'array' ? asObject(property.items) : undefined
    const scalar = scalarKind(property, schema)
    const item = items ? scalarKind(resolveRef(items, schema), schema) : undefined
    const usable = FLAG_NAME.test(name) && !(RUNNER_FLAGS as readonly string[]).includes(name)
    if (usable && (scalar || item)) {
      const shape = (scalar ?? item)!
      // A repeated boolean flag would have no way to say `false`, so boolean items take a value instead.
      const kind: FlagKind = item && shape.kind === 'boolean' ? 'choice' : shape.kind
      flags.push({
        name,
        kind,
        choices: kind === 'choice' && shape.kind === 'boolean' ? [true, false] : shape.choices,
        repeated: item !== undefined,
        required: isRequired,
        ...(description !== undefined && { description }),
        ...(property.default !== undefined && { default: property.default }),
      })
    } else if (usable) {
      flags.push({
        name,
        kind: 'json',
        choices: [],
        expected: describeSchema(property),
        example: exampleValue(property, schema),
        repeated: false,
        required: isRequired,
        ...(description !== undefined && { description }),
        ...(property.default !== undefined && { default: property.default }),
      })
    } else {
      jsonOnly.push({ name, required: isRequired, expected: describeSchema(property), ...(description !== undefined && { description }) })
    }
  }
  return { flags, jsonOnly }
}

/** `envelope`: the version of the result envelope `--envelope` asked for (generated shims ask for one; see tool-cli.ts). */
export type ParsedCommand =
  | { kind: 'help' }
  | { kind: 'json'; envelope?: string }
  | { kind: 'flags'; input: Record<string, JsonValue>; envelope?: string }
  | { kind: 'invalid'; problems: string[]; envelope?: string }

type OptionsConfig = Record<string, { type: 'string' | 'boolean'; multiple?: boolean; short?: string }>

interface StrictParse {
  values: Record<string, string | boolean | string[] | undefined>
  /** Option names in the order given, one per occurrence. */
  occurrences: string[]
}

function strictParse(args: readonly string[], options: OptionsConfig): StrictParse | { error: string } {
  try {
    const { values, tokens } = parseArgs({ args: [...args], options, strict: true, allowNegative: true, tokens: true, allowPositionals: false })
    const occurrences = tokens.flatMap((token) => (token.kind === 'option' ? [token.name] : []))
    return { values: values as StrictParse['values'], occurrences }
  } catch (error) {
    // parseArgs explains over several lines; one line reads better next to the other problems.
    return { error: error instanceof Error ? error.message.replace(/\s*\n\s*/g, ' ') : String(error) }
  }
}

const NUMBER = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/

function convert(flag: FlagSpec, raw: string): { value: JsonValue } | { problem: string } {
  const got = describeValue(raw)
  switch (flag.kind) {
    case 'number':
    case 'integer': {
      const value = Number(raw)
      if (!NUMBER.test(raw.trim()) || !Number.isFinite(value)) return { problem: `--${flag.name}: expected ${flag.kind === 'integer' ? 'integer' : 'number'}, got ${got}` }
      if (flag.kind === 'integer' && !Number.isInteger(value)) return { problem: `--${flag.name}: expected integer, got ${got}` }
      return { value }
    }
    case 'json': {
      try {
        return { value: JSON.parse(raw) as JsonValue }
      } catch (error) {
        const reason = error instanceof Error ? `: ${error.message}` : ''
        return { problem: `--${flag.name}: expected ${flag.expected ?? 'a value'} as JSON, got ${got}${reason}` }
      }
    }
    case 'choice': {
      const match = flag.choices.find((choice) => String(choice) === raw)
      return match !== undefined ? { value: match } : { problem: `--${flag.name}: expected ${describeSchema({ enum: flag.choices })}, got ${got}` }
    }
    default:
      return { value: raw }
  }
}

/**
 * `--days -3`: parseArgs reads a value that starts with `-` as an option of its own (and calls it
 * ambiguous), so a negative number after a number flag is joined to it as `--days=-3`.
 */
function joinNegativeNumbers(args: readonly string[], flags: readonly FlagSpec[]): string[] {
  const numeric = new Set(
    flags
      .filter((flag) => flag.kind === 'number' || flag.kind === 'integer' || (flag.kind === 'choice' && flag.choices.some((c) => typeof c === 'number')))
      .map((flag) => `--${flag.name}`),
  )
  const joined: string[] = []
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!
    // After `--` nothing is an option.
    if (arg === '--') return [...joined, ...args.slice(i)]
    const next = args[i + 1]
    if (numeric.has(arg) && next?.startsWith('-') && NUMBER.test(next)) {
      joined.push(`${arg}=${next}`)
      i++
    } else joined.push(arg)
  }
  return joined
}

/**
 * Reads the command line with `node:util.parseArgs` (strict). Unknown flags, flags given twice,
 * values of the wrong type and stray arguments are problems naming the flag and what it expects.
 * Required fields are left to the tool's own schema, which reports them the same way for every caller.
 */
export function parseCommand(rawArgs: readonly string[], { flags }: InputFlags): ParsedCommand {
  const args = joinNegativeNumbers(rawArgs, flags)
  const options: OptionsConfig = {
    json: { type: 'boolean' },
    help: { type: 'boolean', short: 'h' },
    envelope: { type: 'string' },
  }
  for (const flag of flags) options[flag.name] = flag.kind === 'boolean' ? { type: 'boolean' } : { type: 'string', multiple: flag.repeated }

  // A lenient pass first, so every unknown flag is named at once (the strict pass stops at the first).
  const lenient = parseArgs({ args: [...args], options, strict: false, allowNegative: true, tokens: true })
  if (lenient.tokens.some((token) => token.kind === 'option' && token.name === 'help' && token.rawName !== '--no-help')) return { kind: 'help' }
  const unknown = lenient.tokens.flatMap((token) => {
    if (token.kind !== 'option') return []
    // Own properties only: `--toString` must not find Object.prototype.toString.
    const option = Object.hasOwn(options, token.name) ? options[token.name] : undefined
    const negated = token.rawName === `--no-${token.name}`
    return !option || (negated && option.type !== 'boolean') ? [token.rawName] : []
  })
  if (unknown.length > 0) {
    return { kind: 'invalid', problems: [...new Set(unknown)].map((name) => `unknown option ${name}`) }
  }

  const parsed = strictParse(args, options)
  if ('error' in parsed) return { kind: 'invalid', problems: [parsed.error] }

  const problems: string[] = []
  const counts = new Map<string, number>()
  for (const name of parsed.occurrences) counts.set(name, (counts.get(name) ?? 0) + 1)
  for (const flag of flags) {
    if (!flag.repeated && (counts.get(flag.name) ?? 0) > 1) problems.push(`--${flag.name}: given more than once, expected a single value`)
  }

  const values = parsed.values
  const envelope = typeof values.envelope === 'string' ? { envelope: values.envelope } : {}
  const given = flags.filter((flag) => values[flag.name] !== undefined)
  if (values.json === true) {
    if (given.length > 0) {
      problems.push(`--json reads the whole input from stdin; do not combine it with ${given.map((flag) => `--${flag.name}`).join(', ')}`)
    }
    return problems.length > 0 ? { kind: 'invalid', problems, ...envelope } : { kind: 'json', ...envelope }
  }

  const input: Record<string, JsonValue> = {}
  for (const flag of given) {
    const value = values[flag.name]!
    if (typeof value === 'boolean') {
      input[flag.name] = value
      continue
    }
    const converted = (Array.isArray(value) ? value : [value]).map((raw) => convert(flag, raw))
    const failed = converted.flatMap((result) => ('problem' in result ? [result.problem] : []))
    if (failed.length > 0) problems.push(...failed)
    else {
      const items = converted.map((result) => (result as { value: JsonValue }).value)
      input[flag.name] = flag.repeated ? items : items[0]!
    }
  }
  return problems.length > 0 ? { kind: 'invalid', problems, ...envelope } : { kind: 'flags', input, ...envelope }
}

export interface HelpSubject {
  name: string
  description: string
  /** The script path relative to the target, as the usage line shows it. */
  script: string
  schema: JsonSchema
}

function placeholder(flag: FlagSpec): string {
  if (flag.kind === 'boolean') return ''
  if (flag.kind === 'json') return ' <json>'
  if (flag.kind !== 'choice') return ` <${flag.kind}>`
  const texts = flag.choices.map(String)
  return texts.every((text) => /^[\w.@%+:=-]+$/.test(text)) ? ` <${texts.join('|')}>` : ' <value>'
}

function indentDescription(text: string): string {
  return text.trim().replace(/\s*\n\s*/g, '\n      ')
}

/** How a JSON flag is written on a shell command line, with an example value: `--filter '{"tags":["text"]}'`. */
export function jsonFlagExample(flag: FlagSpec): string {
  return `--${flag.name} '${JSON.stringify(flag.example ?? null).replaceAll("'", "'\\''")}'`
}

/** `--help`: the description, every flag with its type, whether it is required, its default and choices, and the JSON form. */
export function formatHelp(subject: HelpSubject, { flags, jsonOnly }: InputFlags): string {
  const command = `node ${subject.script}`
  const usage = flags.map((flag) => {
    const form = flag.kind === 'boolean' ? `--${flag.name}` : `--${flag.name}${placeholder(flag)}${flag.repeated ? '...' : ''}`
    return flag.required ? form : `[${form}]`
  })
  const lines = [`${subject.name}: ${indentDescription(subject.description)}`, '', 'Usage:', `  ${[command, ...usage].join(' ')}`]
  lines.push(`  ${command} --json < input.json    (the whole input as one JSON object on stdin)`, '')
  if (flags.length > 0) {
    lines.push('Options:')
    for (const flag of flags) {
      const form = flag.kind === 'boolean' ? `--${flag.name}, --no-${flag.name}` : `--${flag.name}${placeholder(flag)}`
      const facts = [
        flag.kind === 'boolean'
          ? 'boolean'
          : flag.kind === 'choice'
            ? `one of ${flag.choices.map((c) => JSON.stringify(c)).join(', ')}`
            : flag.kind === 'json'
              ? `${flag.expected ?? 'a value'} as JSON, e.g. ${jsonFlagExample(flag)}`
              : flag.kind,
        flag.required ? 'required' : 'optional',
        ...(flag.repeated ? ['repeat the flag for each element'] : []),
        ...(flag.default !== undefined ? [`default: ${JSON.stringify(flag.default)}`] : []),
      ]
      lines.push(`  ${form}`, `      ${facts.join('; ')}`)
      if (flag.description) lines.push(`      ${indentDescription(flag.description)}`)
    }
    lines.push('')
  }
  if (jsonOnly.length > 0) {
    lines.push('Only through --json:')
    for (const field of jsonOnly) {
      lines.push(`  ${JSON.stringify(field.name)}`, `      ${field.expected}; ${field.required ? 'required' : 'optional'}`)
      if (field.description) lines.push(`      ${indentDescription(field.description)}`)
    }
    lines.push('')
  }
  lines.push(
    'Runner options:',
    '  --json          read the whole input as one JSON object from stdin (no other flags)',
    '  --envelope 1    print the result as one JSON object, for programs (version 1: the text, structured',
    '                  output, images as base64, details, or the error), the exit code as without it',
    '  --help, -h      show this help',
    '',
    'JSON input (for --json), matching this JSON Schema:',
    JSON.stringify(subject.schema, null, 2),
    '',
    'Images a tool returns are written to files in a new temp folder; their paths, and details for the',
    'user, are printed on stderr. Exit codes: 0 success, 1 the tool failed, 2 invalid input.',
    'Set OAC_DEBUG=1 to print stack traces.',
  )
  return `${lines.join('\n')}\n`
}
