import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { emitClaude } from '../../src/emit/claude.js'
import { renderAgentPrompt } from '../../src/emit/codegen/prompt-docs.js'
import { mergeJsonText } from '../../src/write/index.js'
import { agent, fixturePlan, merged, owned, splitFrontmatter, tool } from './fixture.js'

describe('emitClaude: .mcp.json', () => {
  it('merges one server entry: node with the launcher, and each declared variable as ${NAME}', () => {
    const file = merged(emitClaude(fixturePlan()), '.mcp.json')
    expect(file.format).toBe('json')
    expect(file.entries).toHaveLength(1)
    const [entry] = file.entries
    expect(entry!.keyPath).toEqual(['mcpServers', 'oac-tools'])
    const value = entry!.value as { command: string; args: string[]; env: Record<string, string> }
    expect(value.command).toBe('node')
    expect(value.args[0]).toBe('-e')
    expect(value.args).toHaveLength(2)
    expect(value.args[1]).toContain('"scripts/mcp_tools_server.cjs"')
    expect(value.env).toEqual({ FORECAST_TOKEN: '${FORECAST_TOKEN}', REGION: '${REGION}' })
    // What a fresh .mcp.json looks like once merged.
    expect(JSON.parse(mergeJsonText(undefined, file, []))).toEqual({ mcpServers: { 'oac-tools': value } })
  })

  it('names the entry after the plan server name and leaves out env when no variable is declared', () => {
    const file = merged(emitClaude(fixturePlan({ serverName: 'app-a', env: [] })), '.mcp.json')
    expect(file.entries[0]!.keyPath).toEqual(['mcpServers', 'app-a'])
    expect(Object.keys(file.entries[0]!.value as object)).toEqual(['command', 'args'])
    // An app with its own server name has its own scripts folder, so apps can share one target.
    expect((file.entries[0]!.value as { args: string[] }).args[1]).toContain('"scripts/app-a/mcp_tools_server.cjs"')
  })

  it('writes no .mcp.json without native tools, or without a JSON-contract tool', () => {
    expect(emitClaude(fixturePlan({ nativeTools: false })).map((f) => f.path)).not.toContain('.mcp.json')
    const bashOnly = fixturePlan({ tools: [tool('forecast', { json: false }), tool('search_issues', { json: false }), tool('release_notes', { json: false })] })
    expect(emitClaude(bashOnly).map((f) => f.path)).not.toContain('.mcp.json')
  })
})

describe('emitClaude: .claude/agents/<agent>.md', () => {
  it('writes one owned file per agent', () => {
    expect(emitClaude(fixturePlan()).map((f) => `${f.kind} ${f.path}`)).toEqual([
      'merge .mcp.json',
      'owned .claude/agents/planner.md',
      'owned .claude/agents/triager.md',
      'owned .claude/agents/reviewer.md',
    ])
  })

  it('json tools only: MCP names, the mapped model, extra fields from harness.claude, no Bash', () => {
    const plan = fixturePlan()
    const { frontmatter, body } = splitFrontmatter(owned(emitClaude(plan), '.claude/agents/planner.md').content)
    expect(frontmatter).toEqual({
      name: 'planner',
      description: 'The planner agent.',
      tools: 'mcp__oac-tools__forecast, mcp__oac-tools__search_issues',
      model: 'opus',
      color: 'blue',
      maxTurns: 12,
    })
    expect(body).toBe(renderAgentPrompt(plan, plan.agents[0]!, 'claude'))
    expect(body).toContain('Call the tool `mcp__oac-tools__forecast`')
  })

  it('a tool documented both ways and a bash-only tool: the MCP tool, the built-ins asked for, then Bash; model inherit', () => {
    const { frontmatter } = splitFrontmatter(owned(emitClaude(fixturePlan()), '.claude/agents/triager.md').content)
    expect(frontmatter).toEqual({
      name: 'triager',
      description: 'The triager agent.',
      tools: 'mcp__oac-tools__search_issues, Read, Grep, Bash',
      model: 'inherit',
    })
  })

  it('an agent told to use the bash form gets Bash and no MCP tool', () => {
    const { frontmatter } = splitFrontmatter(owned(emitClaude(fixturePlan()), '.claude/agents/reviewer.md').content)
    expect(frontmatter.tools).toBe('Bash')
  })

  it('without native tools every tool is run as a script', () => {
    const { frontmatter } = splitFrontmatter(owned(emitClaude(fixturePlan({ nativeTools: false })), '.claude/agents/planner.md').content)
    expect(frontmatter.tools).toBe('Bash')
  })

  it('does not repeat Bash when the agent lists it as a built-in', () => {
    const plan = fixturePlan({ agents: [agent('runner', { tools: ['release_notes'], builtinTools: { claude: ['Bash', 'Read'] } })] })
    expect(splitFrontmatter(owned(emitClaude(plan), '.claude/agents/runner.md').content).frontmatter.tools).toBe('Bash, Read')
  })

  it('leaves tools out (Claude Code then allows every tool) for an agent that names none', () => {
    const plan = fixturePlan({ agents: [agent('free')] })
    const { frontmatter, body } = splitFrontmatter(owned(emitClaude(plan), '.claude/agents/free.md').content)
    expect(frontmatter).toEqual({ name: 'free', description: 'The free agent.', model: 'inherit' })
    expect(body).toBe('You are free.\n')
  })

  it('keeps hostile strings exact in the frontmatter and the body (10,000 cases)', () => {
    const hostile = fc.oneof(
      fc.string({ unit: 'binary', maxLength: 60 }),
      fc.constantFrom('---', '\n---\n', '"""', "'''", ': ', '# no comment', '- item', '&anchor', '*alias', '!tag', '{a: 1}', '[x]', '|', '>', '\u2028\u2029', '\0\x07\x1b', 'null', 'true', '0x10', '~'),
      fc.array(fc.constantFrom('---', '\n', '"', "'", '\\', ':', '#', '`', '${', '*/', '</script>', '\r\n', '\t', ' '), { maxLength: 12 }).map((parts) => parts.join('')),
    )
    fc.assert(
      fc.property(hostile, hostile, hostile, (description, prompt, color) => {
        const plan = fixturePlan({ agents: [agent('hostile', { description, prompt, tools: ['forecast'], harness: { claude: { color } } })] })
        const { frontmatter, body } = splitFrontmatter(owned(emitClaude(plan), '.claude/agents/hostile.md').content)
        expect(frontmatter.description).toBe(description)
        expect(frontmatter.color).toBe(color)
        expect(frontmatter.name).toBe('hostile')
        expect(body).toBe(`${renderAgentPrompt(plan, plan.agents[0]!, 'claude').replace(/\s+$/, '')}\n`)
      }),
      { numRuns: 10_000 },
    )
  })
})
