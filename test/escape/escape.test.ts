import { execFileSync } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { transform } from 'esbuild'
import fc from 'fast-check'
// marked is not our dependency: it is installed with @mariozechner/pi-coding-agent (dev), and serves
// here as an independent Markdown parser to read our Markdown back.
import { type Token, type Tokens, lexer } from 'marked'
import { parse as parseToml } from 'smol-toml'
import { describe, expect, it } from 'vitest'
import { load as loadJsYaml } from 'js-yaml'
import { Document, parse as parseYaml } from 'yaml'
import type { JsonValue } from '../../src/define/types.js'
import {
  jsLineComment,
  jsonDocument,
  jsString,
  jsValue,
  markdownCode,
  markdownFence,
  markdownWithFrontmatter,
  shellWord,
  tomlDocument,
  yamlDocument,
} from '../../src/emit/codegen/escape.js'
import { anyString, hasLoneSurrogate, hostileString } from './hostile.js'

const RUNS = Number(process.env.OAC_ESCAPE_RUNS ?? 10_000)
const TIMEOUT = 300_000

/** Through a UTF-8 file and back, as every generated file goes. */
const throughFile = (text: string): string => Buffer.from(text, 'utf8').toString('utf8')

/** Runs generated TypeScript the way it ships: esbuild transforms it, then it is evaluated. */
async function evaluate(code: string): Promise<Record<string, unknown>> {
  const js = (await transform(throughFile(code), { loader: 'ts', format: 'cjs' })).code
  const module = { exports: {} as Record<string, unknown> }
  new Function('module', 'exports', js)(module, module.exports)
  return module.exports
}

/** Plain data, keys such as `__proto__` included, for exact comparisons. */
function plain(value: unknown): unknown {
  if (value instanceof Date) return value.toISOString()
  if (Array.isArray(value)) return value.map(plain)
  if (typeof value === 'object' && value !== null) {
    const out: Record<string, unknown> = {}
    for (const key of Object.keys(value)) Object.defineProperty(out, key, { value: plain((value as Record<string, unknown>)[key]), enumerable: true })
    return out
  }
  return value
}

const objectFrom = (pairs: [string, JsonValue][]): { [key: string]: JsonValue } => {
  const out: { [key: string]: JsonValue } = {}
  for (const [key, value] of pairs) Object.defineProperty(out, key, { value, enumerable: true, writable: true, configurable: true })
  return out
}

const key = fc.oneof(hostileString.filter((s) => s.length < 50), fc.constantFrom('__proto__', 'constructor', 'toString', ''))
const number = fc.oneof(fc.integer(), fc.double({ noNaN: true, noDefaultInfinity: true }).filter((n) => !Object.is(n, -0)))

/** JSON values whose strings and keys are hostile. */
const { json } = fc.letrec<{ json: JsonValue }>((tie) => ({
  json: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    hostileString,
    number,
    fc.boolean(),
    fc.constant(null),
    fc.array(tie('json'), { maxLength: 4 }),
    fc.array(fc.tuple(key, tie('json')), { maxLength: 4 }).map(objectFrom),
  ),
}))

/** Data TOML can hold: no nulls, no empty-key surprises in arrays of mixed tables. */
const { toml } = fc.letrec<{ toml: JsonValue }>((tie) => ({
  toml: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    anyString,
    fc.integer({ min: -(2 ** 53) + 1, max: 2 ** 53 - 1 }),
    fc.double({ noNaN: true, noDefaultInfinity: true }).filter((n) => !Number.isInteger(n)),
    fc.boolean(),
    fc.array(tie('toml'), { maxLength: 3 }),
    fc.array(fc.tuple(key, tie('toml')), { maxLength: 3 }).map(objectFrom),
  ),
}))
const tomlTable = fc.array(fc.tuple(key, toml), { maxLength: 4 }).map(objectFrom)

/** Frontmatter as emitters write it: names, descriptions, tool lists, models, harness extras. */
const { yamlValue } = fc.letrec<{ yamlValue: JsonValue }>((tie) => ({
  yamlValue: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    anyString,
    number,
    fc.boolean(),
    fc.constant(null),
    fc.array(tie('yamlValue'), { maxLength: 3 }),
    fc.array(fc.tuple(key, tie('yamlValue')), { maxLength: 3 }).map(objectFrom),
  ),
}))
const frontmatter = fc.array(fc.tuple(key, yamlValue), { maxLength: 5 }).map(objectFrom)

function containsLoneSurrogate(value: unknown): boolean {
  if (typeof value === 'string') return hasLoneSurrogate(value)
  if (Array.isArray(value)) return value.some(containsLoneSurrogate)
  if (typeof value === 'object' && value !== null) return Object.entries(value).some(([k, v]) => hasLoneSurrogate(k) || containsLoneSurrogate(v))
  return false
}

describe(`escape.ts round trips (${RUNS} hostile cases per format)`, () => {
  it('jsString: a TS string literal, through esbuild, evaluates to the exact string and stays on one line', { timeout: TIMEOUT }, async () => {
    await fc.assert(
      fc.asyncProperty(anyString, async (s) => {
        const literal = jsString(s)
        expect(literal).not.toMatch(/[\n\r\u2028\u2029]/)
        expect(await evaluate(`export const a: string = ${literal};\nexport const b = \`\${${literal}}\`;\nexport const after = 1\n`)).toEqual({ a: s, b: s, after: 1 })
      }),
      { numRuns: RUNS },
    )
  })

  it('jsValue: a TS value literal evaluates to the exact data (`__proto__` keys included)', { timeout: TIMEOUT }, async () => {
    await fc.assert(
      fc.asyncProperty(json, async (value) => {
        // On one line, and one member per line (indented as inside a block).
        const exports = await evaluate(`export const value = ${jsValue(value)};\nif (true) {\n  var lines = ${jsValue(value, '  ')}\n}\nexport { lines }\nexport const after = 1\n`)
        for (const literal of [exports.value, exports.lines]) {
          expect(plain(literal)).toEqual(plain(value))
          expect(JSON.stringify(literal)).toBe(JSON.stringify(value))
        }
        expect(exports.after).toBe(1)
      }),
      { numRuns: RUNS },
    )
  })

  it('jsLineComment: the comment cannot end early, whatever the text', { timeout: TIMEOUT }, async () => {
    await fc.assert(
      fc.asyncProperty(anyString, async (s) => {
        expect(await evaluate(`// ${jsLineComment(s)}\nexport const after = 1\n`)).toEqual({ after: 1 })
      }),
      { numRuns: RUNS },
    )
  })

  it('jsonDocument: JSON.parse gives the exact data back', { timeout: TIMEOUT }, () => {
    fc.assert(
      fc.property(json, (value) => {
        expect(plain(JSON.parse(throughFile(jsonDocument(value))))).toEqual(plain(value))
      }),
      { numRuns: RUNS },
    )
  })

  it('tomlDocument: a top-level text with line breaks is a multi-line string that parses back exactly, next to other keys', { timeout: TIMEOUT }, () => {
    const text = hostileString.filter((s) => !hasLoneSurrogate(s)).map((s) => `${s}\n${s}`)
    fc.assert(
      fc.property(text, tomlTable.filter((t) => !containsLoneSurrogate(t)), (prompt, others) => {
        const table = { ...others, developer_instructions: prompt }
        const document = tomlDocument(table)
        expect(document).toContain('developer_instructions = """\n')
        expect(plain(parseToml(throughFile(document)))).toEqual(plain(table))
      }),
      { numRuns: RUNS },
    )
    // Prose stays as written: one line of the file per line of the text.
    expect(tomlDocument({ name: 'a', developer_instructions: 'Say "hi".\nThen \'bye\'.\n' })).toBe('name = "a"\ndeveloper_instructions = """\nSay "hi".\nThen \'bye\'.\n"""\n')
  })

  it('tomlDocument: smol-toml gives the exact data back, or it refuses what TOML cannot hold', { timeout: TIMEOUT }, () => {
    fc.assert(
      fc.property(tomlTable, (table) => {
        if (containsLoneSurrogate(table)) {
          expect(() => tomlDocument(table)).toThrow(/lone UTF-16 surrogate/)
          return
        }
        expect(plain(parseToml(throughFile(tomlDocument(table))))).toEqual(plain(table))
      }),
      { numRuns: RUNS },
    )
  })

  it('yamlDocument: the yaml parser gives the exact data back (lone surrogates as escapes)', { timeout: TIMEOUT }, () => {
    fc.assert(
      fc.property(frontmatter, (data) => {
        expect(plain(parseYaml(throughFile(yamlDocument(data))))).toEqual(plain(data))
      }),
      { numRuns: RUNS },
    )
  })

  it("yamlDocument: js-yaml 4.1 (Gemini CLI's reader, YAML 1.1 types such as dates) gives the exact data back too", { timeout: TIMEOUT }, () => {
    const yaml11 = fc.constantFrom('2024-01-01', '2001-12-14t21:59:43.10-05:00', '1_000', '1:20', '0o17', 'yes', 'Off', 'y', '~', '.inf', '-', '- a')
    fc.assert(
      fc.property(frontmatter, fc.dictionary(fc.string(), yaml11), (data, typed) => {
        const value = { ...data, ...typed }
        expect(plain(loadJsYaml(throughFile(yamlDocument(value))))).toEqual(plain(value))
      }),
      { numRuns: RUNS },
    )
  })

  it('yamlDocument: maps of plain words (tool permissions) come out as the yaml library writes them, and read back as strings', { timeout: TIMEOUT }, () => {
    // Words that look plain but YAML 1.1 reads as booleans or null must not take the direct path.
    const word = fc.oneof(
      fc.stringMatching(/^[A-Za-z_][A-Za-z0-9_-]{0,12}$/),
      fc.constantFrom('yes', 'No', 'ON', 'off', 'y', 'N', 'true', 'False', 'null', 'NULL', '*', '1abc', 'a b', '-a'),
    )
    const map = fc.dictionary(word, fc.oneof(word, fc.constantFrom('allow', 'deny', 'ask')), { minKeys: 1, maxKeys: 20 })
    fc.assert(
      fc.property(fc.dictionary(word, fc.oneof(map, word), { minKeys: 1, maxKeys: 4 }), (data) => {
        const text = yamlDocument(data)
        expect(plain(parseYaml(text))).toEqual(plain(data))
        // Words YAML 1.1 types (yes, off...) are quoted; the yaml library, writing YAML 1.2, leaves them plain.
        const typed = JSON.stringify(data).match(/"(?:y|n|yes|no|on|off)"/gi)
        if (!typed) expect(text).toBe(new Document(data).toString({ lineWidth: 0 }))
        else for (const word of typed) expect(text).not.toMatch(new RegExp(`(?:^|: )${word.slice(1, -1)}$`, 'm'))
      }),
      { numRuns: Math.ceil(RUNS / 10) },
    )
  })

  it('markdownWithFrontmatter: the first `---` line closes our frontmatter, which parses back exactly; the body follows', { timeout: TIMEOUT }, () => {
    fc.assert(
      fc.property(frontmatter, hostileString, (data, body) => {
        const text = throughFile(markdownWithFrontmatter(data, body))
        expect(text.startsWith('---\n')).toBe(true)
        // Frontmatter readers stop at the first line starting with `---` (some at the first `\n---` anywhere).
        const close = text.indexOf('\n---', 3)
        expect(text.slice(close, close + 6)).toBe('\n---\n\n')
        expect(plain(parseYaml(text.slice(4, close + 1)) ?? {})).toEqual(plain(data))
        expect(text.slice(close + 6)).toBe(`${body.replace(/\s+$/, '')}\n`)
      }),
      { numRuns: RUNS },
    )
  })

  it('markdownCode: a Markdown parser reads one code span with exactly the text (line breaks as spaces)', { timeout: TIMEOUT }, () => {
    fc.assert(
      // Up to 20,000 characters: marked, the reader, is slow on longer ones (the regression test below covers 300,000).
      fc.property(hostileString.filter((s) => s.length <= 20_000), (s) => {
        const expected = s.replace(/\r\n|\r|\n/g, ' ')
        fc.pre(expected !== '' && !expected.includes('\0'))
        const paragraph = lexer(`before ${markdownCode(s)} after`)[0] as Tokens.Paragraph
        expect(paragraph.type).toBe('paragraph')
        const spans = paragraph.tokens.filter((t: Token) => t.type === 'codespan') as Tokens.Codespan[]
        expect(spans.map((t) => t.text)).toEqual([expected])
        expect(paragraph.tokens.length).toBe(3)
      }),
      { numRuns: RUNS },
    )
  })

  it('markdownFence: a Markdown parser reads one code block with exactly the text (line breaks as \\n)', { timeout: TIMEOUT }, () => {
    fc.assert(
      fc.property(hostileString, (s) => {
        fc.pre(!s.includes('\0'))
        const tokens = lexer(`${markdownFence(s, 'bash')}\n\nafter\n`).filter((t: Token) => t.type !== 'space')
        expect(tokens.map((t: Token) => t.type)).toEqual(['code', 'paragraph'])
        const code = tokens[0] as Tokens.Code
        expect([code.lang, code.text]).toEqual(['bash', s.replace(/\r\n|\r/g, '\n').replace(/\n+$/, '')])
        expect((tokens[1] as Tokens.Paragraph).text).toBe('after')
      }),
      { numRuns: RUNS },
    )
  })

  it.skipIf(process.platform === 'win32')('shellWord: bash reads each word back exactly', { timeout: TIMEOUT }, () => {
    const words = fc.sample(hostileString.filter((s) => !s.includes('\0')), { numRuns: RUNS, seed: Date.now() })
    const folder = mkdtempSync(join(tmpdir(), 'oac-'))
    try {
      // One script per 500 words (a file: argument lists have a size limit), each word printed NUL-terminated.
      for (let i = 0; i < words.length; i += 500) {
        const batch = words.slice(i, i + 500)
        writeFileSync(join(folder, 'words.sh'), batch.map((word) => `printf '%s\\0' ${shellWord(word)}\n`).join(''))
        const out = execFileSync('bash', [join(folder, 'words.sh')], { maxBuffer: 1 << 28 })
        expect(out.toString('utf8').split('\0').slice(0, -1)).toEqual(batch)
      }
    } finally {
      rmSync(folder, { recursive: true, force: true })
    }
  })
})

describe('escape.ts edge cases', () => {
  it('refuses what a format cannot hold, by name', () => {
    expect(() => tomlDocument({ a: { b: null } })).toThrow(/TOML cannot hold null \(at a\.b\)/)
    expect(() => tomlDocument({ a: [1, null] })).toThrow(/TOML cannot hold null \(at a\[1\]\)/)
    expect(() => shellWord('a\0b')).toThrow(/NUL/)
  })

  it('jsValue with an indent writes one member per line, with trailing commas, empty ones inline', () => {
    expect(jsValue({ name: 'x', list: [1, true], empty: {}, none: [] }, '    ')).toBe(
      ['{', '      "name": "x",', '      "list": [', '        1,', '        true,', '      ],', '      "empty": {},', '      "none": [],', '    }'].join('\n'),
    )
  })

  it('regressions found by the properties above', async () => {
    // A plain `__proto__` key in an object literal sets the prototype: the data was lost.
    expect(JSON.stringify((await evaluate(`export const v = ${jsValue(objectFrom([['__proto__', 1]]))}`)).v)).toBe('{"__proto__":1}')
    // A byte order mark starting a plain key or value is stripped by YAML readers.
    expect(parseYaml(yamlDocument({ '\ufeffk': '\ufeffv' }))).toEqual({ '\ufeffk': '\ufeffv' })
    // yaml folds long double-quoted strings; a folded line starting with a space read back as a backslash.
    const long = `${'x'.repeat(50)}\n \n---\n`
    expect(parseYaml(yamlDocument({ k: long }))).toEqual({ k: long })
    expect(markdownWithFrontmatter({ k: long }, 'body').split('\n').filter((line) => line.startsWith('---'))).toEqual(['---', '---'])
    // A line break inside inline code made the next line a setext heading underline.
    expect((lexer(`a ${markdownCode('\n---\n')} b`)[0] as Tokens.Paragraph).type).toBe('paragraph')
    // A lone carriage return is a line break to Markdown readers; trailing line breaks are not kept by all.
    expect((lexer(markdownFence('a\r\n\n'))[0] as Tokens.Code).text).toBe('a')
    // TOML cannot hold a lone surrogate: smol-toml silently wrote U+FFFD instead.
    expect(() => tomlDocument({ k: 'a\ud800' })).toThrow(/lone UTF-16 surrogate/)
    // Math.max(...runs) overflowed the stack on a text with 150,000 backtick runs.
    const runs = '`a'.repeat(150_000)
    expect(markdownCode(runs).startsWith('`` `a')).toBe(true)
    expect(markdownFence(runs).startsWith('```\n`a')).toBe(true)
  })

  it('keeps inline code readable for ordinary text', () => {
    expect(markdownCode('node scripts/x.mjs --city')).toBe('`node scripts/x.mjs --city`')
    expect(markdownCode('a`b')).toBe('``a`b``')
    expect(markdownCode('`a')).toBe('`` `a ``')
    expect(markdownCode(' a ')).toBe('`  a  `')
  })
})
