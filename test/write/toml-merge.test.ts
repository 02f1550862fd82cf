import fc from 'fast-check'
import { parse } from 'smol-toml'
import { describe, expect, it } from 'vitest'
import type { JsonValue } from '../../src/define/types.js'
import { OacError } from '../../src/diagnostics.js'
import type { MergeEntry, MergeFile } from '../../src/emit/types.js'
import { mergeTomlText } from '../../src/write/index.js'
import { mergeToml } from '../../src/write/toml-merge.js'
import { hostileString } from '../escape/hostile.js'
import { printToml, userToml } from './toml-print.js'
import { thrown } from '../util/errors.js'

const agentToml = (entries: MergeEntry[]): MergeFile => ({ kind: 'merge', path: '.codex/agents/planner.toml', format: 'toml', entries })
const entry = (keyPath: string[], value: JsonValue): MergeEntry => ({ keyPath, value })
const ourEntries = [
  entry(['name'], 'planner'),
  entry(['description'], 'Plans "work"'),
  entry(['developer_instructions'], 'Plan the work.\nUse the tools.'),
  entry(['mcp_servers', 'oac-tools'], { command: 'node', args: ['scripts/mcp_tools_server.mjs'], enabled_tools: ['forecast'] }),
]

/** Plain data (smol-toml gives null-prototype objects and dates). */
function plain(text: string): unknown {
  return JSON.parse(JSON.stringify(parse(text)))
}

describe('mergeTomlText on hand-written files', () => {
  const userFile = [
    '# Reviewer agent (hand-written)',
    'name = "reviewer" # replaced: the name is ours',
    'model = "o3"',
    'model_reasoning_effort = "high"   # keep this comment',
    'sandbox_mode = "read-only"',
    "developer_instructions = '''",
    'Review carefully.',
    '[mcp_servers.oac-tools]',
    'this line is inside a string',
    "'''",
    '',
    '# Servers the team added by hand',
    '[mcp_servers.github]',
    'command = "gh"',
    'args = [',
    '  "mcp", # the subcommand',
    '  "serve",',
    ']',
    '',
    '[mcp_servers.github.env]',
    'GH_HOST = "github.example.com"',
    '',
  ].join('\n')

  const withOurs = [
    '# Reviewer agent (hand-written)',
    'name = "planner"',
    'model = "o3"',
    'model_reasoning_effort = "high"   # keep this comment',
    'sandbox_mode = "read-only"',
    // A text with line breaks is written as a multi-line string.
    'developer_instructions = """',
    'Plan the work.',
    'Use the tools."""',
    'description = "Plans \\"work\\""',
    '',
    '# Servers the team added by hand',
    '[mcp_servers.github]',
    'command = "gh"',
    'args = [',
    '  "mcp", # the subcommand',
    '  "serve",',
    ']',
    '',
    '[mcp_servers.github.env]',
    'GH_HOST = "github.example.com"',
    '',
    '[mcp_servers.oac-tools]',
    'command = "node"',
    'args = [ "scripts/mcp_tools_server.mjs" ]',
    'enabled_tools = [ "forecast" ]',
    '',
  ].join('\n')

  it('replaces our keys in place, adds the rest, and leaves every other byte (comments included) alone', () => {
    expect(mergeTomlText(userFile, agentToml(ourEntries), [])).toBe(withOurs)
  })

  it('is idempotent', () => {
    expect(mergeTomlText(withOurs, agentToml(ourEntries), ourEntries)).toBe(withOurs)
  })

  it('replaces our table where it is, sub-tables included, and keeps what follows', () => {
    const before = [
      '[mcp_servers.oac-tools]',
      'command = "old"',
      '',
      '[mcp_servers.oac-tools.env]',
      'OLD = "1"',
      '',
      '# about the next server',
      '[mcp_servers.other]',
      "command = 'x'",
      '',
    ].join('\r\n')
    const after = [
      '[mcp_servers.oac-tools]',
      'command = "node"',
      '',
      '[mcp_servers.oac-tools.env]',
      'API_URL = "https://example.com"',
      '',
      '# about the next server',
      '[mcp_servers.other]',
      "command = 'x'",
      '',
    ].join('\r\n')
    const ours = entry(['mcp_servers', 'oac-tools'], { command: 'node', env: { API_URL: 'https://example.com' } })
    expect(mergeTomlText(before, agentToml([ours]), [])).toBe(after)
  })

  it('removes entries we no longer emit, and only those', () => {
    const before = ['model = "o3"', 'nickname_candidates = ["a"]', '', '[mcp_servers.old-tools]', 'command = "node"', '', '[mcp_servers.other]', 'command = "x"', ''].join('\n')
    const after = ['model = "o3"', '', '[mcp_servers.other]', 'command = "x"', ''].join('\n')
    const previous = [entry(['nickname_candidates'], null), entry(['mcp_servers', 'old-tools'], null)]
    expect(mergeTomlText(before, agentToml([]), previous)).toBe(after)
  })

  it('creates a missing file with just our entries', () => {
    const created = mergeTomlText(undefined, agentToml(ourEntries.slice(0, 1).concat(ourEntries.slice(3))), [])
    expect(created).toBe(['name = "planner"', '', '[mcp_servers.oac-tools]', 'command = "node"', 'args = [ "scripts/mcp_tools_server.mjs" ]', 'enabled_tools = [ "forecast" ]', ''].join('\n'))
  })

  it('a broken file fails with its line', () => {
    const error = thrown(() => mergeTomlText('model = "o3"\nname = "unterminated\n', agentToml(ourEntries), []))
    expect(error.diagnostics[0]).toMatchObject({ code: 'merge-parse-error', file: '.codex/agents/planner.toml', line: 2 })
    expect(error.diagnostics[0]?.fix).toMatch(/Fix the TOML/)
  })

  it('mcp_servers that is not a table of tables fails, naming where it is', () => {
    const shapes: [string, number, RegExp][] = [
      ['model = "o3"\nmcp_servers = { github = { command = "gh" } }\n', 2, /an inline table/],
      ['model = "o3"\n\n[[mcp_servers]]\ncommand = "gh"\n', 3, /an array of tables/],
      ['mcp_servers = "none"\n', 1, /a string/],
    ]
    for (const [text, line, shape] of shapes) {
      const error = thrown(() => mergeTomlText(text, agentToml(ourEntries), []))
      expect(error.diagnostics[0]).toMatchObject({ code: 'merge-unexpected-shape', line })
      expect(error.diagnostics[0]?.message).toMatch(shape)
    }
  })
})

describe('mergeTomlText blank lines as entries come and go (found by the ownership property test)', () => {
  const server = entry(['mcp_servers', 'oac-tools'], { command: 'node', args: [] })
  const name = entry(['name'], 'planner')

  it('gives back the blank line below a comment of the user’s when a key line of ours goes before our table', () => {
    const user = '# Codex agent, hand-written\n\n'
    const both = mergeTomlText(user, agentToml([name, server]), [])
    expect(both).toBe('# Codex agent, hand-written\n\nname = "planner"\n\n[mcp_servers.oac-tools]\ncommand = "node"\nargs = []\n')
    const tableOnly = mergeTomlText(both, agentToml([server]), [{ keyPath: ['name'] }])
    expect(tableOnly).toBe('# Codex agent, hand-written\n\n\n[mcp_servers.oac-tools]\ncommand = "node"\nargs = []\n')
    expect(mergeTomlText(tableOnly, agentToml([]), [{ keyPath: ['mcp_servers', 'oac-tools'] }])).toBe(user)
  })

  it('takes the blank line it put between a key of ours and the user’s first table, also below a note added later', () => {
    const withName = mergeTomlText('[profile]\n', agentToml([name]), [])
    expect(withName).toBe('name = "planner"\n\n[profile]\n')
    const note = '# a note the user added later\n\n'
    expect(mergeTomlText(note + withName, agentToml([]), [{ keyPath: ['name'] }])).toBe(`${note}[profile]\n`)
  })

  it('takes the blank line it put above the user’s table when that table, taken with force, is given back', () => {
    const user = '\n[mcp_servers.github]\n'
    const forced = mergeTomlText(user, agentToml([name, entry(['mcp_servers', 'github'], { command: 'node' })]), [])
    expect(forced).toBe('\nname = "planner"\n\n[mcp_servers.github]\ncommand = "node"\n')
    const original = { value: {}, text: '[mcp_servers.github]\n' }
    expect(mergeTomlText(forced, agentToml([]), [{ keyPath: ['name'] }, { keyPath: ['mcp_servers', 'github'], original }])).toBe(user)
  })

  // A file we created holds our tables alone; the user then types a note and a blank line above them. The
  // text is byte for byte what appending our tables below a note gives: only the separator the manifest
  // records ('' here) tells the two apart.
  it('keeps the blank line a user typed above our tables in a file we created, when our tables go', () => {
    const created = mergeToml('', agentToml([server]), [], { kept: [], forced: [] })
    expect(created).toEqual({ text: '[mcp_servers.oac-tools]\ncommand = "node"\nargs = []\n', tablesSeparator: '' })
    const note = '# a note the user added later\n\n'
    const removed = mergeToml(note + created.text, agentToml([]), [{ keyPath: ['mcp_servers', 'oac-tools'] }], { kept: [], forced: [], tablesSeparator: created.tablesSeparator })
    expect(removed).toEqual({ text: note })
  })

  it('takes the blank line it put above its tables', () => {
    for (const user of ['# a note\n', '# a note\n\n', 'model = "o3"\r\n']) {
      const added = mergeToml(user, agentToml([server]), [], { kept: [], forced: [] })
      expect(added.tablesSeparator).toBe(user.endsWith('\r\n') ? '\r\n' : '\n')
      expect(mergeToml(added.text, agentToml([]), [{ keyPath: server.keyPath }], { kept: [], forced: [], tablesSeparator: added.tablesSeparator }).text).toBe(user)
    }
  })

  it('keeps the separator of its last tables while one of them stays, and a blank line the user typed in its place', () => {
    const other = entry(['mcp_servers', 'oac-more'], { command: 'node' })
    const both = mergeToml('', agentToml([server, other]), [], { kept: [], forced: [] })
    expect(both.tablesSeparator).toBe('')
    // The first goes (with the blank line below it), the second is already right: the file still starts with our table.
    const one = mergeToml(both.text, agentToml([]), [{ keyPath: server.keyPath }], { kept: [other.keyPath], forced: [], tablesSeparator: '' })
    expect(one).toEqual({ text: '[mcp_servers.oac-more]\ncommand = "node"\n', tablesSeparator: '' })
    // The user's text above a blank line that was ours: the blank line goes; one the user typed instead of it stays.
    const below = mergeToml('# mine\n', agentToml([server]), [], { kept: [], forced: [] })
    const edited = below.text.replace('# mine\n\n', '# mine\n   \n')
    expect(mergeToml(edited, agentToml([]), [{ keyPath: server.keyPath }], { kept: [], forced: [], tablesSeparator: below.tablesSeparator }).text).toBe('# mine\n   \n')
    const joined = below.text.replace('# mine\n\n', '# mine\n')
    expect(mergeToml(joined, agentToml([]), [{ keyPath: server.keyPath }], { kept: [], forced: [], tablesSeparator: below.tablesSeparator }).text).toBe('# mine\n')
  })

  it('a key line of ours put above its tables at the start of a file it created: the blank line between is theirs now, also below a note typed right above the key', () => {
    const created = mergeToml('', agentToml([server]), [], { kept: [], forced: [] })
    const withName = mergeToml(created.text, agentToml([name]), [], { kept: [server.keyPath], forced: [], tablesSeparator: created.tablesSeparator })
    expect(withName).toEqual({ text: 'name = "planner"\n\n[mcp_servers.oac-tools]\ncommand = "node"\nargs = []\n', tablesSeparator: '\n' })
    const table = '[mcp_servers.oac-tools]\ncommand = "node"\nargs = []\n'
    const context = { kept: [], forced: [], tablesSeparator: withName.tablesSeparator }
    const both = [{ keyPath: name.keyPath }, { keyPath: server.keyPath }]
    for (const note of ['# a note the user added later\n', '# a note the user added later\n\n']) {
      expect(mergeToml(note + withName.text, agentToml([]), both, context).text).toBe(note)
      const tableOnly = mergeToml(note + withName.text, agentToml([]), [{ keyPath: name.keyPath }], { ...context, kept: [server.keyPath] })
      expect(tableOnly).toEqual({ text: `${note}\n${table}`, tablesSeparator: '\n' })
      expect(mergeToml(tableOnly.text, agentToml([]), [{ keyPath: server.keyPath }], context).text).toBe(note)
    }
    // Without the note the key goes with the blank line, and the table starts the file again.
    expect(mergeToml(withName.text, agentToml([]), [{ keyPath: name.keyPath }], { ...context, kept: [server.keyPath] })).toEqual({ text: table, tablesSeparator: '' })
  })

  it('a key line of ours put above the blank lines above its tables takes none of them (the property test found it)', () => {
    const note = '# a note the user added later\n\n'
    const added = mergeToml(note, agentToml([server]), [], { kept: [], forced: [] })
    expect(added.tablesSeparator).toBe('\n')
    const withName = mergeToml(added.text, agentToml([name]), [], { kept: [server.keyPath], forced: [], tablesSeparator: added.tablesSeparator })
    // Between the user's blank line and the one of ours above the table, which stays the table's.
    expect(withName).toEqual({ text: `# a note the user added later\n\nname = "planner"\n\n[mcp_servers.oac-tools]\ncommand = "node"\nargs = []\n`, tablesSeparator: '\n' })
    const context = { kept: [server.keyPath], forced: [], tablesSeparator: withName.tablesSeparator }
    const tableOnly = mergeToml(withName.text, agentToml([]), [{ keyPath: name.keyPath }], context)
    expect(tableOnly).toEqual(added)
    expect(mergeToml(tableOnly.text, agentToml([]), [{ keyPath: server.keyPath }], { ...context, kept: [] }).text).toBe(note)
  })

  it('keeps the blank lines a user typed below its tables at the end of the file', () => {
    const added = mergeToml('# mine\n', agentToml([server]), [], { kept: [], forced: [] })
    const context = { kept: [], forced: [], tablesSeparator: added.tablesSeparator }
    expect(mergeToml(`${added.text}\n\n`, agentToml([]), [{ keyPath: server.keyPath }], context).text).toBe('# mine\n\n\n')
    const other = entry(['mcp_servers', 'oac-more'], { command: 'node' })
    const two = mergeToml('# mine\n', agentToml([server, other]), [], { kept: [], forced: [] })
    expect(mergeToml(`${two.text}\n`, agentToml([]), [{ keyPath: other.keyPath }], { ...context, kept: [server.keyPath] }).text).toBe(`${added.text}\n`)
  })

  it('text the user typed below its tables stays, and the blank line above them goes (with the blank line that joins two of ours)', () => {
    const other = entry(['mcp_servers', 'oac-more'], { command: 'node' })
    const two = mergeToml('# mine\n', agentToml([server, other]), [], { kept: [], forced: [] })
    const context = { kept: [], forced: [], tablesSeparator: two.tablesSeparator }
    for (const tail of ['# typed below\n', '\n[mcp_servers.github]\ncommand = "gh"\n']) {
      expect(mergeToml(two.text + tail, agentToml([]), [{ keyPath: server.keyPath }, { keyPath: other.keyPath }], context).text).toBe(`# mine\n${tail}`)
      const firstGoes = mergeToml(two.text + tail, agentToml([]), [{ keyPath: server.keyPath }], { ...context, kept: [other.keyPath] })
      expect(firstGoes).toEqual({ text: `# mine\n\n[mcp_servers.oac-more]\ncommand = "node"\n${tail}`, tablesSeparator: '\n' })
      const lastGoes = mergeToml(two.text + tail, agentToml([]), [{ keyPath: other.keyPath }], { ...context, kept: [server.keyPath] })
      expect(lastGoes).toEqual({ text: `# mine\n\n[mcp_servers.oac-tools]\ncommand = "node"\nargs = []\n${tail}`, tablesSeparator: '\n' })
      // Tables appended below the user's text are our last tables now, with a separator of their own.
      const below = mergeToml(lastGoes.text, agentToml([other]), [], { ...context, kept: [server.keyPath] })
      expect(below.tablesSeparator).toBe('\n')
      expect(mergeToml(below.text, agentToml([]), [{ keyPath: other.keyPath }], { ...context, kept: [server.keyPath] }).text).toBe(lastGoes.text)
    }
  })

  it('without a recorded separator (a manifest of an earlier build) takes one blank line above its tables, as those builds did', () => {
    const note = '# a note\n\n'
    expect(mergeTomlText(`${note}[mcp_servers.oac-tools]\ncommand = "node"\nargs = []\n`, agentToml([]), [{ keyPath: server.keyPath }])).toBe('# a note\n')
  })
})

// ---------------------------------------------------------------- property tests

const serverName = fc.oneof(fc.constant('oac-tools'), hostileString.filter((s) => s.length > 0 && s.length < 30))
const ourServer = fc.record({
  command: hostileString,
  args: fc.array(hostileString, { maxLength: 3 }),
  enabled_tools: fc.array(fc.string({ maxLength: 10 }), { maxLength: 3 }),
  startup_timeout_sec: fc.constantFrom(10.5, 20.25),
  env: fc.dictionary(fc.string({ minLength: 1, maxLength: 8 }), hostileString, { maxKeys: 2 }),
})
const ours = fc
  .record({
    name: hostileString,
    description: hostileString,
    instructions: hostileString,
    servers: fc.uniqueArray(fc.tuple(serverName, ourServer), { minLength: 1, maxLength: 2, selector: ([name]) => name }),
  })
  .map(({ name, description, instructions, servers }) => [
    entry(['name'], name),
    entry(['description'], description),
    entry(['developer_instructions'], instructions),
    ...servers.map(([server, value]) => entry(['mcp_servers', server], value)),
  ])

function parses(text: string): boolean {
  try {
    parse(text)
    return true
  } catch {
    return false
  }
}

function without(value: unknown, entries: MergeEntry[]): unknown {
  const copy = structuredClone(value) as Record<string, Record<string, unknown>>
  for (const { keyPath } of entries) {
    if (keyPath.length === 1) delete copy[keyPath[0] as string]
    else delete copy[keyPath[0] as string]?.[keyPath[1] as string]
  }
  if (copy.mcp_servers && Object.keys(copy.mcp_servers).length === 0) delete copy.mcp_servers
  return copy
}

function getPath(value: unknown, path: string[]): unknown {
  return path.reduce<unknown>((node, key) => (node as Record<string, unknown> | undefined)?.[key], value)
}

/** True when `needles` appear in `text` in this order. */
function inOrder(text: string, needles: string[]): boolean {
  let from = 0
  for (const needle of needles) {
    const at = text.indexOf(needle, from)
    if (at === -1) return false
    from = at + needle.length
  }
  return true
}

describe('mergeTomlText properties (random hand-written agent files and entries)', () => {
  it('our entries come out exact, user values and comments unchanged; idempotent; removal restores the bytes', () => {
    let merges = 0
    fc.assert(
      fc.property(userToml, ours, (doc, entries) => {
        const { text: original, comments } = printToml(doc)
        fc.pre(parses(original))
        const before = plain(original)
        fc.pre(entries.every(({ keyPath }) => keyPath.length === 1 || getPath(before, keyPath) === undefined))
        const file = agentToml(entries)
        const merged = mergeTomlText(original, file, [])
        merges++
        const after = plain(merged)
        for (const { keyPath, value } of entries) expect(getPath(after, keyPath)).toEqual(value)
        expect(without(after, entries)).toEqual(without(before, entries))
        expect(inOrder(merged, comments)).toBe(true)
        expect(mergeTomlText(merged, file, entries)).toBe(merged)
        const removed = mergeTomlText(merged, agentToml([]), entries)
        expect(without(plain(removed), entries)).toEqual(without(before, entries))
        const hadOurKeys = entries.some(({ keyPath }) => getPath(before, keyPath) !== undefined)
        if (!hadOurKeys) expect(removed).toBe(original)
      }),
      { numRuns: 1000 },
    )
    expect(merges).toBeGreaterThan(900)
  })

  it('a truncated document fails with a parse error, or merges correctly if the cut left valid TOML', () => {
    fc.assert(
      fc.property(userToml, fc.nat(), (doc, cut) => {
        const { text } = printToml(doc)
        const prefix = text.slice(0, cut % (text.length + 1))
        const ours = entry(['mcp_servers', 'zz-ours'], { command: 'node' })
        let merged: string
        try {
          merged = mergeTomlText(prefix, agentToml([ours]), [])
        } catch (error) {
          expect(error).toBeInstanceOf(OacError)
          expect(['merge-parse-error', 'merge-unexpected-shape']).toContain((error as OacError).diagnostics[0]?.code)
          return
        }
        expect(getPath(plain(merged), ['mcp_servers', 'zz-ours'])).toEqual({ command: 'node' })
      }),
      { numRuns: 1000 },
    )
  })
})
