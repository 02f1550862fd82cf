import { describe, expect, it } from 'vitest'
import { harness } from '../../src/compile/harnesses/index.js'
import type { Plan } from '../../src/compile/plan.js'
import { HARNESSES } from '../../src/define/types.js'
import { emitAll } from '../../src/emit/index.js'
import { emitClaude } from '../../src/emit/claude.js'
import { emitCodex } from '../../src/emit/codex.js'
import { emitGemini } from '../../src/emit/gemini.js'
import { emitKilo } from '../../src/emit/kilo.js'
import { emitOpencode } from '../../src/emit/opencode.js'
import { emitQwen } from '../../src/emit/qwen.js'
import type { OutputFile } from '../../src/emit/types.js'
import { agent, merged, owned, splitFrontmatter, tool } from '../emit-claude-codex/fixture.js'

/**
 * A config's approval rules, decided per tool in the plan (compile), written into each harness's own
 * permission settings: `lookup` runs without asking, `wipe` always asks, `plain` is left to the
 * harness, `notes` is a bash-route tool (its harness's shell permission applies).
 */
function approvalPlan(overrides: Partial<Plan> = {}): Plan {
  return {
    config: 'prod',
    harnesses: [...HARNESSES],
    nativeTools: true,
    serverName: 'oac-tools',
    bridge: 'process',
    hooks: [],
    env: [],
    tools: [
      tool('lookup', { approval: 'allow', effects: { readOnly: true } }),
      tool('wipe', { approval: 'ask', effects: { destructive: true } }),
      tool('plain'),
      tool('notes', { json: false }),
    ],
    agents: [agent('keeper', { tools: ['lookup', 'wipe', 'plain'] }), agent('reader', { tools: ['lookup'] })],
    ...overrides,
  }
}

const paths = (files: OutputFile[]) => files.map((file) => file.path)

describe('approval rules in each harness’s permission settings', () => {
  it('Claude Code: items of permissions.allow and permissions.ask in .claude/settings.json, each tool as the model sees it', () => {
    expect(merged(emitClaude(approvalPlan()), '.claude/settings.json').entries).toEqual([
      { keyPath: ['permissions', 'allow', '[]', 'mcp__oac-tools__lookup'], value: 'mcp__oac-tools__lookup' },
      { keyPath: ['permissions', 'ask', '[]', 'mcp__oac-tools__wipe'], value: 'mcp__oac-tools__wipe' },
    ])
    expect(paths(emitClaude(approvalPlan({ serverName: 'team' })))).toContain('.claude/settings.json')
    expect(merged(emitClaude(approvalPlan({ serverName: 'team' })), '.claude/settings.json').entries[0]!.value).toBe('mcp__team__lookup')
  })

  it('Qwen Code: the same items in .qwen/settings.json, next to its server entry', () => {
    expect(merged(emitQwen(approvalPlan()), '.qwen/settings.json').entries.map((entry) => entry.keyPath)).toEqual([
      ['mcpServers', 'oac-tools'],
      ['permissions', 'allow', '[]', 'mcp__oac-tools__lookup'],
      ['permissions', 'ask', '[]', 'mcp__oac-tools__wipe'],
    ])
  })

  it('Codex: approval_mode per decided tool in the server block (approve, prompt), the rest left to Codex', () => {
    const [server] = merged(emitCodex(approvalPlan()), '.codex/config.toml').entries
    expect(server!.value).toMatchObject({ enabled_tools: ['lookup', 'wipe', 'plain'], tools: { lookup: { approval_mode: 'approve' }, wipe: { approval_mode: 'prompt' } } })
    const [undecided] = merged(emitCodex(approvalPlan({ tools: [tool('plain')] })), '.codex/config.toml').entries
    expect(undecided!.value).not.toHaveProperty('tools')
  })

  it('Gemini CLI: items of tools.allowed and tools.confirmationRequired in .gemini/settings.json, no policy file (0.61 ignores a workspace’s)', () => {
    const files = emitGemini(approvalPlan())
    expect(merged(files, '.gemini/settings.json').entries.slice(1)).toEqual([
      { keyPath: ['tools', 'allowed', '[]', 'mcp_oac-tools_lookup'], value: 'mcp_oac-tools_lookup' },
      { keyPath: ['tools', 'confirmationRequired', '[]', 'mcp_oac-tools_wipe'], value: 'mcp_oac-tools_wipe' },
    ])
    expect(paths(files).filter((path) => path.includes('policies'))).toEqual([])
    expect(merged(emitGemini(approvalPlan({ tools: [tool('plain')] })), '.gemini/settings.json').entries.map((entry) => entry.keyPath)).toEqual([['mcpServers', 'oac-tools']])
  })

  it('opencode and Kilo: ask in the agent files, and every agent’s permission in their own config file', () => {
    for (const [emit, agentFile, config] of [
      [emitOpencode, '.opencode/agent/keeper.md', '.opencode/opencode.json'],
      [emitKilo, '.kilo/agents/keeper.md', '.kilo/kilo.json'],
    ] as const) {
      const files = emit(approvalPlan())
      // Kilo's agent file has no note line; opencode's first frontmatter line is one.
      const { frontmatter } = splitFrontmatter(owned(files, agentFile).content.replace(/^---\n# .*\n/, '---\n'))
      // Every tool denied, then its allow-list: its own tools (`ask` where the rules say so) and the shell its prompt documents scripts for.
      expect(frontmatter.permission).toEqual({ '*': 'deny', lookup: 'allow', wipe: 'ask', plain: 'allow', bash: 'allow' })
      expect(merged(files, config).entries).toEqual([
        { keyPath: ['permission', 'lookup'], value: 'allow' },
        { keyPath: ['permission', 'wipe'], value: 'ask' },
      ])
      expect(paths(emit(approvalPlan({ tools: [tool('plain')], agents: [] })))).not.toContain(config)
    }
  })

  it('writes nothing for the rules where tools have no native form, and Copilot (which has no such settings) gets none', () => {
    const bashOnly = emitAll(approvalPlan({ nativeTools: false }))
    for (const path of ['.claude/settings.json', '.gemini/settings.json', '.qwen/settings.json', '.opencode/opencode.json', '.kilo/kilo.json']) expect(paths(bashOnly)).not.toContain(path)
    expect('unsupported' in harness('copilot').approvals).toBe(true)
    const copilot = emitAll(approvalPlan({ harnesses: ['copilot'] }))
    expect(JSON.stringify(copilot)).not.toMatch(/permission|approval/)
  })

  it('keeps each file to its harness: a plan for one harness writes only that harness’s permission file', () => {
    const written = (id: (typeof HARNESSES)[number]) => paths(emitAll(approvalPlan({ harnesses: [id] }))).filter((path) => /settings\.json|opencode\.json|kilo\.json|config\.toml/.test(path))
    expect(written('claude')).toEqual(['.claude/settings.json'])
    expect(written('gemini')).toEqual(['.gemini/settings.json'])
    expect(written('qwen')).toEqual(['.qwen/settings.json'])
    expect(written('opencode')).toEqual(['.opencode/opencode.json'])
    expect(written('kilo')).toEqual(['.kilo/kilo.json'])
    expect(written('codex')).toEqual(['.codex/config.toml'])
    expect(written('pi')).toEqual([])
    expect(written('omp')).toEqual([])
  })
})
