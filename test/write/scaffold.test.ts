import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { ARRAY_ITEM, type MergeEntry, type MergeFile } from '../../src/emit/types.js'
import { writeOutputs } from '../../src/write/index.js'
import { manifestPath } from '../../src/write/manifest.js'

/*
 * What our merges made around our entries (the containers, the comma after the user's last line, a
 * document in a file that held none, the line break after a last line that had none) is recorded in
 * the manifest and taken away with our last entry in it: the cases real users' config files showed.
 */

let target: string
beforeEach(async () => {
  target = await mkdtemp(join(tmpdir(), 'oac-scaffold-'))
})
afterEach(async () => {
  await rm(target, { recursive: true, force: true })
})

async function put(path: string, content: string): Promise<void> {
  await mkdir(dirname(join(target, path)), { recursive: true })
  await writeFile(join(target, path), content)
}

const read = (path: string) => readFile(join(target, path), 'utf8')

async function compile(path: string, format: MergeFile['format'], entries: MergeEntry[]): Promise<void> {
  const report = await writeOutputs([{ kind: 'merge', path, format, entries }], { target, mode: 'write', force: false, owner: 'oac-tools' })
  expect(report.diagnostics).toEqual([])
}

const item = (list: string[], name: string): MergeEntry => ({ keyPath: [...list, ARRAY_ITEM, name], value: name })

describe('what a merge made goes with our last entry in it', () => {
  it('Gemini CLI: the tools object and both lists it made, in whichever order our items go', async () => {
    const original = '{\n  "theme": "GitHub"\n}\n'
    await put('.gemini/settings.json', original)
    const allowed = item(['tools', 'allowed'], 'mcp_oac-tools_forecast')
    const asks = item(['tools', 'confirmationRequired'], 'mcp_oac-tools_delete_report')
    await compile('.gemini/settings.json', 'json', [allowed, asks])
    expect(await read('.gemini/settings.json')).toBe(
      '{\n  "theme": "GitHub",\n  "tools": {\n    "allowed": [\n      "mcp_oac-tools_forecast"\n    ],\n    "confirmationRequired": [\n      "mcp_oac-tools_delete_report"\n    ]\n  }\n}\n',
    )
    await compile('.gemini/settings.json', 'json', [asks])
    expect(await read('.gemini/settings.json')).toBe('{\n  "theme": "GitHub",\n  "tools": {\n    "confirmationRequired": [\n      "mcp_oac-tools_delete_report"\n    ]\n  }\n}\n')
    await compile('.gemini/settings.json', 'json', [])
    expect(await read('.gemini/settings.json')).toBe(original)
  })

  it('opencode: the permission map, and the comma it put after the user’s last line', async () => {
    const original = '{\n  "$schema": "https://opencode.ai/config.json",\n  "model": "anthropic/claude-sonnet-4-5"\n}'
    await put('.opencode/opencode.json', original)
    await compile('.opencode/opencode.json', 'json', [{ keyPath: ['permission', 'forecast'], value: 'allow' }])
    expect(await read('.opencode/opencode.json')).toContain('"model": "anthropic/claude-sonnet-4-5",\n  "permission": {')
    await compile('.opencode/opencode.json', 'json', [])
    expect(await read('.opencode/opencode.json')).toBe(original)
  })

  it('Claude Code: a list it made inside the user’s permissions object goes, the object and the user’s list stay', async () => {
    const original = '{\r\n\t"permissions": {\r\n\t\t"deny": ["Read(./.env)"]\r\n\t}\r\n}\r\n'
    await put('.claude/settings.json', original)
    await compile('.claude/settings.json', 'json', [item(['permissions', 'ask'], 'mcp__oac-tools__delete_report')])
    expect(await read('.claude/settings.json')).toBe('{\r\n\t"permissions": {\r\n\t\t"deny": ["Read(./.env)"],\r\n\t\t"ask": [\r\n\t\t\t"mcp__oac-tools__delete_report"\r\n\t\t]\r\n\t}\r\n}\r\n')
    await compile('.claude/settings.json', 'json', [])
    expect(await read('.claude/settings.json')).toBe(original)
  })

  it("the user's empty list and object get back the white space they held, once our last entry in them goes", async () => {
    // As in a public .claude/settings.json: "allow" empty across two lines.
    const original = '{\n  "permissions": {\n    "allow": [\n        ],\n    "deny": ["Bash(rm:*)"]\n  },\n  "env": { }\n}\n'
    await put('.claude/settings.json', original)
    const forecast = item(['permissions', 'allow'], 'mcp__oac-tools__forecast')
    const chart = item(['permissions', 'allow'], 'mcp__oac-tools__forecast_chart')
    const token = { keyPath: ['env', 'OAC_TOKEN'], value: '1' }
    await compile('.claude/settings.json', 'json', [forecast, chart, token])
    expect(await read('.claude/settings.json')).toContain('"allow": [\n      "mcp__oac-tools__forecast",\n      "mcp__oac-tools__forecast_chart"\n    ],')
    await compile('.claude/settings.json', 'json', [chart])
    expect(await read('.claude/settings.json')).toContain('"env": { }')
    await compile('.claude/settings.json', 'json', [])
    expect(await read('.claude/settings.json')).toBe(original)
  })

  it('an emptied list that holds a member of the user\'s since is theirs: its white space is not put back', async () => {
    const original = '{\n  "permissions": {\n    "allow": [\n    ]\n  }\n}\n'
    await put('.claude/settings.json', original)
    await compile('.claude/settings.json', 'json', [item(['permissions', 'allow'], 'mcp__oac-tools__forecast')])
    const merged = await read('.claude/settings.json')
    await put('.claude/settings.json', merged.replace('"mcp__oac-tools__forecast"', '"Bash(ls:*)",\n      "mcp__oac-tools__forecast"'))
    await compile('.claude/settings.json', 'json', [])
    expect(await read('.claude/settings.json')).toBe('{\n  "permissions": {\n    "allow": [\n      "Bash(ls:*)"\n    ]\n  }\n}\n')
  })

  it('a container the user put something of theirs into stays theirs, with what they put there', async () => {
    await put('.claude/settings.json', '{}\n')
    await compile('.claude/settings.json', 'json', [item(['permissions', 'allow'], 'mcp__oac-tools__forecast')])
    const merged = await read('.claude/settings.json')
    await put('.claude/settings.json', merged.replace('"allow": [', '"deny": ["Bash(rm:*)"],\n    "allow": ['))
    await compile('.claude/settings.json', 'json', [])
    expect(await read('.claude/settings.json')).toBe('{\n  "permissions": {\n    "deny": ["Bash(rm:*)"]\n  }\n}\n')
  })

  it('a document it made in a file that held only a comment, and the line break it put before it', async () => {
    await put('.qwen/settings.json', '// settings go here')
    await compile('.qwen/settings.json', 'json', [{ keyPath: ['mcpServers', 'oac-tools'], value: { command: 'node' } }])
    expect(await read('.qwen/settings.json')).toBe('// settings go here\n{\n  "mcpServers": {\n    "oac-tools": {\n      "command": "node"\n    }\n  }\n}\n')
    await compile('.qwen/settings.json', 'json', [])
    expect(await read('.qwen/settings.json')).toBe('// settings go here')
  })

  it('TOML: the line break it put after a last line that had none', async () => {
    const original = 'model = "gpt-5"\n# reviewed by hand'
    await put('.codex/agents/reviewer.toml', original)
    await compile('.codex/agents/reviewer.toml', 'toml', [
      { keyPath: ['name'], value: 'reviewer' },
      { keyPath: ['mcp_servers', 'oac-tools'], value: { command: 'node' } },
    ])
    expect(await read('.codex/agents/reviewer.toml')).toBe('model = "gpt-5"\nname = "reviewer"\n# reviewed by hand\n\n[mcp_servers.oac-tools]\ncommand = "node"\n')
    // The table that followed the user's last line goes: so does the line break, though our key stays.
    await compile('.codex/agents/reviewer.toml', 'toml', [{ keyPath: ['name'], value: 'reviewer' }])
    expect(await read('.codex/agents/reviewer.toml')).toBe('model = "gpt-5"\nname = "reviewer"\n# reviewed by hand')
    await compile('.codex/agents/reviewer.toml', 'toml', [])
    expect(await read('.codex/agents/reviewer.toml')).toBe(original)
  })

  it('TOML: text typed below our table since makes the line break the user’s', async () => {
    await put('.codex/config.toml', 'model = "gpt-5"')
    await compile('.codex/config.toml', 'toml', [{ keyPath: ['mcp_servers', 'oac-tools'], value: { command: 'node' } }])
    await put('.codex/config.toml', `${await read('.codex/config.toml')}\n# added later\n`)
    await compile('.codex/config.toml', 'toml', [])
    expect(await read('.codex/config.toml')).toBe('model = "gpt-5"\n\n# added later\n')
  })

  it('a manifest of an earlier build, which did not record what its merges made, still loses nothing: the containers stay', async () => {
    await put('.claude/settings.json', '{\n  "model": "opus"\n}\n')
    await compile('.claude/settings.json', 'json', [item(['permissions', 'allow'], 'mcp__oac-tools__forecast')])
    const manifest = JSON.parse(await read(manifestPath('oac-tools')))
    delete manifest.merges['.claude/settings.json'].scaffold
    await put(manifestPath('oac-tools'), JSON.stringify(manifest))
    await compile('.claude/settings.json', 'json', [])
    expect(await read('.claude/settings.json')).toBe('{\n  "model": "opus",\n  "permissions": {\n    "allow": []\n  }\n}\n')
  })

  it('a scaffold in the manifest that would take away more than line breaks makes it damaged: nothing is written', async () => {
    await put('.codex/config.toml', 'model = "gpt-5"')
    await compile('.codex/config.toml', 'toml', [{ keyPath: ['mcp_servers', 'oac-tools'], value: { command: 'node' } }])
    const manifest = JSON.parse(await read(manifestPath('oac-tools')))
    manifest.merges['.codex/config.toml'].scaffold = { lineEnd: '"gpt-5"\n' }
    await put(manifestPath('oac-tools'), JSON.stringify(manifest))
    const before = await read('.codex/config.toml')
    const report = await writeOutputs([{ kind: 'merge', path: '.codex/config.toml', format: 'toml', entries: [] }], { target, mode: 'write', force: false, owner: 'oac-tools' })
    expect(report.diagnostics.map((d) => d.code)).toEqual(['manifest-invalid'])
    expect(await read('.codex/config.toml')).toBe(before)
  })
})
