import { execFile, spawnSync } from 'node:child_process'
import { existsSync } from 'node:fs'
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises'
import { dirname, join, relative } from 'node:path'
import { promisify } from 'node:util'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import { parse as parseToml } from 'smol-toml'
import { beforeAll, describe, expect, it } from 'vitest'
import { compile, type CompileResult } from '../../src/api.js'
import { writeOutputs } from '../../src/write/index.js'
import { copyProject, repoRoot } from '../util/project.js'
import { tempDir } from '../util/temp.js'

/*
 * A user-scope install (`scope: 'user'`) into a home that already holds the user's own settings: every
 * harness's files at its user places, the scripts in ~/.local/share/oac/<server>/, reached from any
 * folder through the home; a second registry beside the first; and each removal giving back the bytes
 * there were. That the real CLIs read the home is test/harness/user-scope.test.ts.
 */

const run = promisify(execFile)
type Json = Record<string, unknown>

/** The user's own files, each in a style of its own (comments, tabs, no final line break), as a home has them. */
const USER_FILES: Record<string, string> = {
  '.claude.json': '{\n  "numStartups": 3,\n  "projects": {\n    "/work": { "allowedTools": [] }\n  }\n}\n',
  '.claude/settings.json': '{\n\t"model": "opus",\n\t"permissions": { "allow": ["Bash(ls:*)"] }\n}',
  '.codex/config.toml': '# my Codex settings\nmodel = "o3"\n\n[mcp_servers.mine]\ncommand = "mine"\n',
  '.gemini/settings.json': '// mine\n{ "ui": { "theme": "dark" } }\n',
  '.qwen/settings.json': '{}\n',
  '.copilot/mcp-config.json': '{\n  "mcpServers": {\n    "mine": { "command": "mine", "args": [] }\n  }\n}\n',
  '.config/opencode/opencode.json': '{\n  "$schema": "https://opencode.ai/config.json",\n  "theme": "system"\n}\n',
}

let source: string
let home: string
let elsewhere: string
let original: Map<string, string>
let first: CompileResult

/** Every file under the home, by path, with its text. */
async function tree(dir: string): Promise<Map<string, string>> {
  const files = new Map<string, string>()
  for (const entry of await readdir(dir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue
    const path = join(entry.parentPath, entry.name)
    files.set(relative(dir, path).split('\\').join('/'), await readFile(path, 'utf8'))
  }
  return files
}

const json = async (path: string) => JSON.parse(await readFile(join(home, path), 'utf8')) as Json
const install = (registry: string, serverName: string) => compile({ root: source, registry: `agents/registry.ts:${registry}`, scope: 'user', target: home, serverName })

beforeAll(async () => {
  source = await copyProject(join(repoRoot, 'test/fixtures/user-scope'), 'oac-user-scope-src-')
  home = await tempDir('oac-user-home-')
  elsewhere = await tempDir('oac-user-work-')
  for (const [path, text] of Object.entries(USER_FILES)) {
    await mkdir(dirname(join(home, path)), { recursive: true })
    await writeFile(join(home, path), text)
  }
  original = await tree(home)
  first = await install('writing', 'writing-tools')
}, 120_000)

describe('a user-scope install', () => {
  it("puts each harness's files where it reads them in a home, and nothing where a project keeps them", async () => {
    const written = first.report.written
    // Claude Code: the user's MCP servers are ~/.claude.json's; agents, skills, commands and settings ~/.claude/.
    expect(written).toEqual(expect.arrayContaining(['.claude.json', '.claude/agents/editor.md', '.claude/skills/counting/SKILL.md', '.claude/commands/count.md', '.claude/settings.json']))
    expect(written).toEqual(expect.arrayContaining(['.codex/config.toml', '.codex/agents/editor.toml', '.codex/hooks.json', '.agents/skills/counting/SKILL.md']))
    expect(written).toEqual(expect.arrayContaining(['.gemini/settings.json', '.gemini/agents/editor.md', '.gemini/commands/count.toml']))
    expect(written).toEqual(expect.arrayContaining(['.qwen/settings.json', '.qwen/agents/editor.md', '.qwen/commands/count.md']))
    expect(written).toEqual(expect.arrayContaining(['.copilot/mcp-config.json', '.copilot/agents/editor.agent.md', '.copilot/hooks/writing-tools.json']))
    expect(written).toEqual(expect.arrayContaining(['.config/opencode/tool/word_count.ts', '.config/opencode/agent/editor.md', '.config/opencode/opencode.json']))
    expect(written).toEqual(expect.arrayContaining(['.config/kilo/tools/word_count.ts', '.config/kilo/agents/editor.md']))
    expect(written).toEqual(expect.arrayContaining(['.pi/agent/extensions/writing-tools.ts', '.pi/agent/prompts/count.md', '.omp/agent/tools/word_count/index.ts', '.omp/agent/commands/count.md']))
    expect(written).toEqual(expect.arrayContaining(['.local/share/oac/writing-tools/word_count.mjs', '.local/share/oac/writing-tools/mcp_tools_server.cjs', '.local/share/oac/writing-tools/prompts/editor.md']))
    const projectPlaces = /^(\.mcp\.json|\.vscode\/|\.github\/|\.opencode\/|\.kilo\/|\.pi\/(?!agent\/)|\.omp\/(?!agent\/)|scripts\/|prompts\/)/
    expect(written.filter((path) => projectPlaces.test(path))).toEqual([])
    // VS Code's files have no place in a home: said once per file, as a warning.
    expect(first.diagnostics.filter((d) => d.code === 'user-scope-left').map((d) => d.message)).toEqual([expect.stringContaining('.vscode/mcp.json'), expect.stringContaining('.github/prompts/')])
  })

  it("keeps every key of the user's settings and adds its own entries", async () => {
    expect(await json('.claude.json')).toMatchObject({ numStartups: 3, projects: { '/work': { allowedTools: [] } }, mcpServers: { 'writing-tools': { command: 'node' } } })
    expect(await json('.claude/settings.json')).toMatchObject({ model: 'opus', permissions: { allow: ['Bash(ls:*)', 'mcp__writing-tools__word_count'] } })
    const codex = parseToml(await readFile(join(home, '.codex/config.toml'), 'utf8')) as { model: string; mcp_servers: Record<string, unknown> }
    expect(codex.model).toBe('o3')
    expect(Object.keys(codex.mcp_servers).sort()).toEqual(['mine', 'writing-tools'])
    expect(Object.keys((await json('.copilot/mcp-config.json')).mcpServers as Json).sort()).toEqual(['mine', 'writing-tools'])
    expect(await readFile(join(home, '.gemini/settings.json'), 'utf8')).toMatch(/^\/\/ mine\n/)
  })

  it('names no absolute path: the MCP server, from any folder, is found through the home and runs its tools there', async () => {
    const entry = (await json('.claude.json')).mcpServers as Record<string, { command: string; args: string[] }>
    const { command, args } = entry['writing-tools']!
    expect(JSON.stringify(args)).not.toContain(home)
    const client = new Client({ name: 'user-scope-test', version: '1.0.0' })
    await client.connect(new StdioClientTransport({ command, args, cwd: elsewhere, env: { PATH: process.env.PATH!, HOME: home }, stderr: 'pipe' }))
    try {
      expect((await client.listTools()).tools.map((tool) => tool.name).sort()).toEqual(['delete_note', 'word_count'])
      const result = await client.callTool({ name: 'word_count', arguments: { text: 'one two three' } })
      expect(result.content).toEqual([{ type: 'text', text: `3 words, counted in ${elsewhere}.` }])
    } finally {
      await client.close()
    }
  })

  it('documents commands that run from any folder, and hook commands that find their script through the home', async () => {
    const skill = await readFile(join(home, '.claude/skills/counting/SKILL.md'), 'utf8')
    expect(skill).toContain('allowed-tools: Bash(node ~/.local/share/oac/writing-tools/word_count.mjs:*)\n')
    expect(skill).toContain('node ~/.local/share/oac/writing-tools/word_count.mjs --text <string>')
    // No launcher copies: a command from `~` needs none.
    expect(existsSync(join(home, '.claude/skills/counting/scripts'))).toBe(false)
    const { stdout } = await run('bash', ['-c', 'node ~/.local/share/oac/writing-tools/word_count.mjs --text "a b"'], { cwd: elsewhere, env: { PATH: process.env.PATH!, HOME: home } })
    expect(stdout.trim()).toBe(`2 words, counted in ${elsewhere}.`)

    const settings = (await json('.claude/settings.json')) as { hooks: { PreToolUse: Array<{ hooks: Array<{ command: string }> }> } }
    const hook = settings.hooks.PreToolUse[0]!.hooks[0]!.command
    // Claude Code's PreToolUse input, as it hands it on stdin, in a session of another folder.
    const input = JSON.stringify({ hook_event_name: 'PreToolUse', session_id: 's', cwd: elsewhere, tool_name: 'mcp__writing-tools__delete_note', tool_input: { name: 'keep-a' } })
    const blocked = spawnSync('bash', ['-c', hook], { input, cwd: elsewhere, env: { PATH: process.env.PATH!, HOME: home }, encoding: 'utf8', timeout: 60_000 })
    expect(blocked.status).toBe(0)
    expect(JSON.parse(blocked.stdout)).toMatchObject({ hookSpecificOutput: { permissionDecision: 'deny', permissionDecisionReason: 'keep-a is kept' } })
  })

  it('points each shim and hook plugin at its script from the home folder, not from where a linked config folder really is', async () => {
    for (const shim of ['.config/opencode/tool/word_count.ts', '.config/kilo/tools/word_count.ts', '.pi/agent/extensions/writing-tools.ts', '.omp/agent/tools/word_count/index.ts', '.config/opencode/plugins/writing-tools-hooks.ts']) {
      const text = await readFile(join(home, shim), 'utf8')
      const paths = [...text.matchAll(/(?:runTool|load)\("([^"]+)"/g)].map((match) => match[1]!)
      expect(paths.length, shim).toBeGreaterThan(0)
      for (const path of paths) expect(existsSync(join(home, path)), `${shim} -> ${path}`).toBe(true)
      expect(text, shim).toContain('pathToFileURL(join(homedir(), script))')
      expect(text, shim).not.toContain('import.meta.url')
    }
  })
})

describe('approval rules in a home', () => {
  it("go to each harness's user settings", async () => {
    const careful = await tempDir('oac-user-careful-')
    const { report } = await compile({ root: source, registry: 'agents/registry.ts:travel', config: 'careful', scope: 'user', target: careful, serverName: 'travel-tools' })
    const read = async (path: string) => JSON.parse(await readFile(join(careful, path), 'utf8')) as Json
    // Only the harnesses' user folders and ours.
    expect(report.written.filter((path) => !/^\.(claude|cline|codex|gemini|qwen|copilot|config|pi|omp|agents|local|oac)[/.]/.test(path))).toEqual([])
    expect(await read('.gemini/settings.json')).toMatchObject({ tools: { confirmationRequired: ['mcp_travel-tools_forecast'] } })
    expect(await read('.claude/settings.json')).toMatchObject({ permissions: { ask: ['mcp__travel-tools__forecast'] } })
    expect(await read('.qwen/settings.json')).toMatchObject({ permissions: { ask: ['mcp__travel-tools__forecast'] } })
    expect(await read('.config/opencode/opencode.json')).toMatchObject({ permission: { forecast: 'ask' } })
    expect(await read('.config/kilo/kilo.json')).toMatchObject({ permission: { forecast: 'ask' } })
  })
})

describe('two registries installed for one user', () => {
  it('keep apart, and removing each gives back the bytes there were before it', async () => {
    const afterFirst = await tree(home)
    const second = await install('travel', 'travel-tools')
    const both = await tree(home)
    // Nothing of the first is taken: its own files are as they were, and the shared settings hold both.
    for (const path of first.report.written.filter((path) => !second.report.written.includes(path))) expect(both.get(path), path).toBe(afterFirst.get(path))
    expect(Object.keys((await json('.claude.json')).mcpServers as Json).sort()).toEqual(['travel-tools', 'writing-tools'])
    expect(both.has('.oac/manifest.writing-tools.json') && both.has('.oac/manifest.travel-tools.json')).toBe(true)

    const removed = await writeOutputs([], { target: home, mode: 'write', force: false, owner: 'travel-tools' })
    expect(removed.diagnostics).toEqual([])
    expect(await tree(home)).toEqual(afterFirst)

    await writeOutputs([], { target: home, mode: 'write', force: false, owner: 'writing-tools' })
    expect(await tree(home)).toEqual(original)
  }, 120_000)
})
