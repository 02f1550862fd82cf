import { parse as parseYaml } from 'yaml'
import type { Plan, PlannedAgent, PlannedTool } from '../../src/compile/plan.js'
import type { OutputFile, OwnedFile, MergeFile } from '../../src/emit/types.js'

export function tool(name: string, fields: Partial<PlannedTool> = {}): PlannedTool {
  return {
    name,
    description: `The ${name} tool.`,
    json: true,
    replacesBuiltin: false,
    schema: { type: 'object', properties: { city: { type: 'string', description: 'City name' } }, required: ['city'], additionalProperties: false },
    schemaKind: 'zod',
    schemaPackage: 'zod',
    source: { file: `agents/tools/${name}.ts`, line: 3, column: 22 },
    script: `scripts/${name}.mjs`,
    ...fields,
  }
}

export function agent(name: string, fields: Partial<PlannedAgent> = {}): PlannedAgent {
  const tools = fields.tools ?? []
  return {
    name,
    description: `The ${name} agent.`,
    prompt: `You are ${name}.`,
    tools,
    toolFormats: Object.fromEntries(tools.map((t) => [t, 'both'])),
    mode: 'subagent',
    model: {},
    builtinTools: {},
    harness: {},
    source: { file: 'agents/registry.ts', line: 12, column: 15 },
    ...fields,
  }
}

/**
 * Three tools (two with a JSON contract, one bash-only) and three agents that use them in each
 * documented format.
 */
export function fixturePlan(overrides: Partial<Plan> = {}): Plan {
  return {
    config: 'prod',
    harnesses: ['claude', 'codex'],
    nativeTools: true,
    serverName: 'oac-tools',
    bridge: 'process',
    hooks: [],
    env: ['FORECAST_TOKEN', 'REGION'],
    tools: [tool('forecast'), tool('search_issues'), tool('release_notes', { json: false })],
    agents: [
      agent('planner', {
        tools: ['forecast', 'search_issues'],
        toolFormats: { forecast: 'json', search_issues: 'json' },
        model: { claude: 'opus', codex: 'gpt-5.1-codex' },
        harness: { claude: { color: 'blue', maxTurns: 12 }, codex: { model_reasoning_effort: 'high', sandbox_mode: 'read-only' } },
      }),
      agent('triager', {
        tools: ['search_issues', 'release_notes'],
        toolFormats: { search_issues: 'both', release_notes: 'bash' },
        builtinTools: { claude: ['Read', 'Grep'] },
      }),
      agent('reviewer', { tools: ['forecast'], toolFormats: { forecast: 'bash' } }),
    ],
    ...overrides,
  }
}

export function owned(files: OutputFile[], path: string): OwnedFile {
  const file = files.find((f) => f.path === path)
  if (file?.kind !== 'owned') throw new Error(`no owned file ${path} among ${files.map((f) => f.path).join(', ')}`)
  return file
}

export function merged(files: OutputFile[], path: string): MergeFile {
  const file = files.find((f) => f.path === path)
  if (file?.kind !== 'merge') throw new Error(`no merge file ${path} among ${files.map((f) => f.path).join(', ')}`)
  return file
}

/**
 * Splits a Markdown file as Claude Code reads it: a `---` line, YAML up to the next line that is
 * exactly `---`, then (after the blank line we write) the body.
 */
export function splitFrontmatter(text: string): { frontmatter: Record<string, unknown>; body: string } {
  const match = /^---\n([\s\S]*?)\n---\n\n/.exec(text)
  if (!match) throw new Error(`no frontmatter in:\n${text}`)
  return { frontmatter: parseYaml(match[1]!) as Record<string, unknown>, body: text.slice(match[0].length) }
}
