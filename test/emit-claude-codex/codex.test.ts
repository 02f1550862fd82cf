import fc from 'fast-check'
import { parse as parseToml } from 'smol-toml'
import { describe, expect, it } from 'vitest'
import type { Plan } from '../../src/compile/plan.js'
import { renderAgentPrompt } from '../../src/emit/codegen/prompt-docs.js'
import { CODEX_AGENT_KEYS } from '../../src/compile/harnesses/codex.js'
import { emitCodex } from '../../src/emit/codex.js'
import { mcpLauncherSource } from '../../src/emit/mcp-launcher.js'
import { mergeTomlText } from '../../src/write/index.js'
import { agent, fixturePlan, merged } from './fixture.js'

/** The agent file as the write stage makes it when none exists yet, parsed back. */
function agentToml(plan: Plan, name: string): Record<string, unknown> {
  return parseToml(mergeTomlText(undefined, merged(emitCodex(plan), `.codex/agents/${name}.toml`), []))
}

const launcher = (serverName = 'oac-tools') => ({ command: 'node', args: ['-e', mcpLauncherSource({ serverName })] })

describe('emitCodex', () => {
  const serverBlock = { ...launcher(), env_vars: ['FORECAST_TOKEN', 'REGION'], enabled_tools: ['forecast', 'search_issues'], startup_timeout_sec: 30, tool_timeout_sec: 75 }

  it('writes one merged TOML file per agent and merges the server into the project .codex/config.toml', () => {
    expect(emitCodex(fixturePlan()).map((f) => `${f.kind} ${f.kind === 'merge' ? f.format : ''} ${f.path}`)).toEqual([
      'merge toml .codex/agents/planner.toml',
      'merge toml .codex/agents/triager.toml',
      'merge toml .codex/agents/reviewer.toml',
      'merge toml .codex/config.toml',
    ])
  })

  it('the role keys, the mapped model and harness.codex keys; no MCP block, which Codex ignores in a role file', () => {
    const plan = fixturePlan()
    expect(agentToml(plan, 'planner')).toEqual({
      name: 'planner',
      description: 'The planner agent.',
      developer_instructions: renderAgentPrompt(plan, plan.agents[0]!, 'codex'),
      model: 'gpt-5.1-codex',
      model_reasoning_effort: 'high',
      sandbox_mode: 'read-only',
    })
    expect(Object.keys(agentToml(plan, 'triager'))).toEqual(['name', 'description', 'developer_instructions'])
  })

  it('names each tool as Codex shows it: a function in the namespace of the server, "-" made "_"', () => {
    const plan = fixturePlan()
    expect(renderAgentPrompt(plan, plan.agents[0]!, 'codex')).toContain('Call the tool `forecast` (in the namespace `mcp__oac_tools`)')
    expect(renderAgentPrompt(plan, plan.agents[0]!, 'codex')).not.toContain('mcp__oac-tools')
  })

  it('writes the prompt as a multi-line TOML string, one line of the file per line of the prompt', () => {
    const plan = fixturePlan()
    const file = merged(emitCodex(plan), '.codex/agents/planner.toml')
    const text = mergeTomlText(undefined, file, [])
    const prompt = renderAgentPrompt(plan, plan.agents[0]!, 'codex')
    expect(text).toContain(`developer_instructions = """\n${prompt.split('\n')[0]}\n`)
    expect(text.split('\n').length).toBeGreaterThan(prompt.split('\n').length)
  })

  it('the config.toml block serves every JSON tool, named after the server, env_vars only when variables are declared', () => {
    const file = merged(emitCodex(fixturePlan()), '.codex/config.toml')
    expect(file.entries.map((e) => e.keyPath)).toEqual([['mcp_servers', 'oac-tools']])
    expect(parseToml(mergeTomlText(undefined, file, []))).toEqual({ mcp_servers: { 'oac-tools': serverBlock } })
    const other = parseToml(mergeTomlText(undefined, merged(emitCodex(fixturePlan({ serverName: 'app-b', env: [] })), '.codex/config.toml'), [])) as {
      mcp_servers: Record<string, Record<string, unknown>>
    }
    expect(Object.keys(other.mcp_servers)).toEqual(['app-b'])
    expect(other.mcp_servers['app-b']!.env_vars).toBeUndefined()
  })

  it('no config.toml block with codexConfig: false, or without native tools', () => {
    expect(emitCodex(fixturePlan({ codexConfig: false })).map((f) => f.path)).not.toContain('.codex/config.toml')
    expect(emitCodex(fixturePlan({ nativeTools: false })).map((f) => f.path)).not.toContain('.codex/config.toml')
  })

  it('merges into a user file: their keys, tables and comments stay', () => {
    const user = '# my notes\nnickname_candidates = ["Ada"]  # keep\n\n[mcp_servers.mine]\ncommand = "mine"\n'
    const text = mergeTomlText(user, merged(emitCodex(fixturePlan()), '.codex/agents/planner.toml'), [])
    expect(text.startsWith('# my notes\nnickname_candidates = ["Ada"]  # keep\n')).toBe(true)
    expect(text).toContain('[mcp_servers.mine]\ncommand = "mine"\n')
    const parsed = parseToml(text) as { mcp_servers: Record<string, unknown>; name: string }
    expect(Object.keys(parsed.mcp_servers)).toEqual(['mine'])
    expect(parsed.name).toBe('planner')
  })

  it('lets every allow-listed key through', () => {
    const codex = Object.fromEntries(CODEX_AGENT_KEYS.map((key) => [key, 'x']))
    const toml = agentToml(fixturePlan({ agents: [agent('all', { harness: { codex } })] }), 'all')
    for (const key of CODEX_AGENT_KEYS) expect(toml[key]).toBe('x')
  })

  it('keeps hostile strings exact through TOML (10,000 cases)', () => {
    const hostile = fc.oneof(
      fc.string({ unit: 'grapheme', maxLength: 60 }),
      fc.constantFrom('"""', "'''", '""""""', '\\', '\\u0041', '\n[mcp_servers.evil]\ncommand = "rm"\n', '# x', '\r\n', '\u2028', '\0\x07\x7f', '${HOME}'),
      fc.array(fc.constantFrom('"""', "'''", '"', "'", '\\', '\n', '\r', '\t', '[', ']', '=', '#', '---', ' '), { maxLength: 12 }).map((p) => p.join('')),
    )
    fc.assert(
      fc.property(hostile, hostile, hostile, (description, prompt, nickname) => {
        const plan = fixturePlan({
          agents: [agent('hostile', { description, prompt, tools: ['forecast'], harness: { codex: { compact_prompt: nickname } } })],
        })
        const toml = agentToml(plan, 'hostile')
        expect(toml.description).toBe(description)
        expect(toml.developer_instructions).toBe(renderAgentPrompt(plan, plan.agents[0]!, 'codex'))
        expect(toml.compact_prompt).toBe(nickname)
        expect(toml.mcp_servers).toBeUndefined()
      }),
      { numRuns: 10_000 },
    )
  })
})
