import { describe, expect, it } from 'vitest'
import { parse as parseYaml } from 'yaml'
import type { Plan } from '../../src/compile/plan.js'
import type { Harness } from '../../src/define/types.js'
import { renderAgentPrompt } from '../../src/emit/codegen/prompt-docs.js'
import { emitCopilot } from '../../src/emit/copilot.js'
import { emitGemini } from '../../src/emit/gemini.js'
import { emitAll } from '../../src/emit/index.js'
import { emitKilo } from '../../src/emit/kilo.js'
import { emitOpencode } from '../../src/emit/opencode.js'
import { emitQwen } from '../../src/emit/qwen.js'
import type { MergeFile, OutputFile, OwnedFile } from '../../src/emit/types.js'
import { mcpServerCommand } from '../../src/emit/mcp-launcher.js'
import { fixturePlan } from '../emit-native/fixture.js'

function owned(files: OutputFile[], path: string): OwnedFile {
  const file = files.find((f) => f.path === path)
  if (file?.kind !== 'owned') throw new Error(`no owned file ${path} among ${files.map((f) => f.path).join(', ')}`)
  return file
}

function merge(files: OutputFile[], path: string): MergeFile {
  const file = files.find((f) => f.path === path)
  if (file?.kind !== 'merge') throw new Error(`no merge file ${path} among ${files.map((f) => f.path).join(', ')}`)
  return file
}

function splitMarkdown(content: string): { frontmatter: Record<string, unknown>; body: string } {
  const match = /^---\n([\s\S]*?)\n---\n\n([\s\S]*)$/.exec(content)
  if (!match) throw new Error(`no frontmatter in:\n${content}`)
  return { frontmatter: parseYaml(match[1]!) as Record<string, unknown>, body: match[2]! }
}

const plans = new Map<string, Plan>()
async function planFor(harnesses: Harness[]): Promise<Plan> {
  const key = harnesses.join(',')
  if (!plans.has(key)) plans.set(key, await fixturePlan({ harnesses }))
  return plans.get(key)!
}

const launcher = mcpServerCommand({ serverName: 'oac-tools' })

describe('Gemini CLI', () => {
  it('merges only known MCPServerConfig keys into .gemini/settings.json and writes an agent file per agent', async () => {
    const files = emitGemini(await planFor(['gemini']))
    expect(files.map((f) => f.path)).toEqual(['.gemini/settings.json', '.gemini/agents/planner.md', '.gemini/agents/scribe.md'])
    expect(merge(files, '.gemini/settings.json')).toEqual({
      kind: 'merge',
      path: '.gemini/settings.json',
      format: 'json',
      entries: [{ keyPath: ['mcpServers', 'oac-tools'], value: { ...launcher, env: { OAC_NATIVE_TOKEN: '${OAC_NATIVE_TOKEN}' } } }],
    })
  })

  it('lists each agent\'s MCP tools as mcp_<server>_<tool> (the shell tool when it runs scripts) and names them so in its prompt', async () => {
    const plan = await planFor(['gemini'])
    const files = emitGemini(plan)
    const planner = splitMarkdown(owned(files, '.gemini/agents/planner.md').content)
    // The planner documents both forms (toolFormat "both"): its MCP tools and the shell for the scripts.
    expect(planner.frontmatter).toEqual({
      name: 'planner',
      description: 'Plans trips with forecasts and notes.',
      tools: ['mcp_oac-tools_forecast', 'mcp_oac-tools_add_note', 'run_shell_command'],
      model: 'anthropic/claude-sonnet-4-5',
    })
    expect(planner.body).toBe(renderAgentPrompt(plan, plan.agents[0]!, 'gemini'))
    expect(planner.body).toContain('Call the tool `mcp_oac-tools_forecast`')
    const scribe = splitMarkdown(owned(files, '.gemini/agents/scribe.md').content)
    // JSON only: no shell; no model set for the scribe.
    expect(scribe.frontmatter).toEqual({
      name: 'scribe',
      description: 'Writes notes and counts things.',
      tools: ['mcp_oac-tools_add_note', 'mcp_oac-tools_count', 'mcp_oac-tools_explode'],
    })
  })

  it('writes harness.gemini fields (compile has checked them) over nothing it owns', async () => {
    const plan = await planFor(['gemini'])
    const withFields = { ...plan, agents: [{ ...plan.agents[1]!, harness: { gemini: { max_turns: 4, display_name: 'Scribe' } } }] }
    expect(splitMarkdown(owned(emitGemini(withFields), '.gemini/agents/scribe.md').content).frontmatter).toMatchObject({ name: 'scribe', max_turns: 4, display_name: 'Scribe' })
  })

  it('without native tools: no settings entry, and the agents run the scripts through the shell', async () => {
    const plan = { ...(await planFor(['gemini'])), nativeTools: false }
    const files = emitGemini(plan)
    expect(files.map((f) => f.path)).toEqual(['.gemini/agents/planner.md', '.gemini/agents/scribe.md'])
    expect(splitMarkdown(owned(files, '.gemini/agents/scribe.md').content).frontmatter.tools).toEqual(['run_shell_command'])
  })
})

describe('Qwen Code', () => {
  it('writes the Gemini-shaped server entry into .qwen/settings.json and agents whose tools are mcp__<server>__<tool>', async () => {
    const plan = await planFor(['qwen'])
    const files = emitQwen(plan)
    expect(files.map((f) => f.path)).toEqual(['.qwen/settings.json', '.qwen/agents/planner.md', '.qwen/agents/scribe.md'])
    expect(merge(files, '.qwen/settings.json').entries).toEqual(merge(emitGemini(await planFor(['gemini'])), '.gemini/settings.json').entries)
    const planner = splitMarkdown(owned(files, '.qwen/agents/planner.md').content)
    expect(planner.frontmatter.tools).toEqual(['mcp__oac-tools__forecast', 'mcp__oac-tools__add_note', 'run_shell_command'])
    expect(planner.body).toContain('Call the tool `mcp__oac-tools__forecast`')
  })
})

describe('GitHub Copilot', () => {
  it('merges .mcp.json (when Claude does not) and .vscode/mcp.json, and writes .github/agents/<agent>.agent.md', async () => {
    const files = emitCopilot(await planFor(['copilot']))
    expect(files.map((f) => f.path)).toEqual(['.mcp.json', '.vscode/mcp.json', '.github/agents/planner.agent.md', '.github/agents/scribe.agent.md'])
    expect(merge(files, '.mcp.json')).toMatchObject({ strictJsonReader: 'the GitHub Copilot CLI' })
    expect(merge(files, '.mcp.json').entries).toEqual([{ keyPath: ['mcpServers', 'oac-tools'], value: { ...launcher, env: { OAC_NATIVE_TOKEN: '${OAC_NATIVE_TOKEN}' } } }])
    // VS Code: `servers`, a required `type`, and its own variable syntax.
    expect(merge(files, '.vscode/mcp.json').entries).toEqual([
      { keyPath: ['servers', 'oac-tools'], value: { type: 'stdio', ...launcher, cwd: '${workspaceFolder}', env: { OAC_NATIVE_TOKEN: '${env:OAC_NATIVE_TOKEN}' } } },
    ])
  })

  it('with Claude selected too, the one .mcp.json entry is the Claude emitter\'s, still marked for the comment warning', async () => {
    const plan = await planFor(['claude', 'copilot'])
    expect(emitCopilot(plan).map((f) => f.path)).not.toContain('.mcp.json')
    const all = emitAll(plan).filter((f) => f.path === '.mcp.json')
    expect(all).toHaveLength(1)
    expect(all[0]).toMatchObject({ kind: 'merge', strictJsonReader: 'the GitHub Copilot CLI' })
    const claudeOnly = emitAll(await planFor(['claude'])).find((f) => f.path === '.mcp.json')
    expect(claudeOnly).not.toHaveProperty('strictJsonReader')
  })

  it('lists MCP tools as <server>/<tool> in the agent file, and names them <server>-<tool> in the prompt', async () => {
    const plan = await planFor(['copilot'])
    const planner = splitMarkdown(owned(emitCopilot(plan), '.github/agents/planner.agent.md').content)
    expect(planner.frontmatter).toEqual({
      name: 'planner',
      description: 'Plans trips with forecasts and notes.',
      tools: ['oac-tools/forecast', 'oac-tools/add_note', 'execute'],
      model: 'anthropic/claude-sonnet-4-5',
    })
    expect(planner.body).toContain('Call the tool `oac-tools-forecast`')
  })
})

describe('Kilo', () => {
  it("writes opencode's shims and agents under .kilo/, importing @kilocode/plugin", async () => {
    const plan = await planFor(['opencode', 'kilo'])
    const files = emitKilo(plan)
    expect(files.map((f) => f.path)).toEqual([
      '.kilo/tools/forecast.ts',
      '.kilo/tools/add_note.ts',
      '.kilo/tools/count.ts',
      '.kilo/tools/explode.ts',
      '.kilo/agents/planner.md',
      '.kilo/agents/scribe.md',
    ])
    const shim = owned(files, '.kilo/tools/forecast.ts').content
    const opencode = owned(emitOpencode(plan), '.opencode/tool/forecast.ts').content
    expect(shim).toContain('import { tool } from "@kilocode/plugin"')
    // Same depth below the target: the same script path and, the import aside, the same shim.
    expect(shim).toBe(opencode.replace('"@opencode-ai/plugin"', '"@kilocode/plugin"'))
    const scribe = splitMarkdown(owned(files, '.kilo/agents/scribe.md').content)
    // builtinTools.opencode is opencode's: Kilo's agent is allowed its own tools only.
    expect(scribe.frontmatter).toEqual({
      description: 'Writes notes and counts things.',
      mode: 'primary',
      permission: { '*': 'deny', add_note: 'allow', count: 'allow', explode: 'allow' },
    })
  })
})
