import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { JsonValue } from '../../src/define/types.js'
import type { MergeEntry, MergeFile } from '../../src/emit/types.js'
import { type WriteOptions, writeOutputs } from '../../src/write/index.js'

// Who owns a key of a merged file: what the user wrote stays the user's (issue 15 §1).

let target: string
beforeEach(async () => {
  target = await mkdtemp(join(tmpdir(), 'oac-own-'))
})
afterEach(async () => {
  await rm(target, { recursive: true, force: true })
})

const options = (extra: Partial<WriteOptions> = {}): WriteOptions => ({ target, mode: 'write', force: false, owner: 'oac-tools', ...extra })
const read = (path: string): Promise<string> => readFile(join(target, path), 'utf8')
async function put(path: string, text: string): Promise<void> {
  await mkdir(dirname(join(target, path)), { recursive: true })
  await writeFile(join(target, path), text)
}
const manifest = async (): Promise<{ merges: Record<string, { entries: { keyPath: string[]; original?: { value: unknown; text?: string } }[] }> }> =>
  JSON.parse(await read('.oac/manifest.oac-tools.json'))
const merge = (path: string, format: MergeFile['format'], entries: [string[], JsonValue][]): MergeFile => ({
  kind: 'merge',
  path,
  format,
  entries: entries.map(([keyPath, value]): MergeEntry => ({ keyPath, value })),
})

describe('a Codex agent file written by hand before the agent existed (the reported case)', () => {
  const path = '.codex/agents/reviewer.toml'
  const userFile = ['# Hand-written reviewer, pre-existing', 'name = "reviewer"', 'model = "o3"', 'description = "old description" # mine', ''].join('\n')
  const reviewer = (description: string): MergeFile =>
    merge(path, 'toml', [
      [['name'], 'reviewer'],
      [['description'], description],
      [['developer_instructions'], 'You review code changes.'],
      [['mcp_servers', 'oac-tools'], { command: 'node', enabled_tools: ['search_issues'] }],
    ])

  it('fails naming the file, line, key and both values, and writes nothing; removing the agent leaves the file as it was', async () => {
    await put(path, userFile)
    const report = await writeOutputs([reviewer('Reviews changes.')], options())
    expect(report.diagnostics).toMatchObject([{ severity: 'error', code: 'merge-key-taken', file: join(target, path), line: 4, column: 1 }])
    const [diagnostic] = report.diagnostics
    expect(diagnostic?.message).toBe(
      `The key description in ${path} holds "old description", written by you, not by unplugin-oac, which would replace it with "Reviews changes."; nothing was written.`,
    )
    expect(diagnostic?.fix).toMatch(/^Rename the agent .*, delete description from .* or build with force/)
    expect(report.written).toEqual([])
    expect(await read(path)).toBe(userFile)

    const removed = await writeOutputs([], options())
    expect(removed.diagnostics).toEqual([])
    expect(await read(path)).toBe(userFile)
  })

  it('with force takes the key over, keeps the user’s name line as it is, and gives everything back once the agent goes', async () => {
    await put(path, userFile)
    const forced = await writeOutputs([reviewer('Reviews changes.')], options({ force: true }))
    expect(forced.diagnostics).toMatchObject([{ severity: 'warning', code: 'merge-key-taken', line: 4 }])
    expect(forced.diagnostics[0]?.message).toContain('kept in .oac/manifest.oac-tools.json')
    const merged = await read(path)
    expect(merged).toMatch(/^# Hand-written reviewer, pre-existing\nname = "reviewer"\nmodel = "o3"\ndescription = "Reviews changes."\ndeveloper_instructions = /)
    // The name the user wrote holds our value: it stays theirs and is not listed as ours.
    const record = (await manifest()).merges[path]
    expect(record?.entries.map((e) => e.keyPath.join('.'))).toEqual(['description', 'developer_instructions', 'mcp_servers.oac-tools'])
    expect(record?.entries[0]?.original).toEqual({ value: 'old description', text: 'description = "old description" # mine\n' })

    // Ours now: a rebuild is quiet, a changed description is written without asking again.
    expect((await writeOutputs([reviewer('Reviews changes.')], options())).diagnostics).toEqual([])
    const changed = await writeOutputs([reviewer('Reviews changes before merging.')], options())
    expect(changed.diagnostics).toEqual([])
    expect(await read(path)).toContain('description = "Reviews changes before merging."\n')

    const removed = await writeOutputs([], options())
    expect(removed.diagnostics).toEqual([])
    expect(await read(path)).toBe(userFile)
  })

  it('a key the user deletes is handed to us: written, and removed with the agent', async () => {
    await put(path, userFile)
    const withoutDescription = userFile.replace('description = "old description" # mine\n', '')
    await put(path, withoutDescription)
    expect((await writeOutputs([reviewer('Reviews changes.')], options())).diagnostics).toEqual([])
    expect(await read(path)).toContain('description = "Reviews changes."\n')
    await writeOutputs([], options())
    expect(await read(path)).toBe(withoutDescription)
  })

  it('a key holding exactly our value is not adopted: it outlives the agent, and a later change of ours is a conflict', async () => {
    await put(path, userFile)
    const same = await writeOutputs([reviewer('old description')], options())
    expect(same.diagnostics).toEqual([])
    // Comments beside the user's keys survive: a key already right is not rewritten.
    expect(await read(path)).toMatch(/^# Hand-written reviewer, pre-existing\nname = "reviewer"\nmodel = "o3"\ndescription = "old description" # mine\n/)
    const changed = await writeOutputs([reviewer('new description')], options())
    expect(changed.diagnostics).toMatchObject([{ code: 'merge-key-taken', line: 4 }])
    await writeOutputs([], options())
    expect(await read(path)).toBe(userFile)
  })

  it('the user’s value edited after force is theirs: it stays, with a warning, and their old value is not put back', async () => {
    await put(path, userFile)
    await writeOutputs([reviewer('Reviews changes.')], options({ force: true }))
    await put(path, (await read(path)).replace('"Reviews changes."', '"my newer description"'))
    const removed = await writeOutputs([], options())
    expect(removed.diagnostics).toMatchObject([{ severity: 'warning', code: 'merge-entry-kept' }])
    expect(await read(path)).toBe(userFile.replace('"old description" # mine', '"my newer description"'))
  })

  it('the user’s value put back by hand after force is theirs again (also what a build killed before its write leaves)', async () => {
    await put(path, userFile)
    await writeOutputs([reviewer('Reviews changes.')], options({ force: true }))
    await put(path, (await read(path)).replace('description = "Reviews changes."\n', 'description = "old description" # mine\n'))
    const again = await writeOutputs([reviewer('Reviews changes.')], options())
    expect(again.diagnostics).toMatchObject([{ severity: 'error', code: 'merge-key-taken' }])
    await writeOutputs([], options())
    expect(await read(path)).toBe(userFile)
  })
})

describe('the same rule in every merged file', () => {
  it('.mcp.json: a server entry of our name that the user wrote (comments inside it included)', async () => {
    const userFile = '{\n  "mcpServers": {\n    // ours? no: mine\n    "oac-tools": { "command": "mine" /* keep */ },\n    "other": {}\n  }\n}\n'
    await put('.mcp.json', userFile)
    const ours = merge('.mcp.json', 'json', [[['mcpServers', 'oac-tools'], { command: 'node', args: ['scripts/mcp_tools_server.cjs'] }]])
    const report = await writeOutputs([ours], options())
    expect(report.diagnostics).toMatchObject([{ code: 'merge-key-taken', line: 4, column: 5 }])
    expect(report.diagnostics[0]?.message).toContain('The key mcpServers.oac-tools in .mcp.json holds {"command":"mine"}, written by you')
    expect(report.diagnostics[0]?.fix).toMatch(/^Rename the MCP server \(serverName, or --server-name\)/)
    expect(await read('.mcp.json')).toBe(userFile)

    await writeOutputs([ours], options({ force: true }))
    expect(JSON.parse((await read('.mcp.json')).replace(/\/\/.*|\/\*.*?\*\//g, '')).mcpServers['oac-tools'].command).toBe('node')
    await writeOutputs([], options())
    expect(await read('.mcp.json')).toBe(userFile)
  })

  it('.codex/config.toml: the user’s own [mcp_servers.oac-tools] table with sub-tables and comments', async () => {
    const userFile = [
      'model = "o3"',
      '',
      '# my build of the tools',
      '[mcp_servers.oac-tools]',
      'command = "./bin/tools" # local',
      '',
      '[mcp_servers.oac-tools.env]',
      'DEBUG = "1"',
      '',
      '[mcp_servers.github]',
      'command = "gh"',
      '',
    ].join('\r\n')
    await put('.codex/config.toml', userFile)
    const ours = merge('.codex/config.toml', 'toml', [[['mcp_servers', 'oac-tools'], { command: 'node', args: ['scripts/mcp_tools_server.cjs'] }]])
    const report = await writeOutputs([ours], options())
    expect(report.diagnostics).toMatchObject([{ code: 'merge-key-taken', line: 4 }])
    expect(await read('.codex/config.toml')).toBe(userFile)

    await writeOutputs([ours], options({ force: true }))
    const forced = await read('.codex/config.toml')
    expect(forced).toContain('[mcp_servers.oac-tools]\r\ncommand = "node"\r\n')
    expect(forced).not.toContain('DEBUG')
    expect(forced).toContain('# my build of the tools\r\n')
    await writeOutputs([], options())
    expect(await read('.codex/config.toml')).toBe(userFile)
  })

  it('a harness file added later (.vscode/mcp.json, key "servers"; Gemini-style JSONC settings) gets the rule with no code of its own', async () => {
    const vscode = '{\n\t"servers": {\n\t\t"oac-tools": { "type": "stdio", "command": "mine" }\n\t}\n}\n'
    const gemini = '// settings\n{\n  "theme": "dark",\n  "mcpServers": {\n    "oac-tools": {\n      "command": "mine", // my own\n    },\n  },\n}\n'
    await put('.vscode/mcp.json', vscode)
    await put('.gemini/settings.json', gemini)
    const files = [
      merge('.vscode/mcp.json', 'json', [[['servers', 'oac-tools'], { type: 'stdio', command: 'node' }]]),
      merge('.gemini/settings.json', 'json', [[['mcpServers', 'oac-tools'], { command: 'node' }]]),
    ]
    const report = await writeOutputs(files, options())
    expect(report.diagnostics.map((d) => [d.code, d.line])).toEqual([
      ['merge-key-taken', 3],
      ['merge-key-taken', 5],
    ])
    await writeOutputs(files, options({ force: true }))
    await writeOutputs([], options())
    expect([await read('.vscode/mcp.json'), await read('.gemini/settings.json')]).toEqual([vscode, gemini])
  })

  it('two apps generating an agent of one name into one target: the second is told the key is the first app’s', async () => {
    const planner = (description: string): MergeFile => merge('.codex/agents/planner.toml', 'toml', [[['name'], 'planner'], [['description'], description]])
    expect((await writeOutputs([planner('Plans A.')], options({ owner: 'app-a' }))).diagnostics).toEqual([])
    const second = await writeOutputs([planner('Plans B.')], options({ owner: 'app-b' }))
    expect(second.diagnostics).toMatchObject([{ severity: 'error', code: 'merge-key-taken', line: 2 }])
    expect(second.diagnostics[0]?.message).toBe(
      'The key description in .codex/agents/planner.toml holds "Plans A.", written by the app whose MCP server is "app-a", not by this one ("app-b"), which would replace it with "Plans B."; nothing was written.',
    )
    expect(second.diagnostics[0]?.fix).toMatch(/^Rename the agent /)
  })

  it('force does not copy a literal secret of the user’s entry into the manifest: it fails instead', async () => {
    const token = 'ghp_' + 'a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8'
    const userFile = `{\n  "mcpServers": {\n    "oac-tools": { "command": "mine", "env": { "GITHUB_TOKEN": "${token}" } }\n  }\n}\n`
    await put('.mcp.json', userFile)
    const ours = merge('.mcp.json', 'json', [[['mcpServers', 'oac-tools'], { command: 'node' }]])
    const forced = await writeOutputs([ours], options({ force: true }))
    expect(forced.diagnostics).toMatchObject([{ severity: 'error', code: 'merge-key-secret', line: 3, column: 5 }])
    expect(forced.diagnostics[0]?.message).not.toContain(token)
    expect(await read('.mcp.json')).toBe(userFile)
  })

  it('a value that cannot be put back is quoted in full by the force warning', async () => {
    // A non-table where our table goes: Codex would not read it, but force must not lose it silently.
    const userFile = '[mcp_servers]\noac-tools = "not a table"\n'
    await put('.codex/config.toml', userFile)
    const ours = merge('.codex/config.toml', 'toml', [[['mcp_servers', 'oac-tools'], { command: 'node' }]])
    const forced = await writeOutputs([ours], options({ force: true }))
    expect(forced.diagnostics).toMatchObject([{ severity: 'warning', code: 'merge-key-taken', line: 2 }])
    expect(forced.diagnostics[0]?.message).toContain('cannot be put back automatically (it is not a table), so here it is in full: "not a table"')
    await writeOutputs([], options())
    expect(await read('.codex/config.toml')).toBe('[mcp_servers]\n')
  })
})

describe('the blank line above our tables in a Codex TOML file (the manifest records the one we wrote)', () => {
  const path = '.codex/agents/planner.toml'
  const planner = merge(path, 'toml', [[['mcp_servers', 'oac-tools'], { command: 'node' }]])
  const note = '# a note the user added later\n\n'

  it('a file we created: the note and blank line the user typed above our tables stay once they go', async () => {
    await writeOutputs([planner], options())
    expect(await read(path)).toBe('[mcp_servers.oac-tools]\ncommand = "node"\n')
    expect((await manifest()).merges[path]).toMatchObject({ created: true, tablesSeparator: '' })
    await put(path, note + (await read(path)))
    expect((await writeOutputs([], options())).diagnostics).toEqual([])
    expect(await read(path)).toBe(note)
  })

  it('a file we created is removed with our tables when all that is left is blank lines the user typed below them', async () => {
    await writeOutputs([planner], options())
    await put(path, `${await read(path)}\n`)
    expect((await writeOutputs([], options())).removed).toEqual([path])
  })

  it('reads a manifest an earlier build wrote, without the separator: its tables take one blank line with them, as they did', async () => {
    const userFile = '# mine\n'
    await put(path, userFile)
    await writeOutputs([planner], options())
    expect(await read(path)).toBe('# mine\n\n[mcp_servers.oac-tools]\ncommand = "node"\n')
    const manifestPath = '.oac/manifest.oac-tools.json'
    const current = JSON.parse(await read(manifestPath))
    expect(current.merges[path].tablesSeparator).toBe('\n')
    delete current.merges[path].tablesSeparator
    await put(manifestPath, `${JSON.stringify(current, null, 2)}\n`)
    const removed = await writeOutputs([], options())
    expect(removed.diagnostics).toEqual([])
    expect(await read(path)).toBe(userFile)
  })

  it('a separator in the manifest that is more than line breaks makes it damaged: nothing is written', async () => {
    await put(path, '# mine\n')
    await writeOutputs([planner], options())
    const manifestPath = '.oac/manifest.oac-tools.json'
    const current = JSON.parse(await read(manifestPath))
    current.merges[path].tablesSeparator = '# mine\n\n'
    await put(manifestPath, `${JSON.stringify(current, null, 2)}\n`)
    const report = await writeOutputs([], options())
    expect(report.diagnostics).toMatchObject([{ severity: 'error', code: 'manifest-invalid' }])
    expect(await read(path)).toBe('# mine\n\n[mcp_servers.oac-tools]\ncommand = "node"\n')
  })
})
