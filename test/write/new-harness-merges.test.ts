import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { parse as parseJsonc } from 'jsonc-parser'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { Plan } from '../../src/compile/plan.js'
import { emitAll } from '../../src/emit/index.js'
import type { OutputFile } from '../../src/emit/types.js'
import { type WriteOptions, writeOutputs } from '../../src/write/index.js'
import { fixturePlan } from '../emit-native/fixture.js'

/*
 * The settings files of Gemini CLI, Qwen Code and VS Code, and the `.mcp.json` Copilot shares with
 * Claude Code, merged into users' own files: every byte of theirs stays, and a comment in
 * `.mcp.json` is reported when Copilot, which then skips the whole file, is selected.
 */

let target: string
beforeEach(async () => {
  target = await mkdtemp(join(tmpdir(), 'oac-'))
})
afterEach(async () => {
  await rm(target, { recursive: true, force: true })
})

function isSubsequence(part: string, whole: string): boolean {
  let at = 0
  for (const char of whole) if (char === part[at]) at++
  return at === part.length
}

const options = (): WriteOptions => ({ target, mode: 'write', force: false, owner: 'oac-tools' })
const merges = (files: OutputFile[]) => files.filter((f) => f.kind === 'merge')

async function put(path: string, content: string): Promise<void> {
  await mkdir(dirname(join(target, path)), { recursive: true })
  await writeFile(join(target, path), content)
}

const USER_FILES: Record<string, string> = {
  '.gemini/settings.json': '// team settings\n{\n  "theme": "GitHub", /* keep */\n\n  "mcpServers": {\n    "docs": { "command": "docs-server" } // theirs\n  }\n}\n',
  '.qwen/settings.json': '{\n\t"model": { "name": "qwen3-coder" }\n}\n',
  '.vscode/mcp.json': '{\n  // from the VS Code UI\n  "servers": {\n    "github": { "type": "http", "url": "https://example.test/mcp" }\n  },\n  "inputs": []\n}\n',
}

describe('merges of the new harnesses', () => {
  let plan: Plan
  beforeEach(async () => {
    plan = await fixturePlan({ harnesses: ['gemini', 'copilot', 'qwen'] })
  })

  it("keep every byte of the user's settings files around our entry, and remove only ours when the harness goes", async () => {
    for (const [path, content] of Object.entries(USER_FILES)) await put(path, content)
    const files = merges(emitAll(plan))
    expect(files.map((f) => f.path).sort()).toEqual(['.gemini/settings.json', '.mcp.json', '.qwen/settings.json', '.vscode/mcp.json'])
    const report = await writeOutputs(files, options())
    expect(report.diagnostics).toEqual([])
    for (const [path, original] of Object.entries(USER_FILES)) {
      const merged = await readFile(join(target, path), 'utf8')
      const file = files.find((f) => f.path === path)!
      const [entry] = file.kind === 'merge' ? file.entries : []
      expect(parseJsonc(merged)[entry!.keyPath[0]!][entry!.keyPath[1]!], path).toEqual(entry!.value)
      // Every byte of theirs is still there, in order (ours are only inserted: our entry, a comma).
      expect(isSubsequence(original, merged), `${path}:\n${merged}`).toBe(true)
    }
    // Without these harnesses our entries go; files whose container was the user's come back byte for
    // byte (the write step leaves an emptied container it added, like Qwen's "mcpServers": {}).
    await writeOutputs([], options())
    for (const [path, original] of Object.entries(USER_FILES)) {
      const after = await readFile(join(target, path), 'utf8')
      expect(JSON.stringify(parseJsonc(after)), path).not.toContain('oac-tools')
      if (path === '.qwen/settings.json') expect(isSubsequence(original, after), after).toBe(true)
      else expect(after, path).toBe(original)
    }
  })

  it('warn when .mcp.json has a comment and Copilot is selected, and only then', async () => {
    await put('.mcp.json', '{\n  // ours\n  "mcpServers": {}\n}\n')
    const report = await writeOutputs(merges(emitAll(plan)), options())
    expect(report.diagnostics).toEqual([
      expect.objectContaining({ severity: 'warning', code: 'merge-file-commented', file: join(target, '.mcp.json'), message: expect.stringContaining('GitHub Copilot CLI skips the whole file') }),
    ])
    // Claude Code alone reads the comment fine: no warning.
    await rm(join(target, '.mcp.json'))
    await put('.mcp.json', '{\n  // ours\n  "mcpServers": {}\n}\n')
    const claudeOnly = merges(emitAll(await fixturePlan({ harnesses: ['claude'] })))
    expect((await writeOutputs(claudeOnly, { ...options(), force: true })).diagnostics.filter((d) => d.code === 'merge-file-commented')).toEqual([])
  })

  it('do not warn about a .mcp.json without comments, "//" inside a string included', async () => {
    await put('.mcp.json', '{\n  "mcpServers": { "web": { "url": "https://example.test//x" } }\n}\n')
    expect((await writeOutputs(merges(emitAll(plan)), options())).diagnostics).toEqual([])
  })
})
