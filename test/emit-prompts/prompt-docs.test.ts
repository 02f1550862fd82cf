import { describe, expect, it } from 'vitest'
import type { Plan, PlannedAgent, PlannedTool } from '../../src/compile/plan.js'
import { renderAgentPrompt } from '../../src/emit/codegen/prompt-docs.js'
import { emitPrompts } from '../../src/emit/prompts.js'
import * as planned from '../emit-claude-codex/fixture.js'

const forecast: PlannedTool = {
  name: 'forecast',
  description: 'Get a weather forecast.',
  json: true,
  replacesBuiltin: false,
  schema: {
    type: 'object',
    properties: {
      city: { type: 'string', description: 'City name to look up' },
      days: { type: 'integer', default: 3 },
      units: { type: 'string', enum: ['metric', 'imperial'] },
      verbose: { type: 'boolean' },
      tags: { type: 'array', items: { type: 'string' } },
      where: { type: 'object', properties: { lat: { type: 'number' } } },
    },
    required: ['city'],
    additionalProperties: false,
  },
  schemaKind: 'zod',
  schemaPackage: 'zod',
  source: { file: 'agents/tools/forecast.ts', line: 3, column: 25 },
  script: 'scripts/forecast.mjs',
}

const notes: PlannedTool = { ...forecast, name: 'notes', json: false, schema: { type: 'object', properties: {} }, script: 'scripts/notes.mjs' }

function agent(toolFormat: 'bash' | 'json' | 'both'): PlannedAgent {
  return {
    name: 'planner',
    description: 'Plans.',
    prompt: 'You plan things.\n\n',
    tools: ['forecast', 'notes'],
    toolFormats: { forecast: toolFormat, notes: toolFormat },
    mode: 'subagent',
    model: {},
    builtinTools: {},
    harness: {},
    source: { file: 'agents/registry.ts', line: 10, column: 1 },
  }
}

function plan(overrides: Partial<Plan> = {}): Plan {
  return {
    config: 'default',
    harnesses: ['opencode', 'claude', 'codex', 'pi', 'omp'],
    nativeTools: true,
    serverName: 'oac-tools',
    bridge: 'process',
    hooks: [],
    env: [],
    tools: [forecast, notes],
    agents: [agent('both')],
    ...overrides,
  }
}

describe('renderAgentPrompt', () => {
  it('documents the bash usage derived from the schema', () => {
    const text = renderAgentPrompt(plan(), agent('bash'), 'claude')
    expect(text.startsWith('You plan things.\n\n## Tools\n\n### forecast\n\nGet a weather forecast.')).toBe(true)
    expect(text).toContain(
      'node scripts/forecast.mjs --city <string> [--days <integer>] [--units <metric|imperial>] [--verbose] [--tags <string>...] [--where <json>]',
    )
    expect(text).toContain('- `--city <string>` (required): City name to look up')
    expect(text).toContain('- `--days <integer>` (default 3)')
    expect(text).toContain('- `--verbose / --no-verbose`')
    expect(text).toContain(`- \`--where <json>\` (object as JSON, e.g. \`--where '{"lat":1}'\`)`)
    expect(text).not.toContain('JSON Schema')
  })

  it('names the native tool per harness in the JSON form', () => {
    const json = agent('json')
    expect(renderAgentPrompt(plan(), json, 'claude')).toContain('Call the tool `mcp__oac-tools__forecast`')
    // Codex shows a function per tool in a namespace per server, with "-" made "_" in both.
    expect(renderAgentPrompt(plan({ serverName: 'app-a' }), json, 'codex')).toContain('Call the tool `forecast` (in the namespace `mcp__app_a`)')
    const pingHost = { ...forecast, name: 'ping-host', script: 'scripts/ping-host.mjs' }
    const pinger = { ...json, tools: ['ping-host'], toolFormats: { 'ping-host': 'json' as const } }
    expect(renderAgentPrompt(plan({ serverName: 'app-a', tools: [pingHost] }), pinger, 'codex')).toContain('Call the tool `ping_host` (in the namespace `mcp__app_a`)')
    expect(renderAgentPrompt(plan(), json, 'opencode')).toContain('Call the tool `forecast`')
  })

  it('keeps the bash route for tools without a native form, whatever the format', () => {
    const json = agent('json')
    const text = renderAgentPrompt(plan(), json, 'pi')
    const notesSection = text.slice(text.indexOf('### notes'))
    expect(notesSection).toContain('node scripts/notes.mjs')
    const noNative = renderAgentPrompt(plan({ nativeTools: false }), json, 'claude')
    expect(noNative).toContain('node scripts/forecast.mjs --city <string>')
    expect(noNative).not.toContain('mcp__')
  })

  it('documents both forms when asked', () => {
    const text = renderAgentPrompt(plan(), agent('both'), 'omp')
    const section = text.slice(text.indexOf('### forecast'), text.indexOf('### notes'))
    expect(section).toContain('node scripts/forecast.mjs')
    expect(section).toContain('Call the tool `forecast`')
    expect(section).toContain('"required": [\n    "city"\n  ]')
  })

  it('returns the bare prompt when the agent has no tools', () => {
    const bare = { ...agent('both'), tools: [], toolFormats: {} }
    expect(renderAgentPrompt(plan(), bare)).toBe('You plan things.\n')
  })
})

describe('emitPrompts', () => {
  it('writes one harness-neutral prompt document per agent', () => {
    const files = emitPrompts(plan())
    expect(files.map((f) => f.path)).toEqual(['prompts/planner.md'])
    const [file] = files
    expect(file?.kind).toBe('owned')
    // Harness-neutral: no native tool names, the JSON form points at the script's --json.
    expect(file?.kind === 'owned' && file.content).toContain('Input, as JSON (for `node scripts/forecast.mjs --json`)')
  })
})

describe('the result contract', () => {
  it('documents the output schema of a tool that declares one, whichever way the agent calls it', () => {
    const output = { type: 'object', properties: { high: { type: 'number' } }, required: ['high'] }
    const plan = planned.fixturePlan({
      tools: [planned.tool('forecast', { output }), planned.tool('plain')],
      agents: [planned.agent('planner', { tools: ['forecast', 'plain'], toolFormats: { forecast: 'both', plain: 'both' } })],
    })
    for (const harness of ['claude', undefined] as const) {
      const prompt = renderAgentPrompt(plan, plan.agents[0]!, harness)
      const [forecast, plain] = prompt.split('### ').slice(1)
      expect(forecast).toContain(`Its result is JSON matching this JSON Schema:\n\n\`\`\`json\n${JSON.stringify(output, null, 2)}\n\`\`\``)
      expect(plain).not.toContain('Its result is JSON')
    }
  })
})
