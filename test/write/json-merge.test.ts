import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import type { JsonValue } from '../../src/define/types.js'
import { OacError } from '../../src/diagnostics.js'
import type { MergeEntry, MergeFile } from '../../src/emit/types.js'
import { mergeJsonText } from '../../src/write/index.js'
import { mergeJson } from '../../src/write/json-merge.js'
import { hostileString } from '../escape/hostile.js'
import { jsoncComments, jsoncStyle, jsoncValue, printJsonc } from './jsonc-print.js'
import { thrown } from '../util/errors.js'

const ours = (value: JsonValue, name = 'oac-tools'): MergeEntry => ({ keyPath: ['mcpServers', name], value })
const mcpJson = (entries: MergeEntry[]): MergeFile => ({ kind: 'merge', path: '.mcp.json', format: 'json', entries })
const server = { command: 'node', args: ['scripts/mcp_tools_server.mjs'], env: { API_URL: '${API_URL}' } }

describe('mergeJsonText on hand-written files', () => {
  // Tabs, CRLF, JSONC comments (line and block), trailing commas, a compact server, odd spacing.
  const userFile = [
    '// Project MCP servers',
    '{',
    '\t"mcpServers": {',
    '\t\t// GitHub, for reviews',
    '\t\t"github": {"command": "gh", "args": ["mcp"],},',
    '\t\t"db": {',
    '\t\t\t"command": "db-mcp", /* local only */',
    '\t\t}, // trailing comment',
    '\t},',
    '\t"unknownTopLevel": [1, 2,   3],',
    '}',
    '',
  ].join('\r\n')

  const withOurs = [
    '// Project MCP servers',
    '{',
    '\t"mcpServers": {',
    '\t\t// GitHub, for reviews',
    '\t\t"github": {"command": "gh", "args": ["mcp"],},',
    '\t\t"db": {',
    '\t\t\t"command": "db-mcp", /* local only */',
    '\t\t}, // trailing comment',
    '\t\t"oac-tools": {',
    '\t\t\t"command": "node",',
    '\t\t\t"args": [',
    '\t\t\t\t"scripts/mcp_tools_server.mjs"',
    '\t\t\t],',
    '\t\t\t"env": {',
    '\t\t\t\t"API_URL": "${API_URL}"',
    '\t\t\t}',
    '\t\t},',
    '\t},',
    '\t"unknownTopLevel": [1, 2,   3],',
    '}',
    '',
  ].join('\r\n')

  it('adds our server in the file’s own style and changes nothing else', () => {
    expect(mergeJsonText(userFile, mcpJson([ours(server)]), [])).toBe(withOurs)
  })

  it('is idempotent, and removing our entry gives back the user’s file byte for byte', () => {
    expect(mergeJsonText(withOurs, mcpJson([ours(server)]), [ours(server)])).toBe(withOurs)
    expect(mergeJsonText(withOurs, mcpJson([]), [ours(server)])).toBe(userFile)
  })

  it('replaces our existing entry in place, keeping the servers around it', () => {
    const before = ['{', '    "mcpServers": {', '        "oac-tools": { "command": "old" },', '        "other": { "command": "x" }', '    }', '}', ''].join('\n')
    const after = [
      '{',
      '    "mcpServers": {',
      '        "oac-tools": {',
      '            "command": "node"',
      '        },',
      '        "other": { "command": "x" }',
      '    }',
      '}',
      '',
    ].join('\n')
    expect(mergeJsonText(before, mcpJson([ours({ command: 'node' })]), [])).toBe(after)
  })

  it('adds a missing "mcpServers" after the last key, with the file’s indentation', () => {
    const before = '{\n    "other": true\n}'
    const after = '{\n    "other": true,\n    "mcpServers": {\n        "oac-tools": {\n            "command": "node"\n        }\n    }\n}'
    expect(mergeJsonText(before, mcpJson([ours({ command: 'node' })]), [])).toBe(after)
  })

  it('writes a value holding -0, which JSON spells 0, and reads it back as written', () => {
    // Found by the ownership property test: the read-back check told -0 from the 0 JSON writes.
    const merged = mergeJsonText('{}\n', mcpJson([ours({ timeout: -0 })]), [])
    expect(JSON.parse(merged)).toEqual({ mcpServers: { 'oac-tools': { timeout: 0 } } })
  })

  it('creates a missing file with just our entries', () => {
    expect(mergeJsonText(undefined, mcpJson([ours({ command: 'node' })]), [])).toBe(
      '{\n  "mcpServers": {\n    "oac-tools": {\n      "command": "node"\n    }\n  }\n}\n',
    )
  })

  it('removes entries we no longer emit and keeps the rest', () => {
    const before = '{\n  "mcpServers": {\n    "a": {},\n    "old-tools": {\n      "command": "x"\n    },\n    "b": {}\n  }\n}\n'
    const after = '{\n  "mcpServers": {\n    "a": {},\n    "b": {}\n  }\n}\n'
    expect(mergeJsonText(before, mcpJson([]), [ours(null, 'old-tools')])).toBe(after)
  })

  it('a broken file fails with its line and column', () => {
    const broken = '{\n  "mcpServers": {\n    "a": {}\n    "b": {}\n  }\n}\n'
    const error = thrown(() => mergeJsonText(broken, mcpJson([ours(server)]), []))
    expect(error.diagnostics[0]).toMatchObject({ code: 'merge-parse-error', file: '.mcp.json', line: 4, column: 5 })
    expect(error.diagnostics[0]?.fix).toMatch(/Fix the JSON/)
  })

  it('"mcpServers" that is not an object fails, naming the key and its line', () => {
    const error = thrown(() => mergeJsonText('{\n  "x": 1,\n  "mcpServers": ["a"]\n}\n', mcpJson([ours(server)]), []))
    expect(error.diagnostics[0]).toMatchObject({ code: 'merge-unexpected-shape', line: 3, column: 17 })
    expect(error.diagnostics[0]?.message).toMatch(/"mcpServers" in \.mcp\.json is an array/)
  })

  it('a document that is not an object, or a duplicated key on our path, fails', () => {
    expect(thrown(() => mergeJsonText('[1, 2]', mcpJson([ours(server)]), [])).diagnostics[0]?.code).toBe('merge-unexpected-shape')
    const duplicate = '{\n  "mcpServers": {},\n  "mcpServers": {}\n}\n'
    expect(thrown(() => mergeJsonText(duplicate, mcpJson([ours(server)]), [])).diagnostics[0]).toMatchObject({ line: 3 })
  })

  it('keeps `__proto__` keys as keys (no prototype games)', () => {
    const merged = mergeJsonText('{"__proto__": {"x": 1}}', mcpJson([ours({ command: 'node' })]), [])
    expect(Object.keys(jsoncValue(merged) as object)).toEqual(['__proto__', 'mcpServers'])
  })
})

// ---------------------------------------------------------------- property tests

/** fast-check's JSON values, typed as ours. */
const anyJson = (maxDepth: number): fc.Arbitrary<JsonValue> => fc.jsonValue({ maxDepth }) as fc.Arbitrary<JsonValue>

const serverValue: fc.Arbitrary<JsonValue> = fc.record({
  command: hostileString,
  args: fc.array(hostileString, { maxLength: 3 }),
  env: fc.dictionary(fc.string({ maxLength: 10 }), hostileString, { maxKeys: 3 }),
})

const userDocument = fc
  .record({
    servers: fc.option(fc.dictionary(fc.string({ maxLength: 8 }), anyJson(2), { maxKeys: 4 }), { nil: undefined }),
    extra: fc.dictionary(fc.string({ maxLength: 8 }), anyJson(2), { maxKeys: 4 }),
  })
  .map(({ servers, extra }) => {
    const doc: { [key: string]: JsonValue } = {}
    for (const [key, value] of Object.entries(extra)) if (key !== 'mcpServers' && key !== '__proto__') doc[key] = value
    if (servers) {
      const plain: { [key: string]: JsonValue } = {}
      for (const [key, value] of Object.entries(servers)) if (key !== '__proto__') plain[key] = value
      doc.mcpServers = plain
    }
    return doc
  })

function withoutOurs(value: JsonValue, entries: MergeEntry[], dropEmptyServers: boolean): JsonValue {
  const copy = structuredClone(value) as { [key: string]: { [key: string]: JsonValue } }
  for (const entry of entries) delete copy.mcpServers?.[entry.keyPath[1] as string]
  if (dropEmptyServers && copy.mcpServers && Object.keys(copy.mcpServers).length === 0) delete copy.mcpServers
  return copy
}

describe('mergeJsonText properties (random user documents, styles, comments and entries)', () => {
  it('our entries come out exact, the user’s values and comments unchanged; idempotent; removal restores the bytes', () => {
    const names = fc.uniqueArray(fc.oneof(fc.constant('oac-tools'), hostileString.filter((s) => s.length < 40 && s !== '__proto__')), {
      minLength: 1,
      maxLength: 3,
    })
    fc.assert(
      fc.property(userDocument, jsoncStyle, names, fc.array(serverValue, { minLength: 3, maxLength: 3 }), (doc, style, serverNames, values) => {
        const servers = (doc.mcpServers ?? {}) as { [key: string]: JsonValue }
        const entries = serverNames.filter((name) => !Object.hasOwn(servers, name)).map((name, i) => ours(values[i] as JsonValue, name))
        const original = printJsonc(doc, style)
        const file = mcpJson(entries)
        // What the merge made around our entries goes to the next merge, as the manifest carries it.
        const { text: merged, scaffold } = mergeJson(original, file, [], undefined)
        const after = jsoncValue(merged) as { mcpServers?: { [key: string]: JsonValue } }
        for (const entry of entries) expect(after.mcpServers?.[entry.keyPath[1] as string]).toEqual(entry.value)
        const hadServers = doc.mcpServers !== undefined
        expect(withoutOurs(after, entries, !hadServers)).toEqual(jsoncValue(original))
        expect(jsoncComments(merged)).toEqual(jsoncComments(original))
        expect(mergeJson(merged, file, entries, scaffold).text).toBe(merged)
        const removed = mergeJson(merged, mcpJson([]), entries, scaffold).text
        if (hadServers || entries.length === 0) expect(removed).toBe(original)
        else expect(withoutOurs(jsoncValue(removed), [], true)).toEqual(jsoncValue(original))
      }),
      { numRuns: 1000 },
    )
  })

  it('a parent of our key that is not an object always fails (never a silent rewrite)', () => {
    const notObject = fc.oneof(fc.array(anyJson(1)), fc.string(), fc.double({ noNaN: true, noDefaultInfinity: true }), fc.boolean(), fc.constant(null))
    fc.assert(
      fc.property(notObject, jsoncStyle, (servers, style) => {
        const error = thrown(() => mergeJsonText(printJsonc({ mcpServers: servers }, style), mcpJson([ours(server)]), []))
        expect(error.diagnostics[0]?.code).toBe('merge-unexpected-shape')
        expect(error.diagnostics[0]?.line).toBeGreaterThan(0)
      }),
      { numRuns: 1000 },
    )
  })

  it('a truncated document fails with a parse error, or merges correctly if the cut left valid JSON', () => {
    fc.assert(
      fc.property(userDocument, jsoncStyle, fc.nat(), (doc, style, cut) => {
        const text = printJsonc(doc, style)
        const prefix = text.slice(0, cut % (text.length + 1))
        let merged: string
        try {
          merged = mergeJsonText(prefix, mcpJson([ours(server, 'zz-ours')]), [])
        } catch (error) {
          expect(error).toBeInstanceOf(OacError)
          expect(['merge-parse-error', 'merge-unexpected-shape']).toContain((error as OacError).diagnostics[0]?.code)
          return
        }
        expect((jsoncValue(merged) as { mcpServers: { [key: string]: JsonValue } }).mcpServers['zz-ours']).toEqual(server)
      }),
      { numRuns: 1000 },
    )
  })
})

describe('mergeJsonText: items of a list (Claude Code and Qwen Code permission rules)', () => {
  const item = (name: string, list = 'allow'): MergeEntry => ({ keyPath: ['permissions', list, '[]', name], value: name })
  const settings = (entries: MergeEntry[]): MergeFile => ({ kind: 'merge', path: '.claude/settings.json', format: 'json', entries })

  const userFile = [
    '{',
    '  // mine',
    '  "permissions": {',
    '    "allow": [',
    '      "Bash(npm test)", // tests',
    '      "Read"',
    '    ],',
    '    "defaultMode": "default"',
    '  },',
    '  "model": "opus"',
    '}',
    '',
  ].join('\n')

  it('adds our items at the end of the user’s list, each on its own line, and takes them out again byte for byte', () => {
    const withOurs = mergeJsonText(userFile, settings([item('mcp__oac-tools__a'), item('mcp__oac-tools__b')]), [])
    expect(withOurs).toBe(userFile.replace('      "Read"\n', '      "Read",\n      "mcp__oac-tools__a",\n      "mcp__oac-tools__b"\n'))
    expect(mergeJsonText(withOurs, settings([item('mcp__oac-tools__a'), item('mcp__oac-tools__b')]), [])).toBe(withOurs)
    const stale = [{ keyPath: item('mcp__oac-tools__a').keyPath }, { keyPath: item('mcp__oac-tools__b').keyPath }]
    expect(mergeJsonText(withOurs, settings([]), stale)).toBe(userFile)
    expect(mergeJsonText(withOurs, settings([item('mcp__oac-tools__b')]), stale.slice(0, 1))).toBe(userFile.replace('      "Read"\n', '      "Read",\n      "mcp__oac-tools__b"\n'))
  })

  it('makes the list (and its parents) when missing, and adds to a compact or an empty one', () => {
    expect(mergeJsonText('{\n  "model": "opus"\n}\n', settings([item('x', 'ask')]), [])).toBe('{\n  "model": "opus",\n  "permissions": {\n    "ask": [\n      "x"\n    ]\n  }\n}\n')
    expect(mergeJsonText(undefined, settings([item('x'), item('y'), item('z', 'ask')]), [])).toBe('{\n  "permissions": {\n    "allow": [\n      "x",\n      "y"\n    ],\n    "ask": [\n      "z"\n    ]\n  }\n}\n')
    const compact = '{"permissions": {"allow": ["Read", "Grep"]}}\n'
    const added = mergeJsonText(compact, settings([item('x')]), [])
    expect(added).toBe('{"permissions": {"allow": ["Read", "Grep","x"]}}\n')
    expect(mergeJsonText(added, settings([]), [{ keyPath: item('x').keyPath }])).toBe(compact)
    const empty = '{\n  "permissions": { "allow": [] }\n}\n'
    const filled = mergeJsonText(empty, settings([item('x')]), [])
    expect(jsoncValue(filled)).toEqual({ permissions: { allow: ['x'] } })
    expect(mergeJsonText(filled, settings([]), [{ keyPath: item('x').keyPath }])).toBe(empty)
  })

  it('leaves an item the user wrote where it is, reads it as there, and takes out only the last one', () => {
    const file = '{ "permissions": { "allow": [\n  "x",\n  "Read"\n] } }\n'
    expect(mergeJsonText(file, settings([item('x')]), [])).toBe(file)
    const twice = '{ "permissions": { "allow": [\n  "x",\n  "Read",\n  "x"\n] } }\n'
    expect(mergeJsonText(twice, settings([]), [{ keyPath: item('x').keyPath }])).toBe(file)
  })

  it('refuses a list that is not a list, naming where, and leaves the file alone', () => {
    const file = '{\n  "permissions": {\n    "allow": "Read"\n  }\n}\n'
    const error = thrown(() => mergeJsonText(file, settings([item('x')]), []))
    expect(error).toBeInstanceOf(OacError)
    expect((error as OacError).diagnostics).toEqual([
      expect.objectContaining({ code: 'merge-unexpected-shape', line: 3, message: expect.stringContaining('"permissions.allow" in .claude/settings.json is a string, but unplugin-oac adds its entry "x" to a list there') }),
    ])
  })
})
