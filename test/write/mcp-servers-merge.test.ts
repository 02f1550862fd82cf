import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { dirname, join, resolve } from 'node:path'
import { parse as parseJsonc } from 'jsonc-parser'
import { parse as parseToml } from 'smol-toml'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { compile } from '../../src/api.js'
import { compilePlan } from '../../src/compile/index.js'
import type { Plan } from '../../src/compile/plan.js'
import { emitAll } from '../../src/emit/index.js'
import type { OutputFile } from '../../src/emit/types.js'
import { loadRegistry } from '../../src/load/index.js'
import { type WriteOptions, writeOutputs } from '../../src/write/index.js'
import { repoRoot } from '../util/project.js'

/*
 * The MCP servers of test/fixtures/mcp-servers (`github`, stdio with a renamed token; `tracker`,
 * streamable HTTP with a bearer token and a header from the environment) merged into real-shaped
 * configs that already declare servers of their own. The expected entries are each harness's syntax
 * as docs/mcp-servers.md found it in the pinned CLIs.
 */

const root = resolve(repoRoot, 'test/fixtures/mcp-servers')
let target: string
beforeEach(async () => {
  target = await mkdtemp(join(tmpdir(), 'oac-'))
})
afterEach(async () => {
  await rm(target, { recursive: true, force: true })
})

async function plan(config = 'default'): Promise<Plan> {
  const loaded = await loadRegistry('registries.ts:all', root)
  const compiled = compilePlan(loaded, { root, config })
  expect(compiled.diagnostics.filter((d) => d.severity === 'error')).toEqual([])
  return compiled.plan!
}

const options = (): WriteOptions => ({ target, mode: 'write', force: false, owner: 'oac-tools' })
const merges = (files: OutputFile[]) => files.filter((f) => f.kind === 'merge')

async function put(path: string, content: string): Promise<void> {
  await mkdir(dirname(join(target, path)), { recursive: true })
  await writeFile(join(target, path), content)
}

function isSubsequence(part: string, whole: string): boolean {
  let at = 0
  for (const char of whole) if (char === part[at]) at++
  return at === part.length
}

const USER_FILES: Record<string, string> = {
  '.mcp.json': '{\n  "mcpServers": {\n    "playwright": { "command": "npx", "args": ["@playwright/mcp@latest"] }\n  }\n}\n',
  '.codex/config.toml': '# team defaults\nmodel = "gpt-5"\n\n[mcp_servers.docs]\ncommand = "docs-server" # theirs\n',
  '.gemini/settings.json': '// team settings\n{\n  "mcpServers": {\n    "docs": { "command": "docs-server", "env": { "DOCS_TOKEN": "$DOCS_TOKEN" } } // theirs\n  }\n}\n',
  '.qwen/settings.json': '{\n\t"mcpServers": { "docs": { "httpUrl": "https://docs.example.com/mcp" } }\n}\n',
  '.opencode/opencode.json': '{\n  "$schema": "https://opencode.ai/config.json",\n  // ours\n  "mcp": { "docs": { "type": "local", "command": ["docs-server"] } }\n}\n',
  '.kilo/kilo.json': '{\n  "mcp": { "docs": { "type": "remote", "url": "https://docs.example.com/mcp" } }\n}\n',
  '.vscode/mcp.json': '{\n  // from the VS Code UI\n  "servers": {\n    "docs": { "type": "http", "url": "https://docs.example.com/mcp" }\n  },\n  "inputs": []\n}\n',
}

const GITHUB_ARGS = ['-y', '@modelcontextprotocol/server-github']
const TRACKER_URL = 'https://tracker.example.com/mcp'

describe("MCP servers merged into the user's configs", () => {
  it("each in the harness's own syntax, beside the user's servers, and removal gives back their bytes", async () => {
    for (const [path, content] of Object.entries(USER_FILES)) await put(path, content)
    const report = await writeOutputs(merges(emitAll(await plan())), options())
    expect(report.diagnostics.filter((d) => d.severity === 'error')).toEqual([])
    const json = async (path: string) => parseJsonc(await readFile(join(target, path), 'utf8'))

    const mcpJson = await json('.mcp.json')
    expect(mcpJson.mcpServers.github).toEqual({ command: 'npx', args: GITHUB_ARGS, env: { GITHUB_PERSONAL_ACCESS_TOKEN: '${GITHUB_TOKEN}', LOG_LEVEL: 'info' } })
    expect(mcpJson.mcpServers.tracker).toEqual({ type: 'http', url: TRACKER_URL, headers: { Authorization: 'Bearer ${TRACKER_TOKEN}', 'X-Team': 'core', 'X-Api-Key': '${TRACKER_KEY}' } })
    for (const settings of ['.gemini/settings.json', '.qwen/settings.json']) {
      const { mcpServers } = await json(settings)
      expect(mcpServers.github.env.GITHUB_PERSONAL_ACCESS_TOKEN, settings).toBe('${GITHUB_TOKEN}')
      expect(mcpServers.tracker, settings).toEqual({ httpUrl: TRACKER_URL, headers: { Authorization: 'Bearer ${TRACKER_TOKEN}', 'X-Team': 'core', 'X-Api-Key': '${TRACKER_KEY}' } })
    }
    // Codex: no reference in a string; the renamed token cannot reach a stdio server, so github is left out.
    const codex = parseToml(await readFile(join(target, '.codex/config.toml'), 'utf8')) as { mcp_servers: Record<string, unknown> }
    expect(codex.mcp_servers.github).toBeUndefined()
    expect(codex.mcp_servers.tracker).toEqual({ url: TRACKER_URL, bearer_token_env_var: 'TRACKER_TOKEN', http_headers: { 'X-Team': 'core' }, env_http_headers: { 'X-Api-Key': 'TRACKER_KEY' } })
    const { mcp } = await json('.opencode/opencode.json')
    expect(mcp.github).toEqual({ type: 'local', command: ['npx', ...GITHUB_ARGS], environment: { GITHUB_PERSONAL_ACCESS_TOKEN: '{env:GITHUB_TOKEN}', LOG_LEVEL: 'info' } })
    expect(mcp.tracker).toEqual({ type: 'remote', url: TRACKER_URL, headers: { Authorization: 'Bearer {env:TRACKER_TOKEN}', 'X-Team': 'core', 'X-Api-Key': '{env:TRACKER_KEY}' } })
    const { servers } = await json('.vscode/mcp.json')
    expect(servers.github).toEqual({ type: 'stdio', command: 'npx', args: GITHUB_ARGS, env: { GITHUB_PERSONAL_ACCESS_TOKEN: '${env:GITHUB_TOKEN}', LOG_LEVEL: 'info' } })
    // A project's Kilo config may hold no reference at all (Kilo skips the whole file): both are left out.
    expect(await readFile(join(target, '.kilo/kilo.json'), 'utf8')).toBe(USER_FILES['.kilo/kilo.json'])

    for (const [path, original] of Object.entries(USER_FILES)) {
      expect(isSubsequence(original, await readFile(join(target, path), 'utf8')), path).toBe(true)
    }
    await writeOutputs([], options())
    for (const [path, original] of Object.entries(USER_FILES)) expect(await readFile(join(target, path), 'utf8'), path).toBe(original)
  })

  it("a server of the user's with the same name is theirs: an error, and nothing is written", async () => {
    const theirs = '{\n  "mcpServers": {\n    "github": { "command": "gh-mcp" }\n  }\n}\n'
    await put('.mcp.json', theirs)
    const report = await writeOutputs(merges(emitAll(await plan())), options())
    expect(report.diagnostics).toContainEqual(
      expect.objectContaining({ severity: 'error', code: 'merge-key-taken', message: expect.stringContaining('mcpServers.github'), fix: expect.stringMatching(/^Rename the MCP server "github" \(defineMcpServer at registries\.ts:\d+\)/) }),
    )
    expect(await readFile(join(target, '.mcp.json'), 'utf8')).toBe(theirs)
  })

  it('a variable set during the compile reaches no file written', async () => {
    const secrets = { GITHUB_TOKEN: 'value-of-github-token-1', TRACKER_TOKEN: 'value-of-tracker-token-2', TRACKER_KEY: 'value-of-tracker-key-3' }
    Object.assign(process.env, secrets)
    try {
      await compile({ registry: 'registries.ts:all', root, target })
    } finally {
      for (const name of Object.keys(secrets)) delete process.env[name]
    }
    const written = (await readdir(target, { recursive: true, withFileTypes: true })).filter((entry) => entry.isFile())
    expect(written.map((entry) => join(entry.parentPath, entry.name))).toContain(join(target, '.mcp.json'))
    for (const entry of written) {
      const text = await readFile(join(entry.parentPath, entry.name), 'utf8')
      for (const value of Object.values(secrets)) expect(text, entry.name).not.toContain(value)
    }
  })
})
