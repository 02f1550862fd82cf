import { resolve } from 'node:path'
import { parse as parseJsonc } from 'jsonc-parser'
import { parse as parseToml } from 'smol-toml'
import { parse as parseYaml } from 'yaml'
import { beforeAll, describe, expect, it } from 'vitest'
import { compilePlan, type PlanOptions } from '../../src/compile/index.js'
import type { Plan } from '../../src/compile/plan.js'
import type { Diagnostic } from '../../src/diagnostics.js'
import { emitAll } from '../../src/emit/index.js'
import type { OutputFile } from '../../src/emit/types.js'
import { type LoadedRegistry, loadRegistry } from '../../src/load/index.js'
import { repoRoot } from '../util/project.js'

/*
 * The MCP servers someone else wrote in agent files, approval rules and plugin folders
 * (test/fixtures/mcp-scope): `scribe` is given `notes` and `word_count`, `counter` `word_count` alone,
 * `bare` nothing. Each emitted file is parsed, and read as its harness reads it (docs/mcp-servers.md,
 * "Per agent"); the real CLIs are test/harness/mcp-scope.test.ts.
 */

const root = resolve(repoRoot, 'test/fixtures/mcp-scope')
const ALL = ['opencode', 'claude', 'codex', 'gemini', 'copilot', 'qwen', 'kilo'] as const

let loaded: LoadedRegistry
beforeAll(async () => {
  loaded = await loadRegistry('registries.ts:registry', root)
  expect(loaded.diagnostics).toEqual([])
})

function compile(options: Partial<PlanOptions> = {}): { plan: Plan; diagnostics: Diagnostic[]; files: Map<string, OutputFile> } {
  const { plan, diagnostics } = compilePlan(loaded, { root, harnesses: [...ALL], ...options })
  expect(diagnostics.filter((d) => d.severity === 'error')).toEqual([])
  return { plan: plan!, diagnostics, files: new Map(emitAll(plan!).map((file) => [file.path, file])) }
}

/** A file's content as the harness reads it: an owned file's text, or a merge's entries set into an empty document. */
function document(files: Map<string, OutputFile>, path: string): Record<string, unknown> {
  const file = files.get(path)
  if (!file) throw new Error(`no ${path} among ${[...files.keys()].join(', ')}`)
  if (file.kind === 'owned') return (path.endsWith('.toml') ? parseToml(file.content) : parseJsonc(file.content)) as Record<string, unknown>
  const doc: Record<string, unknown> = {}
  for (const { keyPath, value } of file.entries) {
    let at: Record<string, unknown> = doc
    const list = keyPath.indexOf('[]')
    const path = list === -1 ? keyPath : keyPath.slice(0, list)
    for (const key of path.slice(0, -1)) at = (at[key] ??= {}) as Record<string, unknown>
    const last = path.at(-1)!
    if (list === -1) at[last] = value
    else ((at[last] ??= []) as unknown[]).push(value)
  }
  return doc
}

/** An agent file's frontmatter, parsed as YAML. */
function frontmatter(files: Map<string, OutputFile>, path: string): Record<string, unknown> {
  const file = files.get(path)
  if (file?.kind !== 'owned') throw new Error(`no agent file ${path}`)
  const match = /^---\n([\s\S]*?)\n---\n/.exec(file.content)
  return parseYaml(match![1]!) as Record<string, unknown>
}

/** A comma-joined list (Claude Code's frontmatter) as its items. */
const items = (value: unknown) => String(value).split(',').map((item) => item.trim())

describe('per agent: each agent is shown its own servers, and not the others where the harness can hide them', () => {
  let files: Map<string, OutputFile>
  let diagnostics: Diagnostic[]
  beforeAll(() => {
    ;({ files, diagnostics } = compile())
  })

  it("Claude Code: a server in the agent's tools as mcp__<server>; an agent that names no tool is shown every tool, the servers' too", () => {
    // Bash: the agents' prompts document word_count's script too (its format is "both").
    expect(items(frontmatter(files, '.claude/agents/scribe.md').tools)).toEqual(['mcp__oac-tools__word_count', 'Bash', 'mcp__notes'])
    expect(items(frontmatter(files, '.claude/agents/counter.md').tools)).toEqual(['mcp__oac-tools__word_count', 'Bash'])
    const bare = frontmatter(files, '.claude/agents/bare.md')
    expect(bare.tools).toBeUndefined()
    expect(bare.disallowedTools).toBeUndefined()
  })

  it("Gemini CLI: mcp_<server>_*; its closed agent schema gets no list to hide", () => {
    expect(frontmatter(files, '.gemini/agents/scribe.md').tools).toEqual(['mcp_oac-tools_word_count', 'run_shell_command', 'mcp_notes_*'])
    expect(frontmatter(files, '.gemini/agents/counter.md').tools).toEqual(['mcp_oac-tools_word_count', 'run_shell_command'])
    expect(Object.keys(frontmatter(files, '.gemini/agents/bare.md')).sort()).toEqual(['description', 'name'])
  })

  it("Qwen Code, whose tools list takes exact names alone: an agent given a server has no list, and disallowedTools hides what it was not given", () => {
    const scribe = frontmatter(files, '.qwen/agents/scribe.md')
    expect(scribe.tools).toBeUndefined()
    expect(scribe.disallowedTools).toEqual(['mcp__tracker'])
    expect(frontmatter(files, '.qwen/agents/counter.md').tools).toEqual(['mcp__oac-tools__word_count', 'run_shell_command'])
    expect(frontmatter(files, '.qwen/agents/bare.md').disallowedTools).toBeUndefined()
    const [warning] = diagnostics.filter((d) => d.code === 'mcp-servers-agent-builtins')
    expect(warning!.message).toMatch(/^Qwen Code's agent files list tools by their exact names alone.*: "scribe", "lookout", given a server, get no list of tools but `disallowedTools`.*they are shown every built-in tool of Qwen Code\.$/)
  })

  it("Qwen Code: an agent given a server and not all of our tools has those of ours in disallowedTools too", () => {
    const lookout = frontmatter(files, '.qwen/agents/lookout.md')
    expect(lookout.tools).toBeUndefined()
    expect(lookout.disallowedTools).toEqual(['mcp__oac-tools__word_count', 'mcp__notes'])
  })

  it('an agent given a server alone is shown that server alone where the harness lists tools', () => {
    expect(frontmatter(files, '.claude/agents/lookout.md').tools).toBe('mcp__tracker')
    expect(frontmatter(files, '.gemini/agents/lookout.md').tools).toEqual(['mcp_tracker_*'])
    expect(frontmatter(files, '.github/agents/lookout.agent.md').tools).toEqual(['tracker/*'])
    expect(frontmatter(files, '.opencode/agent/lookout.md').permission).toEqual({ '*': 'deny', 'tracker_*': 'allow', tracker_list_issues: 'allow', tracker_create_issue: 'ask' })
    // Kilo's project config cannot carry tracker's bearer token: our bridge plugin gives it tracker under the same names.
    expect(frontmatter(files, '.kilo/agents/lookout.md').permission).toEqual(frontmatter(files, '.opencode/agent/lookout.md').permission)
  })

  it('Copilot: <server>/* beside our <server>/<tool>', () => {
    expect(frontmatter(files, '.github/agents/scribe.agent.md').tools).toEqual(['oac-tools/word_count', 'execute', 'notes/*'])
    expect(frontmatter(files, '.github/agents/counter.agent.md').tools).toEqual(['oac-tools/word_count', 'execute'])
  })

  it("opencode: <server>_* in the agent's permission, after every tool denied; no permission for an agent that names no tool", () => {
    const scribe = frontmatter(files, '.opencode/agent/scribe.md').permission as Record<string, string>
    // opencode applies the last rule that matches: the order of the keys is the meaning.
    expect(Object.entries(scribe)).toEqual([
      ['*', 'deny'],
      ['word_count', 'allow'],
      ['bash', 'allow'],
      ['notes_*', 'allow'],
      ['notes_erase_note', 'ask'],
    ])
    expect(frontmatter(files, '.opencode/agent/counter.md').permission).toEqual({ '*': 'deny', word_count: 'allow', bash: 'allow' })
    expect(frontmatter(files, '.opencode/agent/bare.md').permission).toBeUndefined()
  })

  it("Kilo: as opencode, tracker (whose bearer token its project config cannot carry) through our bridge plugin", () => {
    expect(frontmatter(files, '.kilo/agents/bare.md').permission).toBeUndefined()
    expect(diagnostics.filter((d) => d.code === 'mcp-server-left-out')).toEqual([])
    expect(Object.keys(document(files, '.kilo/kilo.json').mcp as object)).not.toContain('tracker')
    const plugin = files.get('.kilo/plugins/oac-tools-mcp.ts')!
    expect(plugin.kind === 'owned' && plugin.content).toContain('servers: ["tracker"]')
  })

  it('Codex, which gives every agent the session\'s servers: a warning naming the agents and servers', () => {
    const warnings = diagnostics.filter((d) => d.code === 'mcp-servers-not-scoped')
    expect(warnings.map((d) => d.message)).toEqual([expect.stringMatching(/^Codex does not scope MCP servers per agent: .*"notes", "tracker", also "scribe", "counter", "lookout", "bare"/)])
    expect(warnings[0]!.severity).toBe('warning')
  })

  it('an agent of a harness that cannot hide a server is still given its own (no warning where it scopes)', () => {
    const warned = diagnostics.filter((d) => d.code === 'mcp-servers-not-scoped').map((d) => d.message.split(' ')[0])
    expect(warned).toEqual(['Codex'])
  })
})

describe("approval rules name a whole server and one tool of it, in each harness's permission syntax", () => {
  let plan: Plan
  let files: Map<string, OutputFile>
  let diagnostics: Diagnostic[]
  beforeAll(() => {
    ;({ plan, files, diagnostics } = compile())
  })

  it('the plan holds each server\'s decision, a tool\'s own where it differs', () => {
    expect(Object.fromEntries(plan.mcpServers!.map((server) => [server.name, server.approval]))).toEqual({
      notes: { all: 'allow', tools: { erase_note: 'ask' } },
      tracker: { tools: { list_issues: 'allow', create_issue: 'ask' } },
    })
  })

  it('Claude Code and Qwen Code: permissions.allow and permissions.ask', () => {
    for (const path of ['.claude/settings.json', '.qwen/settings.json']) {
      const { permissions } = document(files, path) as { permissions: { allow: string[]; ask: string[] } }
      expect(permissions.allow).toEqual(expect.arrayContaining(['mcp__notes', 'mcp__tracker__list_issues']))
      expect(permissions.ask.sort()).toEqual(['mcp__notes__erase_note', 'mcp__tracker__create_issue'])
    }
  })

  it('Gemini CLI: tools.allowed and tools.confirmationRequired, a whole server as mcp_<server>_*', () => {
    const { tools } = document(files, '.gemini/settings.json') as { tools: { allowed: string[]; confirmationRequired: string[] } }
    expect(tools.allowed.sort()).toEqual(['mcp_notes_*', 'mcp_oac-tools_word_count', 'mcp_tracker_list_issues'])
    expect(tools.confirmationRequired.sort()).toEqual(['mcp_notes_erase_note', 'mcp_tracker_create_issue'])
  })

  it("opencode: the config's permission, a server's wildcard before its tool's own rule", () => {
    const { permission } = document(files, '.opencode/opencode.json') as { permission: Record<string, string> }
    const keys = Object.keys(permission)
    expect(permission).toEqual({ word_count: 'allow', 'notes_*': 'allow', notes_erase_note: 'ask', tracker_list_issues: 'allow', tracker_create_issue: 'ask' })
    expect(keys.indexOf('notes_*')).toBeLessThan(keys.indexOf('notes_erase_note'))
  })

  it("Codex: the server's default_tools_approval_mode and a tool's approval_mode in its block", () => {
    const { mcp_servers: servers } = document(files, '.codex/config.toml') as { mcp_servers: Record<string, Record<string, unknown>> }
    expect(servers.notes).toMatchObject({ default_tools_approval_mode: 'approve', tools: { erase_note: { approval_mode: 'prompt' } } })
    expect(servers.tracker!.default_tools_approval_mode).toBeUndefined()
    expect(servers.tracker!.tools).toEqual({ list_issues: { approval_mode: 'approve' }, create_issue: { approval_mode: 'prompt' } })
  })

  it("Copilot, which reads no approval rules from a project, is warned about with the server's names", () => {
    const [warning] = diagnostics.filter((d) => d.code === 'approval-unsupported')
    expect(warning!.message).toMatch(/^Config "default"'s approval rules cannot reach GitHub Copilot: .*"word_count", "notes", "notes\/erase_note", "tracker\/list_issues", "tracker\/create_issue" run as GitHub Copilot decides\.$/)
  })

  it("a name that is neither a tool nor a server of the config is an error that lists both", () => {
    const { diagnostics: errors } = compilePlan(loaded, { root, harnesses: ['claude'], config: 'unknown' })
    expect(errors.filter((d) => d.severity === 'error').map((d) => [d.code, d.message])).toEqual([
      ['config-approval-unknown-tool', expect.stringMatching(/names the tool "nowhere\/read".*Its tools: word_count\. Its MCP servers: notes, tracker\./)],
    ])
  })
})

describe('a plugin folder carries the servers in every format that has MCP', () => {
  let files: Map<string, OutputFile>
  let diagnostics: Diagnostic[]
  beforeAll(() => {
    ;({ files, diagnostics } = compile({ plugin: { name: 'scope-kit', version: '1.0.0', description: 'Scoped servers.' } }))
  })

  it("Claude Code's plugin.json and Copilot's own manifest: the entries of .mcp.json, references as ${NAME}", () => {
    for (const path of ['.claude-plugin/plugin.json', '.github/plugin/plugin.json']) {
      const { mcpServers } = document(files, path) as { mcpServers: Record<string, unknown> }
      expect(mcpServers.notes).toEqual({ command: 'notes-server', env: { NOTES_TOKEN: '${NOTES_TOKEN}' } })
      expect(mcpServers.tracker).toEqual({ type: 'http', url: 'https://tracker.example.com/mcp', headers: { Authorization: 'Bearer ${TRACKER_TOKEN}' } })
      expect(Object.keys(mcpServers)).toContain('oac-tools')
    }
  })

  it("Claude Code's plugin agents name the server as Claude names a plugin's: mcp__plugin_<plugin>_<server>", () => {
    expect(items(frontmatter(files, 'claude/agents/scribe.md').tools)).toContain('mcp__plugin_scope-kit_notes')
  })

  it("Codex's plugin mcp.json: env_vars and bearer_token_env_var, with the approval modes", () => {
    const { mcpServers } = document(files, 'codex/mcp.json') as { mcpServers: Record<string, unknown> }
    expect(mcpServers.notes).toEqual({ command: 'notes-server', env_vars: ['NOTES_TOKEN'], default_tools_approval_mode: 'approve', tools: { erase_note: { approval_mode: 'prompt' } } })
    expect(mcpServers.tracker).toMatchObject({ url: 'https://tracker.example.com/mcp', bearer_token_env_var: 'TRACKER_TOKEN' })
  })

  it("Gemini CLI's and Qwen Code's extension manifests: httpUrl, ${NAME}", () => {
    for (const path of ['gemini-extension.json', 'qwen-extension.json']) {
      const { mcpServers } = document(files, path) as { mcpServers: Record<string, unknown> }
      expect(mcpServers.notes).toEqual({ command: 'notes-server', env: { NOTES_TOKEN: '${NOTES_TOKEN}' } })
      expect(mcpServers.tracker).toEqual({ httpUrl: 'https://tracker.example.com/mcp', headers: { Authorization: 'Bearer ${TRACKER_TOKEN}' } })
    }
  })

  it("opencode's and Kilo's plugin module: their config's entries in its config hook, every server (Kilo's too), references filled from the environment, with the approval rules and no warning", async () => {
    expect(diagnostics.filter((d) => d.code === 'mcp-server-left-out' || (d.code === 'plugin-unsupported' && /^(opencode|Kilo) /.test(d.message)))).toEqual([])
    const file = files.get('opencode/config.mjs')
    if (file?.kind !== 'owned') throw new Error('no opencode/config.mjs')
    type Config = { mcp?: Record<string, unknown>; permission?: Record<string, string> }
    // The module as opencode and Kilo load it (it imports nothing of its folder) and call its hook, in each one's process: Kilo sets KILO_PID.
    const configIn = async (kilo: boolean): Promise<Config> => {
      const config: Config = {}
      Object.assign(process.env, { NOTES_TOKEN: 'notes-value', TRACKER_TOKEN: 'tracker-value', ...(kilo && { KILO_PID: String(process.pid) }) })
      try {
        // A module of its own for each (a comment apart), as each process loads it anew.
        const url = `data:text/javascript,${encodeURIComponent(`${file.content}\n// ${kilo ? 'kilo' : 'opencode'}`)}`
        const { OacConfig } = (await import(url)) as { OacConfig: () => Promise<{ config(config: Config): Promise<void> }> }
        await (await OacConfig()).config(config)
      } finally {
        for (const name of ['NOTES_TOKEN', 'TRACKER_TOKEN', 'KILO_PID']) delete process.env[name]
      }
      return config
    }
    const [opencode, kilo] = [await configIn(false), await configIn(true)]
    expect(opencode.mcp).toEqual({
      notes: { type: 'local', command: ['notes-server'], environment: { NOTES_TOKEN: 'notes-value' } },
      tracker: { type: 'remote', url: 'https://tracker.example.com/mcp', headers: { Authorization: 'Bearer tracker-value' } },
    })
    // Kilo's stdio entry leaves out the variable its server inherits under its own name.
    expect(kilo.mcp).toEqual({ notes: { type: 'local', command: ['notes-server'] }, tracker: opencode.mcp!.tracker })
    for (const config of [opencode, kilo]) expect(config.permission).toMatchObject({ 'notes_*': 'allow', notes_erase_note: 'ask', tracker_list_issues: 'allow', tracker_create_issue: 'ask' })
    expect(file.content).not.toContain('-value')
  })
})

describe('a user-scope install writes the servers into each home configuration', () => {
  it('~/.claude.json, ~/.codex/config.toml, the settings of Gemini CLI and Qwen Code, opencode\'s and Kilo\'s config', () => {
    const { files } = compile({ scope: 'user' })
    expect(document(files, '.claude.json').mcpServers).toMatchObject({ notes: { command: 'notes-server' }, tracker: { type: 'http' } })
    expect(document(files, '.codex/config.toml').mcp_servers).toMatchObject({ notes: { env_vars: ['NOTES_TOKEN'] }, tracker: { bearer_token_env_var: 'TRACKER_TOKEN' } })
    for (const path of ['.gemini/settings.json', '.qwen/settings.json']) expect(document(files, path).mcpServers).toMatchObject({ notes: {}, tracker: { httpUrl: 'https://tracker.example.com/mcp' } })
    expect(document(files, '.config/opencode/opencode.json').mcp).toMatchObject({ notes: { type: 'local' }, tracker: { headers: { Authorization: 'Bearer {env:TRACKER_TOKEN}' } } })
    // A user's Kilo config takes references: tracker is carried there.
    expect(document(files, '.config/kilo/kilo.json').mcp).toMatchObject({ tracker: { headers: { Authorization: 'Bearer {env:TRACKER_TOKEN}' } } })
    expect(document(files, '.copilot/mcp-config.json').mcpServers).toMatchObject({ notes: {}, tracker: {} })
  })
})
